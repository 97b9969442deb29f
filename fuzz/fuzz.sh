#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in fuzz/targets (one file each; see fuzz/README.md).
#
#   fuzz/fuzz.sh build [TARGET]...          build FixKit once, then the targets (all by default)
#   fuzz/fuzz.sh run TARGET [SECONDS] [ARG]...  fuzz one target (default 60 s); ARGs go to libFuzzer
#   fuzz/fuzz.sh ci [SECONDS]               build all, run each for SECONDS (default 30), FUZZ_JOBS at once
#                                           (default: the core count); fails on a finding
#   fuzz/fuzz.sh repro TARGET FILE...       run a target on saved inputs (a crash, a fixture)
#   fuzz/fuzz.sh minimize TARGET FILE       shrink a finding (60 s) into FILE.min
#   fuzz/fuzz.sh list                       the targets
#
# Needs a Swift toolchain whose swiftc takes -sanitize=fuzzer,address (Linux: yes), libxml2 and zlib.
# Everything goes under .build/fuzz: lib/ (FixKit, instrumented), bin/, corpus/TARGET (the
# working corpus, seeded from fuzz/seeds.txt), artifacts/TARGET (crashes, leaks, timeouts).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${FUZZ_BUILD:-$root/.build/fuzz}
corpus_root=${FIXKIT_CORPUS:-$root/../shared/corpus}
max_len=${FUZZ_MAX_LEN:-65536}
SWIFTC=${SWIFTC:-swiftc}
# Whole-module: one type check of the sources instead of one a file (a fraction of the build
# time on a small machine).
flags=(-sanitize=fuzzer,address -O -g -parse-as-library)
lib_flags=(-wmo -num-threads "$(nproc 2>/dev/null || echo 2)")
xml_flags=()
for f in $(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2); do xml_flags+=(-Xcc "$f"); done
# The package's system-library targets (Sources/C*: a module map and a shim header each),
# found as swiftpm finds them, so that a new one needs no change here.
module_flags=("${xml_flags[@]}")
for d in Sources/C*/; do [[ -f $d/module.modulemap ]] && module_flags+=(-I "${d%/}"); done

# Swift's own crash backtracer and ASan's report fight over a crash (a wild read in the
# backtracer's memory server); libFuzzer's report with ASan's stack is the one wanted.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

