#!/usr/bin/env bash
# Benchmark fixfilter (NDJSON fixes in, the ones that pass out) against jq and a plain Python
# json loop doing its first rule (hacc < 100), and cat (the floor: reading the bytes), on a
# generated stream of N fixes.
#
#   bench/fixfilter.sh                    # 1,000,000 fixes, release build in .build
#   N=200000 RUNS=3 bench/fixfilter.sh
#   BUILD_DIR=/tmp/bench-build bench/fixfilter.sh
#   FIXFILTER=/path/to/fixfilter bench/fixfilter.sh
#
# Environment:
#   N          fixes in the big file (default 1000000); a file N/10 fixes long is also made,
#              to show that fixfilter's peak memory does not grow with the input
#   RUNS       timed runs of each command, after one warm-up run (default 5)
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   FIXFILTER  a fixfilter binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  0 to skip counting fixfilter's instructions with valgrind on the N/10 file
#   NOCACC     0 to leave out the second input (default 1): N fixes that all carry a speed and
#              a course but no cacc (gen_fixes.py --no-cacc, as gpx2fix writes a GPX with
#              Garmin's extension), so that the default rules strip every course. Targets: at
#              least 20x the Python loop on it, and within 1.2x of `--course keep` (in CPU
#              time, the two run in turn for PAIRS rounds by bench/cpu_pairs.py: the median of
#              the rounds' ratios decides, as a drift of the machine's speed between
#              hyperfine's blocks of runs moves a ratio of their medians)
#
# Output (bench/out/, git-ignored): the NDJSON files, hyperfine's fixfilter.md and
# fixfilter.json, fixfilter-nocacc-pairs.json (bench/cpu_pairs.py's rounds, with NOCACC), the
# callgrind.fixfilter.out profile, and fixfilter-summary.txt with everything printed after
# the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-5}

check_whole_number N 10 fixes
check_whole_number RUNS 2
require_python3 "to generate the fixes, run the Python peer and compute the ratios"
require_hyperfine
optional_tool have_jq jq "apt-get install jq, brew install jq"
check_gnu_time

binaries_from_env_or_build "set FIXFILTER to a fixfilter binary" FIXFILTER fixfilter

# --- input files: big.ndjson (big-N.ndjson for another N) and one N/10 fixes long -------------
make_big_and_small big.ndjson fixes gen_fixes.py --fixes
NOCACC=${NOCACC:-1}
if [[ $NOCACC != 0 ]]; then
    nocacc=$(input_for nocacc.ndjson "$N")
    generate "$nocacc" "$N fixes, courses without cacc" gen_fixes.py --no-cacc --fixes "$N"
fi

start_summary "$out/fixfilter-summary.txt"
say_header "fixfilter benchmark" 11
say "input:     $big: $N fixes, $(file_mib "$big") MiB"
say "fixfilter: $fixfilter ($("$fixfilter" --version 2>&1 | head -1))"
((have_jq)) && say "jq:        $(jq --version 2>&1 | head -1)"
say "python:    $(python3 --version 2>&1)"
# What the default rules do to this input: every rule should reject some.
say "rules:     $("$fixfilter" --stats "$big" 2>&1 >/dev/null | sed 's/^fixfilter: //')"
say "           with --course reject: $("$fixfilter" --stats --course reject "$big" 2>&1 >/dev/null | sed 's/^fixfilter: //')"
[[ $NOCACC != 0 ]] && say "no cacc:   $nocacc: $N fixes, $(file_mib "$nocacc") MiB; $("$fixfilter" --stats "$nocacc" 2>&1 >/dev/null | sed 's/^fixfilter: //')"
say ""

# --- time: one hyperfine run, all commands ----------------------------------------------------
# The same rule as jq and Python, the others off: the same work, the same ~99% of lines out.
args=(-n fixfilter "$(q "$fixfilter") $(q "$big") > /dev/null"
    -n "fixfilter hacc only" "$(q "$fixfilter") --max-age off --max-speed off --course keep --min-move off $(q "$big") > /dev/null"
    -n python "python3 $(q "$here/py_hacc_filter.py") $(q "$big") > /dev/null"
    -n cat "cat $(q "$big") > /dev/null")
