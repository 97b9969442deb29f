# Shared code of the benchmark scripts (gpx2fix.sh, nmea.sh, fixfilter.sh, fencerule.sh,
# visits.sh); sourced, never run. A script sets `set -euo pipefail` and `here` (its own
# folder, which holds this file), then sources it:
#
#   here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   . "$here/lib.sh"
#
# Sourcing it sets these variables and makes $out:
#   me          the script's file name (gpx2fix.sh, ...), the prefix of its messages
#   root        the repository (the folder above $here)
#   out         $here/out, where inputs, hyperfine's exports and the summary go (git-ignored)
#   peak_width  width of the label column of peak (default 36)
#
# Functions, with the variables each reads besides its arguments:
#
# Checks
#   die MESSAGE...                  prints "$me: MESSAGE" on stderr and exits 1.      reads me
#   check_whole_number VAR MIN [UNIT]
#                                   dies unless $VAR is a whole number >= MIN ("VAR must be a
#                                   whole number[ of UNIT], at least MIN (got '...')")
#   require_tool COMMAND MESSAGE    dies with MESSAGE unless COMMAND is on PATH
#   require_python3 PURPOSE         dies with "python3 is needed PURPOSE" without python3
#   require_hyperfine               dies, with how to install it, without hyperfine
#   optional_tool VAR COMMAND INSTALL
#                                   sets VAR to 1 if COMMAND is on PATH, else to 0 with a warning
#                                   that it is left out of the comparison (INSTALL: how to get it)
#   check_gnu_time                  sets have_time to 1 if /usr/bin/time -v works, else to 0
#                                   with a warning that peak memory is not measured
#
# The binaries under test
#   binaries_from_env_or_build SWIFT_HINT ENVVAR PRODUCT [ENVVAR PRODUCT]...
#       sets the variable named PRODUCT (e.g. gpx2fix) to each binary: to $ENVVAR when every
#       ENVVAR is set (nothing built); otherwise builds every PRODUCT with
#       `swift build -c release` into ${BUILD_DIR:-$root/.build} and takes $ENVVAR where set,
#       else the built one. Dies if one is not executable, or, without swift, with
#       "swift is not installed: SWIFT_HINT".                      reads BUILD_DIR, root
#
# Inputs
#   input_for NAME.EXT COUNT        prints $out/NAME.EXT for the default size (1000000), else
#                                   $out/NAME-COUNT.EXT.                           reads out
#   generate FILE WHAT SCRIPT ARG...
#                                   unless FILE is there and not empty: runs
#                                   `python3 $here/SCRIPT ARG... FILE.tmp` and renames the result
#                                   to FILE ("== generating FILE (WHAT)" on stderr).
#                                                                          reads here, me
#   make_big_and_small NAME.EXT UNIT SCRIPT OPTION
#                                   generates the input of $N UNIT and the one of N/10 with
#                                   `SCRIPT OPTION COUNT FILE` and sets small_n, big and small
#                                   (their counts and paths).       reads N, out, here, me
#
# The summary: everything printed after the build, also written to $summary
#   start_summary FILE              sets summary to FILE and empties it
#   say TEXT...                     prints TEXT and appends it to $summary.      reads summary
#   say_header TITLE WIDTH          says "== TITLE, <UTC time>" and the machine line, its label
#                                   "machine:" padded to WIDTH columns.          reads summary
#   file_mib FILE                   prints FILE's size in MiB, one decimal
#   file_bytes FILE                 prints FILE's size in bytes
#   q STRING                        prints STRING quoted for the shell (printf %q)
#
# Time (hyperfine)
#   run_hyperfine NAME [WHAT] -- HYPERFINE_ARG...
#                                   runs hyperfine with $WARMUP warm-up runs (default 1) and
#                                   $RUNS runs a command,
#                                   exporting $out/NAME.md and $out/NAME.json, its output on
#                                   stderr after "== hyperfine[: WHAT] (warm-up 1, $RUNS runs
#                                   each)".                                 reads RUNS, out
#   summarize ARG... <<'EOF'        runs the Python program on stdin with ARG... as sys.argv[1:]
#                                   and the helpers below defined, says its output.
#                                                                            reads summary
#     Python helpers (over hyperfine's JSON exports):
#       load_results(path)          {command name: result} of one export
#       print_medians(results, width, heading=MEDIANS)
#                                   the heading (None: none), then for each command its median,
#                                   min-max and user + system CPU, the name padded to width
#       cpu_times(results)          {name: user + system}, hyperfine's means
#       fastest_runs(results)       {name: its fastest run}
#       print_checks(results, pairs, digits)
#                                   for each (a, b) in pairs with both timed, a / b again from
#                                   CPU time and from the fastest runs (two lines; none if no
#                                   pair): on a shared machine wall time also counts waiting
#                                   for a core, CPU time does not
#       print_pairs(path, target, at_least=False)
#                                   the median of bench/cpu_pairs.py's rounds' ratios in its
#                                   --out JSON at path, against "at most target" (or "at
#                                   least"), and the rounds' range (two lines)
#   run_pairs WHAT OUT -- A ARG... -- B ARG...
#                                   A and B in turn for $PAIRS rounds (default $RUNS, at least
#                                   9) (bench/cpu_pairs.py), the rounds written to OUT, after
#                                   "== CPU time in interleaved pairs: WHAT": a drift of a
#                                   shared machine's speed between hyperfine's blocks of runs
#                                   moves a ratio of their means, not the rounds' ratios; a
#                                   round of runs under 0.1 s can be off by half, so a median
#                                   of three was not enough.          reads PAIRS, RUNS, here
#
# Peak memory (GNU time)
#   say_peak_heading                says the heading of the peak memory section. reads summary
#   peak LABEL COMMAND...           runs COMMAND once under /usr/bin/time -v, says its peak RSS
#                                   in MiB after LABEL (padded to $peak_width) and leaves it in
#                                   kB in peak_kb (0 if unknown).     reads peak_width, summary
#   say_peak_growth NAME BIG_KB SMALL_KB [LIMIT_MIB]
#                                   says NAME's peak at N and at N/10 and the growth; ok if both
#                                   are under LIMIT_MIB, or without it if it grows by under
#                                   2 MiB.                                       reads summary
#
# Instructions (valgrind)
#   callgrind_wanted DEFAULT        true if ${CALLGRIND:-DEFAULT} is not 0 and valgrind is there
#   say_callgrind_heading WHAT      says an empty line and "instructions executed on the WHAT
#                                   (valgrind --tool=callgrind; CALLGRIND=0 skips this)".
#                                                                                reads summary
#   instr NAME COMMAND...           runs COMMAND under callgrind, keeping the profile as
#                                   $out/callgrind.NAME.out, and prints the instruction count.
#                                                                                reads out
#   say_instr_per_unit LABEL COUNT N UNIT FILE PROFILE
#                                   says COUNT in millions, per UNIT ("a fix": COUNT / N) and a
#                                   byte of FILE, and how to read PROFILE.      reads summary

