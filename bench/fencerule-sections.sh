#!/usr/bin/env bash
# Where fencerule's time goes in the noisy case of issue 11 (N fixes with hacc 2 to 150 m
# against 1,000,000 fences over 100 km, and against one fence): cycle-counter ticks in each
# section of the code, summed over a run, from a copy of the committed sources (HEAD) with
# fencerule-sections.patch applied. Sampling profilers need hardware counters that shared
# virtual machines often lack, and callgrind counts instructions, not the cache misses and
# mispredicted branches that set the pace here: this reads the time-stamp counter (x86-64)
# or the virtual counter (arm64) around each section instead, a few dozen cycles a reading.
#
#   bench/fencerule-sections.sh                  # 1,000,000 fixes, 3 runs of each
#   N=200000 RUNS=5 bench/fencerule-sections.sh
#
# Environment:
#   N          fixes (default 1000000), as bench/fencerule.sh's noisy case (same files)
#   RUNS       runs of each command (default 3); the medians are printed
#   BUILD_DIR  SwiftPM scratch path for the patched build (default /tmp/fencerule-sections)
#
# Sections (ticks summed over the run; the one-fence run's are the floor the million's are
# compared with):
#   process          FenceEngine.process, per fix (all of the below but write and load.*)
#   write            the events written
#   head             process up to the candidates (the fix's Earth-centred point)
#   gather           the candidates: the neighbourhood list's scan, or the index
#   build            neighbourhood lists built (within gather), and of each build:
#   build.enumerate    the cubes around the point listed, build.probe their hash probes,
#   build.scan         their fences tested
#   merge            the candidates merged with the kept states, each evaluated
#   insert           the states a fix adds merged in
#   load.*           the fences file: parse, levels, keys (Earth-centred point and Morton key,
#                    two sincos a fence), radix (the sort), gather (the slots in the index's
#                    order), cubes (runs, radius order, hash tables)
#
# Output: a table of each section's median ticks per fix (load: per fence) for the million
# fences and the one, the difference, and its share of the million's extra (process and
# write above the one fence's). The time-stamp counter ticks at the processor's nominal
# rate (`cpu MHz` in /proc/cpuinfo on a VM), whatever the clock it runs at.
# The patch is kept in step with the sources by hand: the script says so if it no longer
# applies.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-3}
check_whole_number N 10 fixes
check_whole_number RUNS 1
require_python3 "to generate the inputs and print the table"
command -v swift >/dev/null || die "swift is not installed: the patched sources are built here"
command -v git >/dev/null || die "git is needed to copy the sources and apply the patch"

noisy_fence_inputs "$N"

build_dir=${BUILD_DIR:-/tmp/fencerule-sections}
src=$build_dir/src
rm -rf "$src"
mkdir -p "$src"
git -C "$root" archive --format=tar HEAD | tar -x -C "$src"
# A repository of its own, so that the patch's paths are the copy's wherever BUILD_DIR is (in
# another repository, `git apply` would take them from that one's top).
git init -q "$src"
git -C "$src" apply "$here/fencerule-sections.patch" ||
    die "fencerule-sections.patch no longer applies to HEAD: bring it up to date with the sources"
echo "== swift build -c release --product fencerule (patched copy of HEAD in $src)" >&2
swift build -c release --product fencerule --package-path "$src" --scratch-path "$build_dir/build" >&2 ||
    die "the patched build failed"
bin=$(swift build -c release --package-path "$src" --scratch-path "$build_dir/build" --show-bin-path)/fencerule

runs=$build_dir/runs.txt
: >"$runs"
for ((r = 1; r <= RUNS; r++)); do
    for case in one million; do
        f=$noisy_one
        [[ $case == million ]] && f=$noisy_fences
        "$bin" --fences "$f" "$noisy_fixes" 2>&1 >/dev/null | grep '^sections ' | sed "s/^sections/$case/" >>"$runs"
    done
done

python3 - "$runs" "$N" <<'PY'
import statistics, sys
lines = open(sys.argv[1]).read().split("\n")
n = int(sys.argv[2])
runs = {"one": [], "million": []}
for line in lines:
    words = line.split()
    if not words or words[0] not in runs:
        continue
    case = words[0]
    values = dict(zip(words[1::2], map(int, words[2::2])))
    runs[case].append(values)
names = [k for k in runs["million"][0] if k != "builds"]
med = {c: {k: statistics.median(r[k] for r in runs[c]) for k in names + ["builds"]} for c in runs}
print(f"fencerule sections, {n:,} noisy fixes (hacc 2-150 m): medians of {len(runs['one'])} runs, ticks a fix")
print(f"(load.*: ticks a fence of the million); lists built: {med['million']['builds']:,.0f} with the million, {med['one']['builds']:,.0f} with one")
print(f"{'section':18s} {'1M fences':>10s} {'1 fence':>10s} {'extra':>10s} {'of the extra':>13s}")
extra_total = med["million"]["process"] + med["million"]["write"] - med["one"]["process"] - med["one"]["write"]
for k in names:
    load = k.startswith("load.")
    per = 1_000_000 if load else n
    a, b = med["million"][k] / per, med["one"][k] / per
    # The build's parts are within it, and the build within gather: indented, not summed.
    share = "" if load or k == "process" else f"{100 * (med['million'][k] - med['one'][k]) / extra_total:5.1f}%"
    label = ("    " if k.startswith("build.") else "  " if k == "build" else "") + k
    print(f"{label:18s} {a:10.1f} {b:10.1f} {a - b:10.1f} {share:>13s}")
load = sum(med["million"][k] for k in names if k.startswith("load."))
print(f"load in all: {load / 1e6:,.1f} M ticks; process and write above the one fence: {extra_total / 1e6:,.1f} M ticks")
PY