((have_jq)) && args+=(-n jq "jq -c 'select(.hacc < 100)' $(q "$big") > /dev/null")
[[ $NOCACC != 0 ]] && args+=(-n "fixfilter, no cacc" "$(q "$fixfilter") $(q "$nocacc") > /dev/null"
    -n "fixfilter --course keep, no cacc" "$(q "$fixfilter") --course keep $(q "$nocacc") > /dev/null"
    -n "python, no cacc" "python3 $(q "$here/py_hacc_filter.py") $(q "$nocacc") > /dev/null")
run_hyperfine fixfilter -- "${args[@]}"
pairs=$out/fixfilter-nocacc-pairs.json
rm -f "$pairs"
if [[ $NOCACC != 0 ]]; then
    # --course keep and the defaults in turn, round after round, which decide the 1.2x target.
    run_pairs "--course keep and the defaults in turn" "$pairs" \
        -- "$fixfilter" --course keep "$nocacc" -- "$fixfilter" "$nocacc"
fi

summarize "$out/fixfilter.json" "$N" "$pairs" <<'EOF'
results = load_results(sys.argv[1])
n = int(sys.argv[2])
print_medians(results, 32)
f = results["fixfilter"]["median"]
rate = n / f / 1e6
print(f"  fixfilter: {rate:.2f} million fixes a second   (aim: 2 million)   " + ("ok" if rate >= 2 else "missed"))
print("ratios (from the medians)")
p = results["python"]["median"]
print(f"  python / fixfilter            = {p / f:5.1f}x   (target: at least 10x, aim 20x)   "
      + ("ok, aim met" if p / f >= 20 else "ok, aim missed" if p / f >= 10 else "MISSED"))
h = results["fixfilter hacc only"]["median"]
print(f"  python / fixfilter hacc only  = {p / h:5.1f}x")
if "jq" in results:
    j = results["jq"]["median"]
    print(f"  jq / fixfilter                = {j / f:5.1f}x")
    print(f"  jq / fixfilter hacc only      = {j / h:5.1f}x")
print(f"  fixfilter / cat               = {f / results['cat']['median']:5.1f}x   (the floor: reading the bytes)")
print_checks(results, [("python", "fixfilter"), ("jq", "fixfilter")], 1)
if "fixfilter, no cacc" in results:
    f, k = results["fixfilter, no cacc"]["median"], results["fixfilter --course keep, no cacc"]["median"]
    p = results["python, no cacc"]["median"]
    print("no cacc: every course stripped by the defaults (from the medians)")
    print(f"  python / fixfilter                = {p / f:5.1f}x   (target: at least 20x)   " + ("ok" if p / f >= 20 else "MISSED"))
    print(f"  fixfilter / --course keep         = {f / k:5.2f}x")
    print_pairs(sys.argv[3], 1.2)
    print_checks(results, [("python, no cacc", "fixfilter, no cacc"), ("fixfilter, no cacc", "fixfilter --course keep, no cacc")], 2)
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    say_peak_heading
    peak "fixfilter ($N fixes)" "$fixfilter" "$big"
    f_kb=$peak_kb
    peak "fixfilter ($small_n fixes)" "$fixfilter" "$small"
    s_kb=$peak_kb
    peak "python ($N fixes)" python3 "$here/py_hacc_filter.py" "$big"
    ((have_jq)) && peak "jq ($N fixes)" jq -c 'select(.hacc < 100)' "$big"
    say_peak_growth fixfilter "$f_kb" "$s_kb"
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if callgrind_wanted 1; then
    say_callgrind_heading "$small_n-fix file"
    say_instr_per_unit fixfilter "$(instr fixfilter "$fixfilter" "$small")" "$small_n" "a fix" "$small" out/callgrind.fixfilter.out
fi
echo "== written: $out/fixfilter.md, $out/fixfilter.json, $out/fixfilter-nocacc-pairs.json (with NOCACC), $summary" >&2
