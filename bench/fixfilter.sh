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
#   FIXFILTER  a fixfilter binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  0 to skip counting fixfilter's instructions with valgrind on the N/10 file
#
# Output (bench/out/, git-ignored): the NDJSON files, hyperfine's fixfilter.md and
# fixfilter.json, the callgrind.fixfilter.out profile, and fixfilter-summary.txt with
# everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
N=${N:-1000000}
RUNS=${RUNS:-5}
mkdir -p "$out"

die() { echo "fixfilter.sh: $*" >&2; exit 1; }
[[ $N =~ ^[0-9]+$ && $N -ge 10 ]] || die "N must be a whole number of fixes, at least 10 (got '$N')"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 2 ]] || die "RUNS must be a whole number, at least 2 (got '$RUNS')"
command -v python3 >/dev/null || die "python3 is needed to generate the fixes, run the Python peer and compute the ratios"
command -v hyperfine >/dev/null ||
    die "hyperfine is not installed: it times the commands (apt-get install hyperfine, brew install hyperfine, or cargo install hyperfine)"
have_jq=1
if ! command -v jq >/dev/null; then
    have_jq=0
    echo "fixfilter.sh: jq is not installed (apt-get install jq, brew install jq): it is left out of the comparison" >&2
fi
have_time=1
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    have_time=0
    echo "fixfilter.sh: GNU time (/usr/bin/time -v) is not available (apt-get install time): peak memory is not measured" >&2
fi

# --- fixfilter --------------------------------------------------------------------------------
if [[ -n ${FIXFILTER:-} ]]; then
    fixfilter=$FIXFILTER
    [[ -x $fixfilter ]] || die "FIXFILTER=$fixfilter is not an executable file"
else
    command -v swift >/dev/null || die "swift is not installed: set FIXFILTER to a fixfilter binary"
    build_dir=${BUILD_DIR:-$root/.build}
    echo "== swift build -c release --product fixfilter --scratch-path $build_dir" >&2
    (cd "$root" && swift build -c release --product fixfilter --scratch-path "$build_dir" >&2) ||
        die "the release build failed"
    fixfilter="$(cd "$root" && swift build -c release --scratch-path "$build_dir" --show-bin-path)/fixfilter"
fi

# --- input files ------------------------------------------------------------------------------
ndjson_for() { # the file of $1 fixes: big.ndjson for the default size
    if [[ $1 == 1000000 ]]; then echo "$out/big.ndjson"; else echo "$out/big-$1.ndjson"; fi
}
make_ndjson() {
    local f
    f=$(ndjson_for "$1")
    if [[ ! -s $f ]]; then
        echo "== generating $f ($1 fixes)" >&2
        python3 "$here/gen_fixes.py" --fixes "$1" "$f.tmp" || die "gen_fixes.py could not write $f"
        mv "$f.tmp" "$f"
    fi
}
small_n=$((N / 10))
big=$(ndjson_for "$N")
small=$(ndjson_for "$small_n")
make_ndjson "$N"
make_ndjson "$small_n"

summary="$out/fixfilter-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f}')" "$1"; }
say "== fixfilter benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "machine:   $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m), $(uname -sr)"
say "input:     $big: $N fixes, $(mib "$(stat -c %s "$big" 2>/dev/null || stat -f %z "$big")") MiB"
say "fixfilter: $fixfilter ($("$fixfilter" --version 2>&1 | head -1))"
((have_jq)) && say "jq:        $(jq --version 2>&1 | head -1)"
say "python:    $(python3 --version 2>&1)"
# What the default rules do to this input: every rule should reject some.
say "rules:     $("$fixfilter" --stats "$big" 2>&1 >/dev/null | sed 's/^fixfilter: //')"
say "           with --course reject: $("$fixfilter" --stats --course reject "$big" 2>&1 >/dev/null | sed 's/^fixfilter: //')"
say ""

