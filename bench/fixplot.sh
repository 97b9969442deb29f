#!/usr/bin/env bash
# Benchmark fixplot on a million fixes: the size of the picture, the time, and peak memory at
# N and N/10 fixes (it must not grow with the fixes: they wait in a temporary file between the
# two passes, and the picture holds only what is visible).
#
#   bench/fixplot.sh                       # N=1000000, release build in .build
#   N=200000 RUNS=2 bench/fixplot.sh       # a smaller, quicker run
#   FIXPLOT=/path/to/fixplot FIXSIM=/path/to/fixsim bench/fixplot.sh
#
# Environment:
#   N          fixes in each big input (default 1000000, at least 1000)
#   RUNS       timed runs of each command, after one warm-up run (default 3)
#   FIXPLOT, FIXSIM  binaries to use; no build is done when both are given
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# Two inputs of N fixes each:
#   trips   bench/gen_fixes.py: trips one after another (walks, runs, rides, drives), about
#           250 traces over some 100 km: most fixes are far under a pixel apart and thin away.
#   block   fixsim walking one 500 m block round and round at 1 Hz with 8 m of noise: almost
#           every fix is a pixel or more from the last, so little can be thinned; the worst case
#           for size.
#
# Output (bench/out/, git-ignored): the inputs, the pictures (fixplot-*.svg, .html), hyperfine's
# fixplot.md and fixplot.json, and fixplot-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-3}

check_whole_number N 1000 fixes
check_whole_number RUNS 2
require_python3 "to generate the trips and sum up"
require_hyperfine
check_gnu_time

binaries_from_env_or_build "set FIXPLOT and FIXSIM to the binaries" FIXPLOT fixplot FIXSIM fixsim

make_big_and_small fixplot-trips.ndjson "fixes of trips" gen_fixes.py --fixes
trips=$big
trips_small=$small

# One loop of the block is 2,000 m, 1,429 fixes at 1.4 m/s.
block_input() { # COUNT FILE
    local loops route="0,0" k
    loops=$(( $1 / 1429 + 1 ))
    for ((k = 0; k < loops; k++)); do route+=":500,0:500,500:0,500:0,0"; done
    echo "== generating $2 ($1 fixes round a block)" >&2
    "$fixsim" --origin 51.5,-0.12 --route "$route" | head -n "$1" >"$2.tmp" || true
    mv "$2.tmp" "$2"
}
block=$(input_for fixplot-block.ndjson "$N")
block_small=$(input_for fixplot-block.ndjson "$small_n")
[[ -s $block ]] || block_input "$N" "$block"
[[ -s $block_small ]] || block_input "$small_n" "$block_small"

start_summary "$out/fixplot-summary.txt"
say_header "fixplot benchmark" 11
say "trips:     $trips: $(wc -l <"$trips" | tr -d ' ') fixes, $(file_mib "$trips") MiB"
say "block:     $block: $(wc -l <"$block" | tr -d ' ') fixes, $(file_mib "$block") MiB"
say "fixplot:   $fixplot ($("$fixplot" --version 2>&1 | head -1))"
"$fixplot" "$trips" >"$out/fixplot-trips.svg"
"$fixplot" --html "$trips" >"$out/fixplot-trips.html"
"$fixplot" "$block" >"$out/fixplot-block.svg"
"$fixplot" --html "$block" >"$out/fixplot-block.html"
for f in trips.svg trips.html block.svg block.html; do
    p=$out/fixplot-$f
    v=$(grep -o 'data-vertices="[0-9]*"' "$p" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')
    say "$(printf 'picture:   %-12s %8s MiB, %s vertices drawn' "$f" "$(file_mib "$p")" "$v")"
done
say ""

run_hyperfine fixplot -- \
    -n "fixplot, trips" "$(q "$fixplot") $(q "$trips") > /dev/null" \
    -n "fixplot --html, trips" "$(q "$fixplot") --html $(q "$trips") > /dev/null" \
    -n "fixplot, block" "$(q "$fixplot") $(q "$block") > /dev/null" \
    -n "cat, trips" "cat $(q "$trips") > /dev/null"

summarize "$out/fixplot.json" "$N" <<'EOF'
results = load_results(sys.argv[1])
print_medians(results, 22)
for name in ("fixplot, trips", "fixplot, block"):
    r = results[name]
    verdict = "ok: under 3 s" if r["median"] < 3 else "MISSED: the 3 s target"
    print(f"  {name}: {int(sys.argv[2]) / r['median'] / 1e6:.2f} million fixes a second from the median   {verdict}")
EOF
say ""

if ((have_time)); then
    peak_width=40
    say_peak_heading
    peak "fixplot, trips ($N fixes)" "$fixplot" "$trips"
    big_kb=$peak_kb
    peak "fixplot, trips ($small_n fixes)" "$fixplot" "$trips_small"
    say_peak_growth "fixplot, trips:" "$big_kb" "$peak_kb"
    peak "fixplot, block ($N fixes)" "$fixplot" "$block"
    big_kb=$peak_kb
    peak "fixplot, block ($small_n fixes)" "$fixplot" "$block_small"
    say_peak_growth "fixplot, block:" "$big_kb" "$peak_kb" 64
fi
echo "== written: $out/fixplot.md, $out/fixplot.json, $summary" >&2
