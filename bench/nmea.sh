#!/usr/bin/env bash
# Benchmark gpx2fix on NMEA 0183 (NMEA -> NDJSON) against GPSBabel (the peer users know) and
# cat (the floor: reading the bytes), on a generated log of N epochs (RMC + GGA + GST each).
#
#   bench/nmea.sh                         # 1,000,000 epochs, release build in .build
#   N=200000 RUNS=3 bench/nmea.sh
#   BUILD_DIR=/tmp/bench-build bench/nmea.sh
#   GPX2FIX=/path/to/gpx2fix bench/nmea.sh
#   N=100000 PYNMEA2=1 bench/nmea.sh      # also a pynmea2 loop (slow: about 85 s a million)
#
# GPSBabel is timed twice: as usually run (TZ unset) and with TZ=UTC; see below.
#
# Environment:
#   N          epochs in the big log (default 1000000); a log N/10 epochs long is also made,
#              to show that gpx2fix's peak memory does not grow with the input
#   RUNS       timed runs of each command, after one warm-up run (default 5)
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   PYNMEA2    1 to add bench/py_nmea.py, a pynmea2 loop, to the comparison (pip install pynmea2)
#   CALLGRIND  0 to skip counting gpx2fix's instructions with valgrind on the N/10 log
#
# Output (bench/out/, git-ignored): the logs, hyperfine's nmea.md and nmea.json, the
# callgrind.nmea.out profile, and nmea-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
N=${N:-1000000}
RUNS=${RUNS:-5}
PYNMEA2=${PYNMEA2:-0}
mkdir -p "$out"

die() { echo "nmea.sh: $*" >&2; exit 1; }
[[ $N =~ ^[0-9]+$ && $N -ge 10 ]] || die "N must be a whole number of epochs, at least 10 (got '$N')"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 2 ]] || die "RUNS must be a whole number, at least 2 (got '$RUNS')"
command -v python3 >/dev/null || die "python3 is needed to generate the NMEA log and compute the ratios"
command -v hyperfine >/dev/null ||
    die "hyperfine is not installed: it times the commands (apt-get install hyperfine, brew install hyperfine, or cargo install hyperfine)"
have_gpsbabel=1
if ! command -v gpsbabel >/dev/null; then
    have_gpsbabel=0
    echo "nmea.sh: gpsbabel is not installed (apt-get install gpsbabel, brew install gpsbabel): it is left out of the comparison" >&2
fi
if [[ $PYNMEA2 != 0 ]]; then
    python3 -c 'import pynmea2' 2>/dev/null || die "PYNMEA2=1 but pynmea2 is not installed (pip install pynmea2)"
fi
have_time=1
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    have_time=0
    echo "nmea.sh: GNU time (/usr/bin/time -v) is not available (apt-get install time): peak memory is not measured" >&2
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
nmea_for() { # the log of $1 epochs: big.nmea for the default size
    if [[ $1 == 1000000 ]]; then echo "$out/big.nmea"; else echo "$out/big-$1.nmea"; fi
}
make_nmea() {
    local f
    f=$(nmea_for "$1")
    if [[ ! -s $f ]]; then
        echo "== generating $f ($1 epochs)" >&2
        python3 "$here/gen_nmea.py" --epochs "$1" "$f.tmp" || die "gen_nmea.py could not write $f"
        mv "$f.tmp" "$f"
    fi
}
small_n=$((N / 10))
big=$(nmea_for "$N")
small=$(nmea_for "$small_n")
make_nmea "$N"
make_nmea "$small_n"

summary="$out/nmea-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f}')" "$1"; }
say "== gpx2fix NMEA benchmark, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "machine:  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m), $(uname -sr)"
say "input:    $big: $N epochs (RMC + GGA + GST), $(mib "$(stat -c %s "$big" 2>/dev/null || stat -f %z "$big")") MiB"
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
((have_gpsbabel)) && say "gpsbabel: $(gpsbabel -V 2>&1 | grep -m1 .)"
[[ $PYNMEA2 != 0 ]] && say "pynmea2:  $(python3 -c 'import sys, pynmea2; print(pynmea2.__version__, "on Python", sys.version.split()[0])')"
say ""

# --- time: one hyperfine run, all commands ----------------------------------------------------
q() { printf '%q' "$1"; }
cmd_gpx2fix="$(q "$gpx2fix") $(q "$big") > /dev/null"
cmd_cat="cat $(q "$big") > /dev/null"
# Without -t GPSBabel reads the NMEA as waypoints and writes nothing to unicsv.
cmd_gpsbabel="gpsbabel -t -i nmea -f $(q "$big") -o unicsv -F /dev/null"
# With TZ unset (as it usually is), glibc's localtime() stats /etc/localtime at every call,
# and GPSBabel (Qt's date code) calls it about seven times a sentence: most of its time is
# spent in those newfstatat calls (system time). With TZ set it makes none, so GPSBabel is
# timed both ways; TZ is unset for every other command.
unset TZ
cmd_gpsbabel_tz="TZ=UTC $cmd_gpsbabel"
cmd_pynmea2="python3 $(q "$here/py_nmea.py") $(q "$big") > /dev/null"
args=(--warmup 1 --runs "$RUNS"
    --export-markdown "$out/nmea.md" --export-json "$out/nmea.json"
    -n gpx2fix "$cmd_gpx2fix"
    -n cat "$cmd_cat")
