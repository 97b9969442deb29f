#!/usr/bin/env bash
# Run every benchmark in bench/, one after another, at sizes that keep the whole under 30
# minutes on 2 cores, then rewrite the figures table at the top of bench/README.md from their
# outputs (bench/figures.py), so that the table is never stale.
#
#   bench/all.sh                          # build once (make build), run everything, rewrite
#   ONLY="fixfilter fencerule" bench/all.sh   # just these (the table then has just their rows)
#   SKIP="bulk takeout" bench/all.sh      # all but these
#   BIN=/path/to/release/bin bench/all.sh # these binaries, build nothing
#   FULL=1 bench/all.sh                   # each script at its own default size (hours)
#   WRITE=0 bench/all.sh                  # print the table, leave README.md alone
#
# Environment:
#   ONLY, SKIP  benchmark names, from: gpx2fix nmea fit takeout fixfilter fencerule pbench
#               visits fixplot startup bulk (the order they run in)
#   BIN         a folder with the release binaries (gpx2fix, fixfilter, fencerule, fixsim,
#               visits, fixplot, fixstats); default: `make build` into BUILD_DIR, the Swift
#               runtime linked statically as `make install` installs it
#   BUILD_DIR   SwiftPM scratch path for that build (default <repo>/.build)
#   FULL        1 to run each script at its own default size instead of the sizes below
#   RUNS        timed runs for the scripts that take it (default 3; each script's own
#               default with FULL=1)
#   CALLGRIND   passed on (default 0 here: the instruction counts take minutes under valgrind)
#   WRITE       0 to print the new table instead of writing bench/README.md
#   SIZE_NAME   the environment for one script instead of the sizes below, e.g.
#               SIZE_fixfilter="N=200000 RUNS=5" (words of VAR=value)
#
# Sizes (FULL unset): gpx2fix 200,000 points, nmea 100,000 epochs, fit 200,000 records (one
# run of garmin-fit-sdk), takeout 100 MiB, fixfilter and fencerule 1,000,000 fixes, visits 30
# days and fixplot 1,000,000 fixes (2 runs), padding 300 MB inputs (its default), startup 200
# runs, bulk 300 rides without Spark
# (2 runs).
# pbench is built once in its own scratch path ($BUILD_DIR-pbench).
#
# Needs what the scripts need: python3, hyperfine, GNU time, xmllint, jq, gpsbabel, GNU
# parallel (.ci/run installs them all); valgrind only with CALLGRIND=1. A script that fails is
# reported and its row left out; the others still run. Each script's output goes to
# bench/out/all-NAME.log, the times to bench/out/all-summary.txt.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
ALL=(gpx2fix nmea fit takeout padding fixfilter fencerule pbench visits fixplot startup bulk)
FULL=${FULL:-0}
WRITE=${WRITE:-1}
export CALLGRIND=${CALLGRIND:-0}

require_python3 "to run the generators and write the table"
require_hyperfine

# --- what to run ------------------------------------------------------------------------------
wanted=()
for name in ${ONLY:-${ALL[*]}}; do
    [[ " ${ALL[*]} " == *" $name "* ]] || die "unknown benchmark '$name' (known: ${ALL[*]})"
    [[ " ${SKIP:-} " == *" $name "* ]] || wanted+=("$name")
