#!/usr/bin/env bash
# Benchmark gpx2fix on NMEA 0183 (NMEA -> NDJSON) against GPSBabel (the peer users know) and
# cat (the floor: reading the bytes), on a generated log of N epochs (RMC + GGA + GST each).
#
#   bench/nmea.sh                         # 1,000,000 epochs, release build in .build
#   N=200000 RUNS=3 bench/nmea.sh
#   BUILD_DIR=/tmp/bench-build bench/nmea.sh
#   GPX2FIX=/path/to/gpx2fix bench/nmea.sh
#   N=100000 PYNMEA2=1 bench/nmea.sh      # also a pynmea2 loop (slow: about 85 s a million)
#
# GPSBabel is timed twice: as usually run (TZ unset) and with TZ=UTC; see below.
#
# Environment:
#   N          epochs in the big log (default 1000000); a log N/10 epochs long is also made,
#              to show that gpx2fix's peak memory does not grow with the input
#   RUNS       timed runs of each command, after one warm-up run (default 5)
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   PYNMEA2    1 to add bench/py_nmea.py, a pynmea2 loop, to the comparison (pip install pynmea2)
#   CALLGRIND  0 to skip counting gpx2fix's instructions with valgrind on the N/10 log
#
# GPSBabel with TZ=UTC and gpx2fix also run in turn for PAIRS rounds (bench/cpu_pairs.py): the
# median of the rounds' CPU ratios decides issue 11's target of at least 20x.
#
# Output (bench/out/, git-ignored): the logs, hyperfine's nmea.md and nmea.json,
# nmea-pairs.json (cpu_pairs.py's rounds, with GPSBabel), the callgrind.nmea.out profile, and
# nmea-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-5}
PYNMEA2=${PYNMEA2:-0}

check_whole_number N 10 epochs
check_whole_number RUNS 2
require_python3 "to generate the NMEA log and compute the ratios"
require_hyperfine
optional_tool have_gpsbabel gpsbabel "apt-get install gpsbabel, brew install gpsbabel"
if [[ $PYNMEA2 != 0 ]]; then
    python3 -c 'import pynmea2' 2>/dev/null || die "PYNMEA2=1 but pynmea2 is not installed (pip install pynmea2)"
fi
check_gnu_time

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

# --- input files: big.nmea (big-N.nmea for another N) and one N/10 epochs long ----------------
make_big_and_small big.nmea epochs gen_nmea.py --epochs

start_summary "$out/nmea-summary.txt"
say_header "gpx2fix NMEA benchmark" 10
say "input:    $big: $N epochs (RMC + GGA + GST), $(file_mib "$big") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 .)"
[[ $PYNMEA2 != 0 ]] && say "pynmea2:  $(python3 -c 'import sys, pynmea2; print(pynmea2.__version__, "on Python", sys.version.split()[0])')"
say ""

# --- time: one hyperfine run, all commands ----------------------------------------------------
# Without -t GPSBabel reads the NMEA as waypoints and writes nothing to unicsv.
cmd_gpsbabel="gpsbabel -t -i nmea -f $(q "$big") -o unicsv -F /dev/null"
# With TZ unset (as it usually is), glibc's localtime() stats /etc/localtime at every call,
# and GPSBabel (Qt's date code) calls it about seven times a sentence: most of its time is
# spent in those newfstatat calls (system time). With TZ set it makes none, so GPSBabel is
# timed both ways; TZ is unset for every other command.
unset TZ
args=(-n gpx2fix "$(q "$gpx2fix") $(q "$big") > /dev/null"
    -n cat "cat $(q "$big") > /dev/null")
((have_gpsbabel)) && args+=(-n gpsbabel "$cmd_gpsbabel" -n "gpsbabel TZ=UTC" "TZ=UTC $cmd_gpsbabel")
[[ $PYNMEA2 != 0 ]] && args+=(-n pynmea2 "python3 $(q "$here/py_nmea.py") $(q "$big") > /dev/null")
run_hyperfine nmea -- "${args[@]}"
pairs=$out/nmea-pairs.json
rm -f "$pairs"
if ((have_gpsbabel)); then
    # gpx2fix and GPSBabel with TZ=UTC in turn decide the 20x target (run_pairs, lib.sh).
    run_pairs "gpx2fix and gpsbabel TZ=UTC in turn" "$pairs" \
        -- "$gpx2fix" "$big" -- env TZ=UTC gpsbabel -t -i nmea -f "$big" -o unicsv -F /dev/null
fi

summarize "$out/nmea.json" "$N" "$pairs" <<'EOF'
results = load_results(sys.argv[1])
n = int(sys.argv[2])
print_medians(results, 15)
g = results["gpx2fix"]["median"]
print(f"  gpx2fix: {n / g / 1e6:.2f} million epochs a second")
print("ratios (from the medians)")
print(f"  gpx2fix / cat      = {g / results['cat']['median']:.1f}x   (the floor: reading the bytes)")
if "gpsbabel" in results:
    b = results["gpsbabel"]["median"]
    print(f"  gpsbabel / gpx2fix = {b / g:.1f}x   (target: at least 25x)   " + ("ok" if b / g >= 25 else "MISSED"))
    bt = results["gpsbabel TZ=UTC"]["median"]
    print(f"  gpsbabel TZ=UTC / gpx2fix = {bt / g:.1f}x   (issue 11's target, at least 20x: in turn, below)")
else:
    print("  gpsbabel / gpx2fix = n/a (gpsbabel not installed)")
if "pynmea2" in results:
    print(f"  pynmea2 / gpx2fix  = {results['pynmea2']['median'] / g:.1f}x")
print_checks(results, [(name, "gpx2fix") for name in ("gpsbabel", "gpsbabel TZ=UTC", "pynmea2")], 1)
if "gpsbabel" in results:
    print("gpsbabel TZ=UTC / gpx2fix, the two run in turn")
    print_pairs(sys.argv[3], 20, at_least=True)
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    say_peak_heading
    peak "gpx2fix ($N epochs)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "gpx2fix ($small_n epochs)" "$gpx2fix" "$small"
    s_kb=$peak_kb
    if ((have_gpsbabel)); then
        peak "gpsbabel ($N epochs)" gpsbabel -t -i nmea -f "$big" -o unicsv -F /dev/null
        peak "gpsbabel ($small_n epochs)" gpsbabel -t -i nmea -f "$small" -o unicsv -F /dev/null
    fi
    [[ $PYNMEA2 != 0 ]] && peak "pynmea2 ($N epochs)" python3 "$here/py_nmea.py" "$big"
    say_peak_growth gpx2fix "$g_kb" "$s_kb"
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if callgrind_wanted 1; then
    say_callgrind_heading "$small_n-epoch log"
    say_instr_per_unit gpx2fix "$(instr nmea "$gpx2fix" "$small")" "$small_n" "an epoch" "$small" out/callgrind.nmea.out
fi
echo "== written: $out/nmea.md, $out/nmea.json, $out/nmea-pairs.json (with gpsbabel), $summary" >&2
