#!/usr/bin/env bash
# Benchmark fencerule: N fixes against 1, 1,000 and 1,000,000 fences (target: the
# 1,000,000-fence run within 2x of the 1-fence run), with the time to load each fences file
# alone and each run's peak memory.
#
#   bench/fencerule.sh                         # release build in .build, 1,000,000 fixes
#   BUILD_DIR=/tmp/bench-build bench/fencerule.sh
#   FENCERULE=/path/to/fencerule FIXSIM=/path/to/fixsim bench/fencerule.sh
#   N=200000 RUNS=3 bench/fencerule.sh
#
# Environment:
#   N          fixes (default 1000000)
#   RUNS       timed runs of each command, after one warm-up run (default 5)
#   FENCERULE  a fencerule binary to use; with FIXSIM as well, no build is done
#   FIXSIM     a fixsim binary to use
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  1 to count instructions with valgrind for 1 and 1,000,000 fences on N/10 fixes
#              (a few minutes; default 0)
#
# The fences (bench/gen_fences.py): a square of 1000 km around 47.0 N, 8.0 E, one fence at
# its centre (radius 100 m) and the others spread uniformly, radius 50 to 200 m. The fixes
# (fixsim): one walk at 3 m/s, 20 fixes a second, 8 m of noise, east along the 47th parallel
# from 75 km west of the centre, through the centre fence, cut at N fixes (1,000,000 fixes are
# 150 km, and cross about 36 of the million fences).
#
# The load alone is `fencerule --fences F /dev/null`: no fixes, the same as `< /dev/null`.
#
# Output (bench/out/, git-ignored): fences-{1,1000,1000000}.json, fences-fixes[-N].ndjson,
# hyperfine's fencerule.{md,json} and fencerule-load.{md,json}, and fencerule-summary.txt
# with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
N=${N:-1000000}
RUNS=${RUNS:-5}
COUNTS=(1 1000 1000000)
mkdir -p "$out"

die() { echo "fencerule.sh: $*" >&2; exit 1; }
[[ $N =~ ^[0-9]+$ && $N -ge 10 ]] || die "N must be a whole number of fixes, at least 10 (got '$N')"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 2 ]] || die "RUNS must be a whole number, at least 2 (got '$RUNS')"
command -v python3 >/dev/null || die "python3 is needed to generate the fences and compute the ratios"
command -v hyperfine >/dev/null ||
    die "hyperfine is not installed: it times the commands (apt-get install hyperfine, brew install hyperfine, or cargo install hyperfine)"
have_time=1
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    have_time=0
    echo "fencerule.sh: GNU time (/usr/bin/time -v) is not available (apt-get install time): peak memory is not measured" >&2
fi

# --- fencerule and fixsim -------------------------------------------------------------------------
if [[ -n ${FENCERULE:-} && -n ${FIXSIM:-} ]]; then
    fencerule=$FENCERULE
    fixsim=$FIXSIM
else
    command -v swift >/dev/null || die "swift is not installed: set FENCERULE and FIXSIM to binaries"
    build_dir=${BUILD_DIR:-$root/.build}
    for product in fencerule fixsim; do
        echo "== swift build -c release --product $product --scratch-path $build_dir" >&2
        (cd "$root" && swift build -c release --product "$product" --scratch-path "$build_dir" >&2) ||
            die "the release build failed"
    done
    bin="$(cd "$root" && swift build -c release --scratch-path "$build_dir" --show-bin-path)"
    fencerule=${FENCERULE:-$bin/fencerule}
    fixsim=${FIXSIM:-$bin/fixsim}
fi
[[ -x $fencerule ]] || die "$fencerule is not an executable file"
[[ -x $fixsim ]] || die "$fixsim is not an executable file"

# --- input files ------------------------------------------------------------------------------
fences_for() { echo "$out/fences-$1.json"; }
for n in "${COUNTS[@]}"; do
    f=$(fences_for "$n")
    if [[ ! -s $f ]]; then
        echo "== generating $f ($n fences)" >&2
        python3 "$here/gen_fences.py" --count "$n" "$f.tmp" || die "gen_fences.py could not write $f"
        mv "$f.tmp" "$f"
    fi
done
fixes_for() { # the file of $1 fixes: fences-fixes.ndjson for the default size
    if [[ $1 == 1000000 ]]; then echo "$out/fences-fixes.ndjson"; else echo "$out/fences-fixes-$1.ndjson"; fi
}
make_fixes() {
    local f n=$1 metres
    f=$(fixes_for "$n")
    if [[ ! -s $f ]]; then
        echo "== generating $f ($n fixes with fixsim)" >&2
        # 0.15 m a fix at 3 m/s and 20 Hz; a route a little longer than needed, cut at n fixes.
        metres=$(((n * 15 + 99) / 100 + 10))
        { "$fixsim" --origin 47.0,8.0 --route "-75000,0:$((metres - 75000)),0" --rate 20 --speed 3 \
            --noise 8 || true; } | head -n "$n" >"$f.tmp"
        [[ $(wc -l <"$f.tmp") -eq $n ]] || die "fixsim did not write $n fixes"
        mv "$f.tmp" "$f"
    fi
}
small_n=$((N / 10))
fixes=$(fixes_for "$N")
small=$(fixes_for "$small_n")
make_fixes "$N"

summary="$out/fencerule-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
size_mib() { python3 -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:.1f}')" "$1"; }

