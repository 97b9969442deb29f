#!/usr/bin/env bash
# Benchmark gpx2fix on FIT (FIT -> NDJSON) against GPSBabel's FIT reader (the peer users know)
# and Garmin's FIT SDK for Python, on a generated 1 Hz ride of N record messages
# (bench/gen_fit.py), with cat as the floor.
#
#   bench/fit.sh                          # 1,000,000 records, release build in .build
#   N=200000 RUNS=3 bench/fit.sh
#   GPX2FIX=/path/to/gpx2fix bench/fit.sh
#   SDK=0 bench/fit.sh                    # without the FIT SDK (about a minute a run)
#
# Environment:
#   N          record messages in the big file (default 1000000); a file of N/10 is also
#              made, to show that gpx2fix's peak memory does not grow with the input
#   RUNS       timed runs of gpx2fix, cat and GPSBabel, after one warm-up run (default 5)
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   SDK        0 to leave out garmin-fit-sdk (pip install garmin-fit-sdk); SDK_RUNS runs of
#              it (default 2, no warm-up: it is slow)
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  0 to skip counting gpx2fix's instructions with valgrind on the N/10 file
#
# GPSBabel and gpx2fix also run in turn for PAIRS rounds (bench/cpu_pairs.py): the median of
# the rounds' CPU ratios decides the target of at least 10x.
#
# Output (bench/out/, git-ignored): the FIT files, hyperfine's fit.md/fit.json and
# fit-sdk.json, fit-pairs.json (cpu_pairs.py's rounds, with GPSBabel), callgrind.fit.out, and
# fit-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-5}
SDK=${SDK:-1}
SDK_RUNS=${SDK_RUNS:-2}

check_whole_number N 10 records
check_whole_number RUNS 2
check_whole_number SDK_RUNS 1
require_python3 "to generate the FIT file and compute the ratios"
require_hyperfine
optional_tool have_gpsbabel gpsbabel "apt-get install gpsbabel, brew install gpsbabel"
if [[ $SDK != 0 ]] && ! python3 -c 'import garmin_fit_sdk' 2>/dev/null; then
    echo "$me: garmin-fit-sdk is not installed (pip install garmin-fit-sdk): it is left out of the comparison" >&2
    SDK=0
fi
check_gnu_time

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

make_big_and_small big.fit records gen_fit.py --records

start_summary "$out/fit-summary.txt"
say_header "gpx2fix FIT benchmark" 10
say "input:    $big: $N record messages (1 Hz, 11 fields, 32 bytes each), $(file_mib "$big") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 .)"
[[ $SDK != 0 ]] && say "sdk:      garmin-fit-sdk $(python3 -c 'import importlib.metadata as m; print(m.version("garmin-fit-sdk"))') on Python $(python3 -c 'import sys; print(sys.version.split()[0])')"
say ""

# With -t GPSBabel reads the records as a track and writes it, as gpx2fix writes its fixes.
# TZ=UTC: with TZ unset GPSBabel's time code stats /etc/localtime at every call (see nmea.sh).
args=(-n gpx2fix "$(q "$gpx2fix") $(q "$big") > /dev/null"
    -n cat "cat $(q "$big") > /dev/null")
((have_gpsbabel)) && args+=(-n gpsbabel "TZ=UTC gpsbabel -t -i garmin_fit -f $(q "$big") -o unicsv -F /dev/null")
run_hyperfine fit -- "${args[@]}"
if [[ $SDK != 0 ]]; then
    echo "== hyperfine: garmin-fit-sdk ($SDK_RUNS runs, no warm-up)" >&2
    hyperfine --runs "$SDK_RUNS" --export-json "$out/fit-sdk.json" \
        -n garmin-fit-sdk "python3 $(q "$here/py_fit_sdk.py") $(q "$big") > /dev/null" >&2
fi
pairs=$out/fit-pairs.json
rm -f "$pairs"
if ((have_gpsbabel)); then
    # gpx2fix and GPSBabel in turn, which decide the 10x target (run_pairs, lib.sh).
    run_pairs "gpx2fix and gpsbabel in turn" "$pairs" \
        -- "$gpx2fix" "$big" -- env TZ=UTC gpsbabel -t -i garmin_fit -f "$big" -o unicsv -F /dev/null
fi

summarize "$out/fit.json" "$out/fit-sdk.json" "$SDK" "$N" "$pairs" <<'EOF'
results = load_results(sys.argv[1])
if sys.argv[3] != "0":
    results.update(load_results(sys.argv[2]))
n = int(sys.argv[4])
print_medians(results, 15)
g = results["gpx2fix"]["median"]
print(f"  gpx2fix: {n / g / 1e6:.2f} million records a second")
print("ratios (from the medians)")
print(f"  gpx2fix / cat      = {g / results['cat']['median']:.1f}x   (the floor: reading the bytes)")
if "gpsbabel" in results:
    b = results["gpsbabel"]["median"]
    print(f"  gpsbabel / gpx2fix = {b / g:.1f}x   (the target, at least 10x: in turn, below)")
if "garmin-fit-sdk" in results:
    print(f"  garmin-fit-sdk / gpx2fix = {results['garmin-fit-sdk']['median'] / g:.1f}x")
print_checks(results, [(name, "gpx2fix") for name in ("gpsbabel", "garmin-fit-sdk")], 1)
if "gpsbabel" in results:
    print("gpsbabel / gpx2fix, the two run in turn")
    print_pairs(sys.argv[5], 10, at_least=True)
EOF
say ""

if ((have_time)); then
    say_peak_heading
    peak "gpx2fix ($N records)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "gpx2fix ($small_n records)" "$gpx2fix" "$small"
    s_kb=$peak_kb
    ((have_gpsbabel)) && peak "gpsbabel ($N records)" gpsbabel -t -i garmin_fit -f "$big" -o unicsv -F /dev/null
    [[ $SDK != 0 ]] && peak "garmin-fit-sdk ($small_n records)" python3 "$here/py_fit_sdk.py" "$small"
    say_peak_growth gpx2fix "$g_kb" "$s_kb" 32
fi
if callgrind_wanted 1; then
    say_callgrind_heading "$small_n-record file"
    say_instr_per_unit gpx2fix "$(instr fit "$gpx2fix" "$small")" "$small_n" "a record" "$small" out/callgrind.fit.out
fi
echo "== written: $out/fit.md, $out/fit.json, $out/fit-pairs.json (with gpsbabel), $summary" >&2
