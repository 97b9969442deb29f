#!/usr/bin/env bash
# Benchmark rides in bulk: N ride files of POINTS points each through
# `gpx2fix | fixfilter | fixstats`, three ways (one process for all the files, GNU parallel
# with -j JOBS running one pipeline per file, and what users do today, a shell loop of
# `gpsbabel -i gpx -f F -o unicsv -F /dev/null` per file), plus contrib/spark/fixkit_pipe.py
# on the same files (local[JOBS]), to show Spark's overhead.
#
#   bench/bulk.sh                          # 10,000 files of 1,000 points, release build in .build
#   N=1000 RUNS=2 bench/bulk.sh            # a smaller, quicker run
#   SPARK=0 bench/bulk.sh                  # leave Spark out
#   BUILD_DIR=/tmp/bench-build bench/bulk.sh
#
# Environment:
#   N          ride files (default 10000)
#   POINTS     points a ride (default 1000)
#   JOBS       parallel's -j and Spark's local[JOBS] (default 2)
#   RUNS       timed runs of each command, after the warm-up runs (default 3)
#   WARMUP     warm-up runs of each command (default 1; 0 for the full-size run, whose
#              files are read from the page cache anyway after the fixes are made)
#   SPARK      0 to leave the Spark runs out (default 1; they need java and pyspark)
#   GPX2FIX, FIXFILTER, FIXSTATS
#              binaries to use (all three: no build is done)
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# Output (bench/out/, git-ignored): the rides in rides-N-POINTS/ (made once by
# gen_rides.py), their fixes as one NDJSON file, hyperfine's bulk.md and bulk.json, and
# bulk-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-10000}
POINTS=${POINTS:-1000}
JOBS=${JOBS:-2}
RUNS=${RUNS:-3}
SPARK=${SPARK:-1}

check_whole_number N 2 files
check_whole_number POINTS 1 points
check_whole_number JOBS 1
check_whole_number RUNS 2
require_python3 "to generate the rides and compute the ratios"
require_hyperfine
require_tool parallel "GNU parallel is not installed (apt-get install parallel, brew install parallel)"
optional_tool have_gpsbabel gpsbabel "apt-get install gpsbabel, brew install gpsbabel"
have_spark=0
if [[ $SPARK != 0 ]]; then
    if command -v java >/dev/null && python3 -c 'import pyspark' 2>/dev/null; then
        have_spark=1
    else
        echo "$me: java or pyspark is missing (apt-get install openjdk-17-jre-headless; pip install pyspark): Spark is left out" >&2
    fi
fi

binaries_from_env_or_build "set GPX2FIX, FIXFILTER and FIXSTATS to the binaries" \
    GPX2FIX gpx2fix FIXFILTER fixfilter FIXSTATS fixstats

# --- the rides: made once; the count of files says whether a folder is complete -------------
rides="$out/rides-$N-$POINTS"
if [[ ! -d $rides || $(find "$rides" -name 'ride-*.gpx' | wc -l) -ne $N ]]; then
    echo "== generating $rides ($N rides of $POINTS points)" >&2
    rm -rf "$rides.tmp"
    python3 "$here/gen_rides.py" --points "$POINTS" "$N" "$rides.tmp" || die "gen_rides.py could not write $rides"
    rm -rf "$rides"
    mv "$rides.tmp" "$rides"
fi
list="$out/rides-$N-$POINTS.txt"
find "$rides" -name 'ride-*.gpx' | sort >"$list"
fixes="$out/rides-$N-$POINTS.ndjson"
[[ -s $fixes ]] || (cd "$rides" && "$gpx2fix" ride-*.gpx >"$fixes.tmp" && mv "$fixes.tmp" "$fixes")
# The tools by their names, as the recipes in README and the Spark executors run them.
tools=$(dirname "$gpx2fix")
for b in "$fixfilter" "$fixstats"; do
    [[ $(dirname "$b") == "$tools" ]] || die "GPX2FIX, FIXFILTER and FIXSTATS must be in one folder"
done

start_summary "$out/bulk-summary.txt"
say_header "rides in bulk benchmark" 10
say "input:    $N rides of $POINTS points (gen_rides.py), $(du -sm "$rides" | cut -f1) MiB; as fixes $(file_mib "$fixes") MiB"
say "tools:    $tools ($("$gpx2fix" --version 2>&1 | head -1))"
say "parallel: $(parallel --version 2>/dev/null | head -1), -j $JOBS"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 -i version | sed 's/^ *//')"
((have_spark)) && say "spark:    pyspark $(python3 -c 'import pyspark; print(pyspark.__version__)'), $(java -version 2>&1 | head -1), local[$JOBS]"
say ""

# --- time: one hyperfine run, all commands ----------------------------------------------------
path="PATH=$(q "$tools"):\$PATH"
spark="$path SPARK_LOCAL_IP=127.0.0.1 python3 $(q "$root/contrib/spark/fixkit_pipe.py") --master 'local[$JOBS]'"
args=(-n "one process" "cd $(q "$rides") && $path && gpx2fix ride-*.gpx | fixfilter | fixstats > /dev/null"
    -n "parallel -j$JOBS" "cd $(q "$rides") && $path && parallel -j $JOBS 'gpx2fix {} | fixfilter | fixstats' ::: ride-*.gpx > /dev/null"
    -n "fixes: one process" "$path && fixfilter $(q "$fixes") | fixstats > /dev/null")
((have_gpsbabel)) && args+=(-n "gpsbabel loop" "cd $(q "$rides") && for f in ride-*.gpx; do gpsbabel -i gpx -f \"\$f\" -o unicsv -F /dev/null; done")
((have_spark)) && args+=(
    -n "spark: rides" "$spark --files-from $(q "$list") 'fixfilter | fixstats' - 2>/dev/null > /dev/null"
    -n "spark: fixes" "$spark 'fixfilter | fixstats' - $(q "$fixes") 2>/dev/null > /dev/null")
run_hyperfine bulk -- "${args[@]}"

summarize "$out/bulk.json" "$N" "$POINTS" <<'EOF'
results = load_results(sys.argv[1])
n, points = int(sys.argv[2]), int(sys.argv[3])
print_medians(results, 20)
one = results["one process"]["median"]
print("ratios (from the medians)")
print(f"  one process: {n / one:,.0f} files a second, {n * points / one / 1e6:.2f} M points a second")
for name in results:
    if name.startswith("parallel"):
        p = results[name]["median"]
        print(f"  {name} / one process      = {p / one:6.2f}x   ({(p - one) / n * 1000:.1f} ms more a file)")
if "gpsbabel loop" in results:
    g = results["gpsbabel loop"]["median"]
    print(f"  gpsbabel loop / one process  = {g / one:6.1f}x   (gpsbabel only reads and writes; no filter, no figures)")
    for name in results:
        if name.startswith("parallel"):
            print(f"  gpsbabel loop / {name}  = {g / results[name]['median']:6.1f}x")
if "spark: rides" in results:
    s = results["spark: rides"]["median"]
    print(f"  spark: rides / one process   = {s / one:6.1f}x   (overhead {s - one:.1f} s)")
    f = results["fixes: one process"]["median"]
    s = results["spark: fixes"]["median"]
    print(f"  spark: fixes / fixes: one process = {s / f:6.1f}x   (overhead {s - f:.1f} s)")
# Not Spark's: hyperfine's CPU time of those is the Python driver's alone, not the JVM's.
pairs = [(name, "one process") for name in results
         if name != "one process" and not name.startswith(("fixes", "spark"))]
print_checks(results, pairs, 1)
EOF
echo "== written: $out/bulk.md, $out/bulk.json, $summary" >&2
