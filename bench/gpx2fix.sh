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
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  0 to skip counting instructions with valgrind on the N/10 file (about a minute)
#
# Output (bench/out/, git-ignored): the GPX files, hyperfine's gpx2fix.md and gpx2fix.json,
# callgrind.*.out profiles, and summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
N=${N:-1000000}
RUNS=${RUNS:-5}
mkdir -p "$out"

die() { echo "gpx2fix.sh: $*" >&2; exit 1; }
[[ $N =~ ^[0-9]+$ && $N -ge 10 ]] || die "N must be a whole number of points, at least 10 (got '$N')"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 2 ]] || die "RUNS must be a whole number, at least 2 (got '$RUNS')"
command -v python3 >/dev/null || die "python3 is needed to generate the GPX file and compute the ratios"
command -v hyperfine >/dev/null ||
    die "hyperfine is not installed: it times the commands (apt-get install hyperfine, brew install hyperfine, or cargo install hyperfine)"
command -v xmllint >/dev/null ||
    die "xmllint is not installed: it is the floor the ratios are taken against (apt-get install libxml2-utils; macOS has it)"
have_gpsbabel=1
if ! command -v gpsbabel >/dev/null; then
    have_gpsbabel=0
    echo "gpx2fix.sh: gpsbabel is not installed (apt-get install gpsbabel, brew install gpsbabel): it is left out of the comparison" >&2
fi
have_time=1
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    have_time=0
    echo "gpx2fix.sh: GNU time (/usr/bin/time -v) is not available (apt-get install time): peak memory is not measured" >&2
fi

# --- gpx2fix ----------------------------------------------------------------------------------
if [[ -n ${GPX2FIX:-} ]]; then
    gpx2fix=$GPX2FIX
    [[ -x $gpx2fix ]] || die "GPX2FIX=$gpx2fix is not an executable file"
else
    command -v swift >/dev/null || die "swift is not installed: set GPX2FIX to a gpx2fix binary"
    build_dir=${BUILD_DIR:-$root/.build}
    echo "== swift build -c release --product gpx2fix --scratch-path $build_dir" >&2
    (cd "$root" && swift build -c release --product gpx2fix --scratch-path "$build_dir" >&2) ||
        die "the release build failed"
    gpx2fix="$(cd "$root" && swift build -c release --scratch-path "$build_dir" --show-bin-path)/gpx2fix"
fi

# --- input files ------------------------------------------------------------------------------
gpx_for() { # the file of $1 points: big.gpx for the default size
    if [[ $1 == 1000000 ]]; then echo "$out/big.gpx"; else echo "$out/big-$1.gpx"; fi
}
make_gpx() {
    local f
    f=$(gpx_for "$1")
    if [[ ! -s $f ]]; then
        echo "== generating $f ($1 points)" >&2
        python3 "$here/gen_gpx.py" --points "$1" "$f.tmp" || die "gen_gpx.py could not write $f"
        mv "$f.tmp" "$f"
    fi
}
small_n=$((N / 10))
big=$(gpx_for "$N")
small=$(gpx_for "$small_n")
make_gpx "$N"
make_gpx "$small_n"

summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f}')" "$1"; }
say "== gpx2fix benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "machine:  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m), $(uname -sr)"
say "input:    $big: $N points, $(mib "$(stat -c %s "$big" 2>/dev/null || stat -f %z "$big")") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
say "xmllint:  $(xmllint --version 2>&1 | head -1)"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 .)"
say ""

# --- time: one hyperfine run, three commands --------------------------------------------------
q() { printf '%q' "$1"; }
cmd_gpx2fix="$(q "$gpx2fix") $(q "$big") > /dev/null"
cmd_xmllint="xmllint --stream --noout $(q "$big")"
cmd_gpsbabel="gpsbabel -t -i gpx -f $(q "$big") -o unicsv -F /dev/null"
args=(--warmup 1 --runs "$RUNS"
    --export-markdown "$out/gpx2fix.md" --export-json "$out/gpx2fix.json"
    -n gpx2fix "$cmd_gpx2fix"
    -n "xmllint --stream" "$cmd_xmllint")
((have_gpsbabel)) && args+=(-n gpsbabel "$cmd_gpsbabel")
echo "== hyperfine (warm-up 1, $RUNS runs each)" >&2
hyperfine "${args[@]}" >&2

python3 - "$out/gpx2fix.json" <<'EOF' | tee -a "$summary"
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print("median wall time (min-max), user + system CPU")
for name, r in results.items():
    print(f"  {name:<17} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
          f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")
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
# On a shared machine wall time also counts waiting for a core; CPU time (user + system,
# hyperfine's means) does not, so it is shown as a check on the wall-time ratios.
cpu = {name: r["user"] + r["system"] for name, r in results.items()}
line = f"  CPU time (user + sys, means): gpx2fix / xmllint --stream = {cpu['gpx2fix'] / cpu['xmllint --stream']:.2f}x"
if "gpsbabel" in cpu:
    line += f", gpsbabel / gpx2fix = {cpu['gpsbabel'] / cpu['gpx2fix']:.2f}x"
print(line)
gmin, xmin = min(results["gpx2fix"]["times"]), min(results["xmllint --stream"]["times"])
line = f"  fastest runs:                 gpx2fix / xmllint --stream = {gmin / xmin:.2f}x"
if "gpsbabel" in results:
    line += f", gpsbabel / gpx2fix = {min(results['gpsbabel']['times']) / gmin:.2f}x"
print(line)
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
    peak "gpx2fix ($N points)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "xmllint --stream ($N points)" xmllint --stream --noout "$big"
    ((have_gpsbabel)) && peak "gpsbabel ($N points)" gpsbabel -t -i gpx -f "$big" -o unicsv -F /dev/null
    peak "gpx2fix ($small_n points)" "$gpx2fix" "$small"
    s_kb=$peak_kb
    python3 - "$g_kb" "$s_kb" <<'EOF' | tee -a "$summary"
import sys
big, small = (int(v) / 1024 for v in sys.argv[1:3])
print(f"  gpx2fix peak {big:.1f} MiB at N vs {small:.1f} MiB at N/10 (growth {big - small:+.1f} MiB)   "
      + ("ok: under 32 MiB" if max(big, small) < 32 else "MISSED: 32 MiB target"))
EOF
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if [[ ${CALLGRIND:-1} != 0 ]] && command -v valgrind >/dev/null; then
    say ""
    say "instructions executed on the $small_n-point file (valgrind --tool=callgrind; CALLGRIND=0 skips this)"
    instr() { # name, then the command: the count callgrind collected, with its profile kept in out/
        local name=$1
        shift
        valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$name.out" "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : *//p' | tail -1
    }
    g_ir=$(instr gpx2fix "$gpx2fix" "$small")
    x_ir=$(instr xmllint xmllint --stream --noout "$small")
    python3 - "$g_ir" "$x_ir" "$small_n" <<'EOF' | tee -a "$summary"
import sys
g, x, n = (int(v) for v in sys.argv[1:4])
print(f"  gpx2fix           {g / 1e6:8.1f} M  ({g / n:,.0f} a point)")
print(f"  xmllint --stream  {x / 1e6:8.1f} M  ({x / n:,.0f} a point)")
print(f"  gpx2fix / xmllint --stream = {g / x:.2f}x   (callgrind_annotate out/callgrind.gpx2fix.out shows where)")
EOF
fi
echo "== written: $out/gpx2fix.md, $out/gpx2fix.json, $summary" >&2