me=$(basename "$0")
root=$(cd "$here/.." && pwd)
out="$here/out"
peak_width=36
mkdir -p "$out"

# --- checks -----------------------------------------------------------------------------------
die() { echo "$me: $*" >&2; exit 1; }

check_whole_number() { # VAR MIN [UNIT]
    local var=$1 min=$2 unit=${3:-} value=${!1}
    [[ $value =~ ^[0-9]+$ && $value -ge $min ]] ||
        die "$var must be a whole number${unit:+ of $unit}, at least $min (got '$value')"
}

require_tool() { command -v "$1" >/dev/null || die "$2"; }

require_python3() { require_tool python3 "python3 is needed $1"; }

require_hyperfine() {
    require_tool hyperfine \
        "hyperfine is not installed: it times the commands (apt-get install hyperfine, brew install hyperfine, or cargo install hyperfine)"
}

optional_tool() { # VAR COMMAND INSTALL
    printf -v "$1" 1
    if ! command -v "$2" >/dev/null; then
        printf -v "$1" 0
        echo "$me: $2 is not installed ($3): it is left out of the comparison" >&2
    fi
}

check_gnu_time() {
    have_time=1
    if ! /usr/bin/time -v true >/dev/null 2>&1; then
        have_time=0
        echo "$me: GNU time (/usr/bin/time -v) is not available (apt-get install time): peak memory is not measured" >&2
    fi
}

