#!/usr/bin/env bash
# Benchmark gpx2fix (GPX -> NDJSON) against libxml2's own streaming parse (xmllint --stream,
# the floor) and GPSBabel (the peer users know), on a generated GPX of N track points.
#
#   bench/gpx2fix.sh                      # 1,000,000 points, release build in .build
#   N=200000 RUNS=3 bench/gpx2fix.sh
#   BUILD_DIR=/tmp/bench-build bench/gpx2fix.sh
#   GPX2FIX=/path/to/gpx2fix bench/gpx2fix.sh
#
# Environment:
#   N          track points in the big file (default 1000000); a file N/10 points long is
#              also made, to show that gpx2fix's peak memory does not grow with the input
#   RUNS       timed runs of each command, after one warm-up run (default 5)
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  0 to skip counting instructions with valgrind on the N/10 file (about a minute)
#
# xmllint and gpx2fix also run in turn for PAIRS rounds (bench/cpu_pairs.py): the median of the
# rounds' CPU ratios decides issue 11's target, no slower than xmllint --stream.
#
# Output (bench/out/, git-ignored): the GPX files, hyperfine's gpx2fix.md and gpx2fix.json,
# gpx2fix-pairs.json (cpu_pairs.py's rounds), callgrind.*.out profiles, and summary.txt with
# everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-5}

check_whole_number N 10 points
check_whole_number RUNS 2
require_python3 "to generate the GPX file and compute the ratios"
require_hyperfine
require_tool xmllint \
    "xmllint is not installed: it is the floor the ratios are taken against (apt-get install libxml2-utils; macOS has it)"
optional_tool have_gpsbabel gpsbabel "apt-get install gpsbabel, brew install gpsbabel"
check_gnu_time

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

# --- input files: big.gpx (big-N.gpx for another N) and one N/10 points long ------------------
make_big_and_small big.gpx points gen_gpx.py --points

start_summary "$out/summary.txt"
say_header "gpx2fix benchmark" 10
say "input:    $big: $N points, $(file_mib "$big") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
say "xmllint:  $(xmllint --version 2>&1 | head -1)"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 .)"
say ""

# --- time: one hyperfine run, three commands --------------------------------------------------
args=(-n gpx2fix "$(q "$gpx2fix") $(q "$big") > /dev/null"
    -n "xmllint --stream" "xmllint --stream --noout $(q "$big")")
((have_gpsbabel)) && args+=(-n gpsbabel "gpsbabel -t -i gpx -f $(q "$big") -o unicsv -F /dev/null")
run_hyperfine gpx2fix -- "${args[@]}"
# gpx2fix and xmllint in turn, which decide issue 11's target, no slower (run_pairs, lib.sh).
pairs=$out/gpx2fix-pairs.json
run_pairs "xmllint --stream and gpx2fix in turn" "$pairs" \
    -- xmllint --stream --noout "$big" -- "$gpx2fix" "$big"

summarize "$out/gpx2fix.json" "$pairs" <<'EOF'
results = load_results(sys.argv[1])
print_medians(results, 17)
g, x = results["gpx2fix"]["median"], results["xmllint --stream"]["median"]
print("ratios (from the medians)")
print(f"  gpx2fix / xmllint --stream = {g / x:.2f}x   (target: at most 1.3x)   "
      + ("ok" if g / x <= 1.3 else "MISSED"))
if "gpsbabel" in results:
    b = results["gpsbabel"]["median"]
    print(f"  gpsbabel / gpx2fix         = {b / g:.2f}x   (target: at least 5x)    "
          + ("ok" if b / g >= 5 else "MISSED"))
else:
    print("  gpsbabel / gpx2fix         = n/a (gpsbabel not installed)")
print_checks(results, [("gpx2fix", "xmllint --stream"), ("gpsbabel", "gpx2fix")], 2)
print("gpx2fix / xmllint --stream, the two run in turn (issue 11: no slower)")
print_pairs(sys.argv[2], 1)
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    say_peak_heading
    peak "gpx2fix ($N points)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "xmllint --stream ($N points)" xmllint --stream --noout "$big"
    ((have_gpsbabel)) && peak "gpsbabel ($N points)" gpsbabel -t -i gpx -f "$big" -o unicsv -F /dev/null
    peak "gpx2fix ($small_n points)" "$gpx2fix" "$small"
    say_peak_growth gpx2fix "$g_kb" "$peak_kb" 32
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if callgrind_wanted 1; then
    say_callgrind_heading "$small_n-point file"
    g_ir=$(instr gpx2fix "$gpx2fix" "$small")
    x_ir=$(instr xmllint xmllint --stream --noout "$small")
    summarize "$g_ir" "$x_ir" "$small_n" <<'EOF'
g, x, n = (int(v) for v in sys.argv[1:4])
print(f"  gpx2fix           {g / 1e6:8.1f} M  ({g / n:,.0f} a point)")
print(f"  xmllint --stream  {x / 1e6:8.1f} M  ({x / n:,.0f} a point)")
print(f"  gpx2fix / xmllint --stream = {g / x:.2f}x   (callgrind_annotate out/callgrind.gpx2fix.out shows where)")
EOF
fi
echo "== written: $out/gpx2fix.md, $out/gpx2fix.json, $summary" >&2