# --- time: one hyperfine run, all commands ----------------------------------------------------
q() { printf '%q' "$1"; }
cmd_fixfilter="$(q "$fixfilter") $(q "$big") > /dev/null"
# The same rule as jq and Python, the others off: the same work, the same ~99% of lines out.
cmd_hacc_only="$(q "$fixfilter") --max-age off --max-speed off --course keep --min-move off $(q "$big") > /dev/null"
cmd_jq="jq -c 'select(.hacc < 100)' $(q "$big") > /dev/null"
cmd_python="python3 $(q "$here/py_hacc_filter.py") $(q "$big") > /dev/null"
cmd_cat="cat $(q "$big") > /dev/null"
args=(--warmup 1 --runs "$RUNS"
    --export-markdown "$out/fixfilter.md" --export-json "$out/fixfilter.json"
    -n fixfilter "$cmd_fixfilter"
    -n "fixfilter hacc only" "$cmd_hacc_only"
    -n python "$cmd_python"
    -n cat "$cmd_cat")
((have_jq)) && args+=(-n jq "$cmd_jq")
echo "== hyperfine (warm-up 1, $RUNS runs each)" >&2
hyperfine "${args[@]}" >&2

python3 - "$out/fixfilter.json" "$N" <<'EOF' | tee -a "$summary"
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
print("median wall time (min-max), user + system CPU")
for name, r in results.items():
    print(f"  {name:<20} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
          f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")
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
# On a shared machine wall time also counts waiting for a core; CPU time (user + system,
# hyperfine's means) does not, so it is shown as a check on the wall-time ratios.
cpu = {name: r["user"] + r["system"] for name, r in results.items()}
fastest = {name: min(r["times"]) for name, r in results.items()}
others = [name for name in ("python", "jq") if name in cpu]
print("  CPU time (user + sys, means): "
      + ", ".join(f"{name} / fixfilter = {cpu[name] / cpu['fixfilter']:.1f}x" for name in others))
print("  fastest runs:                 "
      + ", ".join(f"{name} / fixfilter = {fastest[name] / fastest['fixfilter']:.1f}x" for name in others))
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    peak_kb=0
    peak() { # label, then the command: prints its peak RSS in MiB, leaves it in kB in peak_kb
        local label=$1
        shift
        peak_kb=$( (/usr/bin/time -v "$@" >/dev/null) 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): *//p' | tail -1)
        [[ -n $peak_kb ]] || peak_kb=0
        say "$(printf '  %-36s %8s MiB' "$label" "$(python3 -c "print(f'{$peak_kb / 1024:.1f}')")")"
    }
    say "peak memory (maximum resident set size, /usr/bin/time -v)"
    peak "fixfilter ($N fixes)" "$fixfilter" "$big"
    f_kb=$peak_kb
    peak "fixfilter ($small_n fixes)" "$fixfilter" "$small"
    s_kb=$peak_kb
    peak "python ($N fixes)" python3 "$here/py_hacc_filter.py" "$big"
    ((have_jq)) && peak "jq ($N fixes)" jq -c 'select(.hacc < 100)' "$big"
    python3 - "$f_kb" "$s_kb" <<'EOF' | tee -a "$summary"
import sys
big, small = (int(v) / 1024 for v in sys.argv[1:3])
print(f"  fixfilter peak {big:.1f} MiB at N vs {small:.1f} MiB at N/10 (growth {big - small:+.1f} MiB)   "
      + ("ok: constant" if big - small < 2 else "GROWS with the input"))
EOF
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if [[ ${CALLGRIND:-1} != 0 ]] && command -v valgrind >/dev/null; then
    say ""
    say "instructions executed on the $small_n-fix file (valgrind --tool=callgrind; CALLGRIND=0 skips this)"
    f_ir=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.fixfilter.out" "$fixfilter" "$small" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *//p' | tail -1)
    python3 - "$f_ir" "$small_n" "$(stat -c %s "$small" 2>/dev/null || stat -f %z "$small")" <<'EOF' | tee -a "$summary"
import sys
f, n, size = (int(v) for v in sys.argv[1:4])
print(f"  fixfilter  {f / 1e6:8.1f} M  ({f / n:,.0f} a fix, {f / size:.1f} a byte; callgrind_annotate out/callgrind.fixfilter.out shows where)")
EOF
fi
echo "== written: $out/fixfilter.md, $out/fixfilter.json, $summary" >&2
