#!/usr/bin/env bash
# Benchmark gpx2fix on Google location history: a generated Records.json of MIB mebibytes
# (bench/gen_records.py, laid out as Takeout writes it) read by gpx2fix and by
# `jq -c '.locations[]'` (the peer users reach for), with cat as the floor. jq builds the
# whole document in memory; gpx2fix streams it element by element.
#
#   bench/takeout.sh                      # 1024 MiB, release build in .build
#   MIB=100 RUNS=3 bench/takeout.sh
#   GPX2FIX=/path/to/gpx2fix bench/takeout.sh
#
# Environment:
#   MIB        size of the big file in MiB (default 1024); a file of MIB/10 is also made, to
#              show that gpx2fix's peak memory does not grow with the input
#   RUNS       timed runs of each command, after one warm-up run (default 3)
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# Output (bench/out/, git-ignored): the Records files, hyperfine's takeout.md/takeout.json,
# and takeout-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
MIB=${MIB:-1024}
RUNS=${RUNS:-3}

check_whole_number MIB 10 MiB
check_whole_number RUNS 2
require_python3 "to generate Records.json and compute the ratios"
require_hyperfine
require_tool jq "jq is needed for the comparison (apt-get install jq, brew install jq)"
check_gnu_time

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

big="$out/Records-$MIB.json"
small_mib=$((MIB / 10))
small="$out/Records-$small_mib.json"
generate "$big" "$MIB MiB" gen_records.py --mib "$MIB"
generate "$small" "$small_mib MiB" gen_records.py --mib "$small_mib"

start_summary "$out/takeout-summary.txt"
say_header "gpx2fix Records.json benchmark" 10
say "input:    $big: $(file_mib "$big") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
say "jq:       $(jq --version)"
say ""

run_hyperfine takeout -- \
    -n gpx2fix "$(q "$gpx2fix") $(q "$big") > /dev/null" \
    -n jq "jq -c '.locations[]' $(q "$big") > /dev/null" \
    -n cat "cat $(q "$big") > /dev/null"

summarize "$out/takeout.json" "$MIB" <<'PY'
results = load_results(sys.argv[1])
mib = int(sys.argv[2])
print_medians(results, 10)
g = results["gpx2fix"]["median"]
print(f"  gpx2fix: {mib / g:.0f} MiB a second")
print("ratios (from the medians)")
print(f"  gpx2fix / cat = {g / results['cat']['median']:.1f}x   (the floor: reading the bytes)")
j = results["jq"]["median"]
print(f"  jq / gpx2fix  = {j / g:.1f}x   (target: at least 5x)   " + ("ok" if j / g >= 5 else "MISSED"))
print_checks(results, [("jq", "gpx2fix")], 1)
PY
say ""

if ((have_time)); then
    say_peak_heading
    peak "gpx2fix ($MIB MiB)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "gpx2fix ($small_mib MiB)" "$gpx2fix" "$small"
    s_kb=$peak_kb
    peak "jq ($small_mib MiB)" jq -c '.locations[]' "$small"
    say_peak_growth gpx2fix "$g_kb" "$s_kb" 32
fi
echo "== written: $out/takeout.md, $out/takeout.json, $summary" >&2