done
((${#wanted[@]})) || die "nothing to run"

# --- the binaries: one build for all ----------------------------------------------------------
if [[ -n ${BIN:-} ]]; then
    bin=$BIN
else
    command -v swift >/dev/null || die "swift is not installed: set BIN to a folder of release binaries"
    build_dir=${BUILD_DIR:-$root/.build}
    echo "== make build SCRATCH=$build_dir" >&2
    make -C "$root" build SCRATCH="$build_dir" >&2 || die "the release build failed"
    bin="$(cd "$root" && swift build -c release --scratch-path "$build_dir" --show-bin-path)"
fi
for tool in gpx2fix fixfilter fencerule fixsim visits fixplot fixstats; do
    [[ -x $bin/$tool ]] || die "$bin/$tool is not an executable file"
done
export GPX2FIX=$bin/gpx2fix FIXFILTER=$bin/fixfilter FENCERULE=$bin/fencerule FIXSIM=$bin/fixsim \
    VISITS=$bin/visits FIXPLOT=$bin/fixplot FIXSTATS=$bin/fixstats

# --- one benchmark ----------------------------------------------------------------------------
size() { # NAME: the environment for its script
    local runs=${RUNS:-3} own=SIZE_$1
    if [[ -n ${!own:-} ]]; then
        echo "${!own}"
        return
    fi
    if [[ $FULL == 1 ]]; then
        [[ -n ${RUNS:-} ]] && echo "RUNS=$RUNS"
        return
    fi
    case $1 in
    gpx2fix) echo "N=200000 RUNS=$runs" ;;
    nmea) echo "N=100000 RUNS=$runs" ;;
    fit) echo "N=200000 RUNS=$runs SDK_RUNS=1" ;;
    takeout) echo "MIB=100 RUNS=$runs" ;;
    padding) echo "MB=300 RUNS=$runs" ;;
    fixfilter | fencerule) echo "N=1000000 RUNS=$runs" ;;
    fixplot) echo "N=1000000 RUNS=2" ;;
    visits) echo "DAYS=30 RUNS=2" ;;
    startup) echo "RUNS=200" ;;
    bulk) echo "N=300 RUNS=2 SPARK=0" ;;
    esac
}

run_pbench() {
    local scratch=${BUILD_DIR:-$root/.build}-pbench
    # SwiftPM keeps its plan of a path dependency's sources in the scratch path and does not
    # always see a file added to FixKit since (FenceEngine+Candidates.swift was not, and the
    # build failed on the names it holds): a failed build is tried once more from scratch.
    { swift build -c release --package-path "$here/pbench" --scratch-path "$scratch" ||
        { echo "== pbench: the build failed; once more with a fresh $scratch" && rm -rf "$scratch" &&
            swift build -c release --package-path "$here/pbench" --scratch-path "$scratch"; }; } &&
        "$scratch/release/pbench" | tee "$out/pbench-summary.txt"
}

started=$(date +%s)
start_summary "$out/all-summary.txt"
say "== bench/all.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
say "binaries: $bin ($("$GPX2FIX" --version 2>&1 | head -1)); $(if ldd "$GPX2FIX" 2>/dev/null | grep -q libswiftCore; then echo "Swift runtime linked dynamically"; else echo "Swift runtime linked statically"; fi)"
failed=()
for name in "${wanted[@]}"; do
    env=$(size "$name")
    log=$out/all-$name.log
    t0=$(date +%s)
    echo "== $name${env:+ ($env)}: output in $log" >&2
    if [[ $name == pbench ]]; then
        run_pbench >"$log" 2>&1 && status=0 || status=$?
    else
        # shellcheck disable=SC2086 # $env is words of VAR=value
        env $env bash "$here/$name.sh" >"$log" 2>&1 && status=0 || status=$?
    fi
    t1=$(date +%s)
    if ((status == 0)); then
        say "$(printf '  %-10s %5d s  %s' "$name" $((t1 - t0)) "$env")"
    else
        failed+=("$name")
        say "$(printf '  %-10s %5d s  %s  FAILED (exit %d; the end of %s:)' "$name" $((t1 - t0)) "$env" "$status" "$log")"
        tail -5 "$log" | sed 's/^/      /' | tee -a "$summary"
    fi
done
total=$(($(date +%s) - started))
say "total: $((total / 60)) min $((total % 60)) s   (target: under 30 minutes)   $( ((total < 1800)) && echo ok || echo OVER)"

title="$(date -u +%Y-%m-%d), bench/all.sh in $((total / 60)) min on $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') at the end"
if [[ $WRITE == 0 ]]; then
    python3 "$here/figures.py" --since "$started" --title "$title" --dry-run "$here/README.md"
else
    python3 "$here/figures.py" --since "$started" --title "$title" "$here/README.md"
    echo "== bench/README.md: figures table rewritten" >&2
fi
((${#failed[@]} == 0)) || die "failed: ${failed[*]} (see their logs in $out)"