say "== fencerule benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "machine:   $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m), $(uname -sr)"
say "fixes:     $fixes: $N fixes, $(size_mib "$fixes") MiB"
for n in "${COUNTS[@]}"; do
    say "fences:    $(fences_for "$n"): $n, $(size_mib "$(fences_for "$n")") MiB"
done
say "fencerule: $fencerule ($("$fencerule" --version 2>&1 | head -1))"
say "events:    $(for n in "${COUNTS[@]}"; do printf '%s fences: %s  ' "$n" "$("$fencerule" --fences "$(fences_for "$n")" "$fixes" | wc -l)"; done)"
say ""

# --- time: one hyperfine run over the three fence counts, then the loads alone ----------------
q() { printf '%q' "$1"; }
args=(--warmup 1 --runs "$RUNS" --export-markdown "$out/fencerule.md" --export-json "$out/fencerule.json")
load_args=(-N --warmup 1 --runs "$RUNS" --export-markdown "$out/fencerule-load.md" --export-json "$out/fencerule-load.json")
for n in "${COUNTS[@]}"; do
    args+=(-n "$n fences" "$(q "$fencerule") --fences $(q "$(fences_for "$n")") $(q "$fixes") > /dev/null")
    # no shell (-N): the small files load in a few milliseconds, too near a shell's start-up
    load_args+=(-n "$n fences" "$(q "$fencerule") --fences $(q "$(fences_for "$n")") /dev/null")
done
echo "== hyperfine: $N fixes (warm-up 1, $RUNS runs each)" >&2
hyperfine "${args[@]}" >&2
echo "== hyperfine: loading the fences alone (warm-up 1, $RUNS runs each)" >&2
hyperfine "${load_args[@]}" >&2

python3 - "$out/fencerule.json" "$out/fencerule-load.json" "$N" <<'EOF' | tee -a "$summary"
import json, sys
full = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
load = {r["command"]: r for r in json.load(open(sys.argv[2]))["results"]}
n = int(sys.argv[3])
print(f"median wall time (min-max), user + system CPU; {n:,} fixes")
for name, r in full.items():
    print(f"  {name:<17} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
          f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")
print("loading the fences alone (no fixes)")
for name, r in load.items():
    print(f"  {name:<17} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
          f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")
print("fixes alone (full median - load median)")
for name in full:
    rest = full[name]["median"] - load[name]["median"]
    print(f"  {name:<17} {rest:7.3f} s  ({rest / n * 1e9:.0f} ns a fix)")
one, big = "1 fences", "1000000 fences"
r = full[big]["median"] / full[one]["median"]
print("ratio 1,000,000 fences / 1 fence")
print(f"  medians      = {r:.2f}x   (target: at most 2x)   " + ("ok" if r <= 2 else "MISSED"))
cpu = {k: v["user"] + v["system"] for k, v in full.items()}
print(f"  CPU time (user + sys, means) = {cpu[big] / cpu[one]:.2f}x")
print(f"  fastest runs = {min(full[big]['times']) / min(full[one]['times']):.2f}x")
rest = {k: full[k]["median"] - load[k]["median"] for k in full}
print(f"  without loading (full - load medians) = {rest[big] / rest[one]:.2f}x")
print(f"  1,000 fences / 1 fence, medians = {full['1000 fences']['median'] / full[one]['median']:.2f}x")
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    peak() { # label, then the command: prints its peak RSS in MiB
        local label=$1 kb
        shift
        kb=$( (/usr/bin/time -v "$@" >/dev/null) 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): *//p' | tail -1)
        say "$(printf '  %-36s %8s MiB' "$label" "$(python3 -c "print(f'{${kb:-0} / 1024:.1f}')")")"
    }
    say "peak memory (maximum resident set size, /usr/bin/time -v)"
    for n in "${COUNTS[@]}"; do
        peak "$n fences, $N fixes" "$fencerule" --fences "$(fences_for "$n")" "$fixes"
        peak "$n fences, no fixes" "$fencerule" --fences "$(fences_for "$n")" /dev/null
    done
fi

# --- instructions: a count that a busy machine does not disturb ---------------------------------
if [[ ${CALLGRIND:-0} != 0 ]] && command -v valgrind >/dev/null; then
    make_fixes "$small_n"
    say ""
    say "instructions executed, $small_n fixes (valgrind --tool=callgrind; profiles in out/callgrind.fencerule-*.out)"
    instr() { # name, then the command: the count callgrind collected, with its profile kept in out/
        local name=$1
        shift
        valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$name.out" "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : *//p' | tail -1
    }
    counts=()
    for n in 1 1000000; do
        counts+=("$(instr "fencerule-$n" "$fencerule" --fences "$(fences_for "$n")" "$small")")
        counts+=("$(instr "fencerule-load-$n" "$fencerule" --fences "$(fences_for "$n")" /dev/null)")
    done
    python3 - "$small_n" "${counts[@]}" <<'EOF' | tee -a "$summary"
import sys
n, one, one_load, big, big_load = (int(v) for v in sys.argv[1:6])
print(f"  1 fence          {one / 1e6:9.1f} M  (load {one_load / 1e6:.1f} M; fixes {(one - one_load) / n:,.0f} a fix)")
print(f"  1,000,000 fences {big / 1e6:9.1f} M  (load {big_load / 1e6:.1f} M; fixes {(big - big_load) / n:,.0f} a fix)")
print(f"  fixes alone, 1,000,000 fences / 1 fence = {(big - big_load) / (one - one_load):.2f}x")
EOF
fi
echo "== written: $out/fencerule.md, fencerule.json, fencerule-load.md, fencerule-load.json, $summary" >&2