targets() { for f in fuzz/targets/*.swift; do basename "$f" .swift; done; }

# The linker (gold) warns about every ASan symbol it cannot export; those lines say nothing.
quiet() { grep -v -e "ld.gold: warning: Cannot export local symbol" -e "^$" || true; }

build_lib() {
  mkdir -p "$out/lib"
  local stamp="$out/lib/libFixKit.a"
  if [[ -f $stamp ]] && [[ -z $(find Sources/FixKit Sources/C* -newer "$stamp" -type f | head -1) ]]; then return; fi
  echo "fuzz: building FixKit with -sanitize=fuzzer,address" >&2
  # The library is its own stamp: it goes first, and comes back only from a build that
  # succeeded. (Under `set -e` a failed pipeline ends the script at once, so the failure is
  # caught by `if`: a check of PIPESTATUS after it never ran, and a library that a failed build
  # left, newer than the sources, passed for up to date.)
  rm -f "$stamp"
  # shellcheck disable=SC2046
  if ! "$SWIFTC" "${flags[@]}" "${lib_flags[@]}" -enable-testing -module-name FixKit -emit-module -emit-module-path "$out/lib/FixKit.swiftmodule" \
    -emit-library -static -o "$stamp" "${module_flags[@]}" $(find Sources/FixKit -name '*.swift' | sort) 2>&1 | quiet; then
    rm -f "$stamp"
    exit 1
  fi
}

build_target() {
  local t=$1 bin="$out/bin/$1"
  mkdir -p "$out/bin"
  if [[ -x $bin && $bin -nt fuzz/targets/$t.swift && $bin -nt fuzz/Harness/Harness.swift && $bin -nt $out/lib/libFixKit.a ]]; then return; fi
  echo "fuzz: building $t" >&2
  rm -f "$bin"
  if ! "$SWIFTC" "${flags[@]}" -module-name "fuzz_$t" -I "$out/lib" "${module_flags[@]}" \
    fuzz/Harness/Harness.swift "fuzz/targets/$t.swift" -L "$out/lib" -lFixKit -lxml2 -lz -o "$bin" 2>&1 | quiet; then
    rm -f "$bin"
    exit 1
  fi
}

seed() {
  local t=$1 dir="$out/corpus/$1"
  mkdir -p "$dir"
  [[ -n $(ls -A "$dir") ]] && return
  while read -r target pattern; do
    [[ $target == "$t" ]] || continue
    if [[ $pattern == corpus/* ]]; then
      [[ -d $corpus_root ]] || { echo "fuzz: $corpus_root is absent: corpus seeds for $t skipped" >&2; continue; }
      pattern="$corpus_root/${pattern#corpus/}"
    fi
    for f in $pattern; do [[ -f $f ]] && head -c "$max_len" "$f" > "$dir/$(basename "$f")"; done
  done < <(grep -v '^#' fuzz/seeds.txt | grep -v '^[[:space:]]*$')
  true
}

run_target() {
  local t=$1 seconds=${2:-60}
  shift 2 || shift $#
  build_lib; build_target "$t"; seed "$t"
  mkdir -p "$out/artifacts/$t"
  local dict=()
  [[ -f fuzz/dict/$t.dict ]] && dict=(-dict="fuzz/dict/$t.dict")
  "$out/bin/$t" "$out/corpus/$t" "${dict[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" "$@"
}

case ${1:-} in
  build)
    shift; build_lib
    if (($#)); then for t in "$@"; do build_target "$t"; done; else for t in $(targets); do build_target "$t"; done; fi ;;
  run)
    [[ $# -ge 2 ]] || { echo "usage: fuzz/fuzz.sh run TARGET [SECONDS] [ARG]..." >&2; exit 2; }
    t=$2; seconds=${3:-60}; shift 3 2>/dev/null || shift $#
    run_target "$t" "$seconds" "$@" ;;
  ci)
    # One target a core at a time (FUZZ_JOBS, default the core count): each still runs its
    # full SECONDS, and the whole takes SECONDS x targets / jobs instead of SECONDS x targets.
    seconds=${2:-30}; jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}; build_lib
    for t in $(targets); do build_target "$t"; done
    for t in $(targets); do seed "$t"; done
    declare -A pid_target=()
    failed=()
    reap() { # wait for one job; report it
      local pid rc=0
      wait -n -p pid || rc=$?
      local t=${pid_target[$pid]} log="$out/ci-${pid_target[$pid]}.log"
      unset "pid_target[$pid]"
      if ((rc == 0)); then
        grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" | sed "s/^/fuzz: $t: /" >&2
      else
        failed+=("$t"); tail -40 "$log" | sed "s/^/fuzz: $t: /" >&2
      fi
    }
    for t in $(targets); do
      while ((${#pid_target[@]} >= jobs)); do reap; done
      echo "fuzz: $t for ${seconds}s" >&2
      run_target "$t" "$seconds" >"$out/ci-$t.log" 2>&1 &
      pid_target[$!]=$t
    done
    while ((${#pid_target[@]})); do reap; done
    if ((${#failed[@]})); then echo "fuzz: findings in ${failed[*]} (inputs in $out/artifacts)" >&2; exit 1; fi
    echo "fuzz: no findings" >&2 ;;
  repro)
    [[ $# -ge 3 ]] || { echo "usage: fuzz/fuzz.sh repro TARGET FILE..." >&2; exit 2; }
    t=$2; shift 2; build_lib; build_target "$t"; "$out/bin/$t" -runs=1 "$@" ;;
  minimize)
    [[ $# -eq 3 ]] || { echo "usage: fuzz/fuzz.sh minimize TARGET FILE" >&2; exit 2; }
    build_lib; build_target "$2"
    "$out/bin/$2" -minimize_crash=1 -max_total_time=60 -timeout=10 -exact_artifact_path="$3.min" "$3" ;;
  list) targets ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