# --- the binaries under test ------------------------------------------------------------------
binaries_from_env_or_build() { # SWIFT_HINT ENVVAR PRODUCT [ENVVAR PRODUCT]...
    local hint=$1 all_given=1 i env product path build_dir bin
    shift
    local pairs=("$@")
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
        [[ -n ${!pairs[i]:-} ]] || all_given=0
    done
    if ((!all_given)); then
        command -v swift >/dev/null || die "swift is not installed: $hint"
        build_dir=${BUILD_DIR:-$root/.build}
        for ((i = 1; i < ${#pairs[@]}; i += 2)); do
            product=${pairs[i]}
            echo "== swift build -c release --product $product --scratch-path $build_dir" >&2
            (cd "$root" && swift build -c release --product "$product" --scratch-path "$build_dir" >&2) ||
                die "the release build of $product failed"
        done
        bin="$(cd "$root" && swift build -c release --scratch-path "$build_dir" --show-bin-path)"
    fi
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
        env=${pairs[i]} product=${pairs[i + 1]}
        if [[ -n ${!env:-} ]]; then
            path=${!env}
            [[ -x $path ]] || die "$env=$path is not an executable file"
        else
            path=$bin/$product
            [[ -x $path ]] || die "$path is not an executable file"
        fi
        printf -v "$product" '%s' "$path"
    done
}

# --- inputs -----------------------------------------------------------------------------------
input_for() { # NAME.EXT COUNT
    if [[ $2 == 1000000 ]]; then echo "$out/$1"; else echo "$out/${1%.*}-$2.${1##*.}"; fi
}

generate() { # FILE WHAT SCRIPT ARG...
    local f=$1 what=$2 script=$3
    shift 3
    if [[ ! -s $f ]]; then
        echo "== generating $f ($what)" >&2
        python3 "$here/$script" "$@" "$f.tmp" || die "$script could not write $f"
        mv "$f.tmp" "$f"
    fi
}

# The noisy case of issue 11 (fencerule.sh, fencerule-sections.sh): sets noisy_fences (a million
# over 100 km), noisy_one (the one centre fence) and noisy_fixes (N fixes, hacc 2-150 m).
noisy_fence_inputs() { # N
    noisy_fences=$out/fences-100km-1000000.json
    generate "$noisy_fences" "1000000 fences over 100 km" gen_fences.py --count 1000000 --area-km 100
    noisy_one=$out/fences-1.json
    generate "$noisy_one" "1 fence" gen_fences.py --count 1
    noisy_fixes=$(input_for fences-noisy-fixes.ndjson "$1")
    generate "$noisy_fixes" "$1 fixes, hacc 2-150 m" gen_fixes.py --center 47.0,8.0 --area-km 100 --hacc 2,150 --fixes "$1"
}

make_big_and_small() { # NAME.EXT UNIT SCRIPT OPTION
    local n
    small_n=$((N / 10))
    big=$(input_for "$1" "$N")
    small=$(input_for "$1" "$small_n")
    for n in "$N" "$small_n"; do
        generate "$(input_for "$1" "$n")" "$n $2" "$3" "$4" "$n"
    done
}

# --- the summary ------------------------------------------------------------------------------
start_summary() {
    summary=$1
    : >"$summary"
}

say() { echo "$*" | tee -a "$summary"; }

say_header() { # TITLE WIDTH
    say "== $1, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    say "$(printf '%-*s' "$2" machine:)$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || uname -m), $(uname -sr)"
}

file_mib() { python3 -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 1048576:.1f}')" "$1"; }

file_bytes() { stat -c %s "$1" 2>/dev/null || stat -f %z "$1"; }

q() { printf '%q' "$1"; }

# --- time -------------------------------------------------------------------------------------
run_hyperfine() { # NAME [WHAT] -- HYPERFINE_ARG...
    local name=$1 what=
    shift
    if [[ $1 != -- ]]; then
        what=$1
        shift
    fi
    shift # --
    local warmup=${WARMUP:-1}
    [[ $warmup =~ ^[0-9]+$ ]] || die "WARMUP must be a whole number, not '$warmup'"
    echo "== hyperfine${what:+: $what} (warm-up $warmup, $RUNS runs each)" >&2
    hyperfine --warmup "$warmup" --runs "$RUNS" --export-markdown "$out/$name.md" --export-json "$out/$name.json" "$@" >&2
}

summary_py_helpers=$(
    cat <<'EOF'
import json, sys

MEDIANS = "median wall time (min-max), user + system CPU"

def load_results(path):
    return {r["command"]: r for r in json.load(open(path))["results"]}

def print_medians(results, width, heading=MEDIANS):
    if heading is not None:
        print(heading)
    for name, r in results.items():
        print(f"  {name:<{width}} {r['median']:7.3f} s  ({min(r['times']):.3f}-{max(r['times']):.3f})"
              f"  user {r['user']:.3f} s + sys {r['system']:.3f} s")

def cpu_times(results):
    return {name: r["user"] + r["system"] for name, r in results.items()}

def fastest_runs(results):
    return {name: min(r["times"]) for name, r in results.items()}

def print_checks(results, pairs, digits):
    # On a shared machine wall time also counts waiting for a core; CPU time (user + system,
    # hyperfine's means) does not, so it is shown as a check on the wall-time ratios.
    pairs = [(a, b) for a, b in pairs if a in results and b in results]
    if not pairs:
        return
    cpu, fastest = cpu_times(results), fastest_runs(results)
    print("  CPU time (user + sys, means): "
          + ", ".join(f"{a} / {b} = {cpu[a] / cpu[b]:.{digits}f}x" for a, b in pairs))
    print("  fastest runs:                 "
          + ", ".join(f"{a} / {b} = {fastest[a] / fastest[b]:.{digits}f}x" for a, b in pairs))

def print_pairs(path, target, at_least=False):
    pairs = json.load(open(path))
    r, ratios = pairs["median_ratio"], pairs["ratios"]
    met = r >= target if at_least else r <= target
    print(f"  CPU time in interleaved pairs (median of {len(ratios)} rounds' ratios) = {r:.2f}x"
          f"   (target: at {'least' if at_least else 'most'} {target}x)   " + ("ok" if met else "MISSED"))
    print(f"    the rounds: {min(ratios):.2f}-{max(ratios):.2f}x")
EOF
)

run_pairs() { # WHAT OUT -- A ARG... -- B ARG...
    local what=$1 out_json=$2 rounds=${PAIRS:-$((RUNS > 9 ? RUNS : 9))}
    shift 2
    [[ -z ${PAIRS:-} ]] || check_whole_number PAIRS 1 rounds
    echo "== CPU time in interleaved pairs: $what, $rounds rounds" >&2
    python3 "$here/cpu_pairs.py" --rounds "$rounds" --out "$out_json" "$@" >&2
}

summarize() { # ARG... <<'EOF' (a Python program)
    python3 -c "$summary_py_helpers"$'\n'"$(cat)" "$@" | tee -a "$summary"
}

# --- peak memory ------------------------------------------------------------------------------
say_peak_heading() { say "peak memory (maximum resident set size, /usr/bin/time -v)"; }

peak_kb=0
peak() { # LABEL COMMAND...
    local label=$1
    shift
    peak_kb=$( (/usr/bin/time -v "$@" >/dev/null) 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): *//p' | tail -1)
    [[ -n $peak_kb ]] || peak_kb=0
    say "$(printf '  %-*s %8s MiB' "$peak_width" "$label" "$(python3 -c "print(f'{$peak_kb / 1024:.1f}')")")"
}

say_peak_growth() { # NAME BIG_KB SMALL_KB [LIMIT_MIB]
    python3 - "$@" <<'EOF' | tee -a "$summary"
import sys
name = sys.argv[1]
big, small = (int(v) / 1024 for v in sys.argv[2:4])
limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
if limit is None:
    verdict = "ok: constant" if big - small < 2 else "GROWS with the input"
else:
    verdict = f"ok: under {limit} MiB" if max(big, small) < limit else f"MISSED: {limit} MiB target"
print(f"  {name} peak {big:.1f} MiB at N vs {small:.1f} MiB at N/10 (growth {big - small:+.1f} MiB)   " + verdict)
EOF
}

# --- instructions -----------------------------------------------------------------------------
callgrind_wanted() { [[ ${CALLGRIND:-$1} != 0 ]] && command -v valgrind >/dev/null; }

say_callgrind_heading() {
    say ""
    say "instructions executed on the $1 (valgrind --tool=callgrind; CALLGRIND=0 skips this)"
}

instr() { # NAME COMMAND...
    local name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$name.out" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *//p' | tail -1
}

say_instr_per_unit() { # LABEL COUNT N UNIT FILE PROFILE
    python3 - "$1" "$2" "$3" "$4" "$(file_bytes "$5")" "$6" <<'EOF' | tee -a "$summary"
import sys
label, unit, profile = sys.argv[1], sys.argv[4], sys.argv[6]
count, n, size = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
print(f"  {label}  {count / 1e6:8.1f} M  ({count / n:,.0f} {unit}, {count / size:.1f} a byte; callgrind_annotate {profile} shows where)")
EOF
}