((have_gpsbabel)) && args+=(-n gpsbabel "$cmd_gpsbabel" -n "gpsbabel TZ=UTC" "$cmd_gpsbabel_tz")
[[ $PYNMEA2 != 0 ]] && args+=(-n pynmea2 "$cmd_pynmea2")
echo "== hyperfine (warm-up 1, $RUNS runs each)" >&2
hyperfine "${args[@]}" >&2

python3 - "$out/nmea.json" "$N" <<'EOF' | tee -a "$summary"
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
print("median wall time (min-max), user + system CPU")
for name, r in results.items():
    print(f"  {name:<15} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
          f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")
g = results["gpx2fix"]["median"]
print(f"  gpx2fix: {n / g / 1e6:.2f} million epochs a second")
print("ratios (from the medians)")
print(f"  gpx2fix / cat      = {g / results['cat']['median']:.1f}x   (the floor: reading the bytes)")
if "gpsbabel" in results:
    b = results["gpsbabel"]["median"]
    print(f"  gpsbabel / gpx2fix = {b / g:.1f}x   (target: at least 25x)   " + ("ok" if b / g >= 25 else "MISSED"))
    bt = results["gpsbabel TZ=UTC"]["median"]
    print(f"  gpsbabel TZ=UTC / gpx2fix = {bt / g:.1f}x   (target: at least 25x)   " + ("ok" if bt / g >= 25 else "MISSED"))
else:
    print("  gpsbabel / gpx2fix = n/a (gpsbabel not installed)")
if "pynmea2" in results:
    print(f"  pynmea2 / gpx2fix  = {results['pynmea2']['median'] / g:.1f}x")
# On a shared machine wall time also counts waiting for a core; CPU time (user + system,
# hyperfine's means) does not, so it is shown as a check on the wall-time ratios.
cpu = {name: r["user"] + r["system"] for name, r in results.items()}
others = [name for name in ("gpsbabel", "gpsbabel TZ=UTC", "pynmea2") if name in cpu]
if others:
    print("  CPU time (user + sys, means): "
          + ", ".join(f"{name} / gpx2fix = {cpu[name] / cpu['gpx2fix']:.1f}x" for name in others))
    fastest = {name: min(r["times"]) for name, r in results.items()}
    print("  fastest runs:                 "
          + ", ".join(f"{name} / gpx2fix = {fastest[name] / fastest['gpx2fix']:.1f}x" for name in others))
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
    peak "gpx2fix ($N epochs)" "$gpx2fix" "$big"
    g_kb=$peak_kb
    peak "gpx2fix ($small_n epochs)" "$gpx2fix" "$small"
    s_kb=$peak_kb
    if ((have_gpsbabel)); then
        peak "gpsbabel ($N epochs)" gpsbabel -t -i nmea -f "$big" -o unicsv -F /dev/null
        peak "gpsbabel ($small_n epochs)" gpsbabel -t -i nmea -f "$small" -o unicsv -F /dev/null
    fi
    [[ $PYNMEA2 != 0 ]] && peak "pynmea2 ($N epochs)" python3 "$here/py_nmea.py" "$big"
    python3 - "$g_kb" "$s_kb" <<'EOF' | tee -a "$summary"
import sys
big, small = (int(v) / 1024 for v in sys.argv[1:3])
print(f"  gpx2fix peak {big:.1f} MiB at N vs {small:.1f} MiB at N/10 (growth {big - small:+.1f} MiB)   "
      + ("ok: constant" if big - small < 2 else "GROWS with the input"))
EOF
fi
# --- instructions: a count that a busy machine does not disturb ---------------------------------
if [[ ${CALLGRIND:-1} != 0 ]] && command -v valgrind >/dev/null; then
    say ""
    say "instructions executed on the $small_n-epoch log (valgrind --tool=callgrind; CALLGRIND=0 skips this)"
    g_ir=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.nmea.out" "$gpx2fix" "$small" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *//p' | tail -1)
    python3 - "$g_ir" "$small_n" "$(stat -c %s "$small" 2>/dev/null || stat -f %z "$small")" <<'EOF' | tee -a "$summary"
import sys
g, n, size = (int(v) for v in sys.argv[1:4])
print(f"  gpx2fix  {g / 1e6:8.1f} M  ({g / n:,.0f} an epoch, {g / size:.1f} a byte; callgrind_annotate out/callgrind.nmea.out shows where)")
EOF
fi
echo "== written: $out/nmea.md, $out/nmea.json, $summary" >&2
