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
#   NOISY      0 to leave out the noisy case (default 1): N fixes with hacc uniform in 2 to
#              150 m (Wi-Fi and cell fixes; bench/gen_fixes.py --hacc 2,150 --area-km 100)
#              against 1,000,000 fences over a 100 km square around the same centre, one
#              every 100 m on average, and against the one centre fence. Target: within 2x of
#              the one fence, in CPU time
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
. "$here/lib.sh"
N=${N:-1000000}
RUNS=${RUNS:-5}
COUNTS=(1 1000 1000000)

check_whole_number N 10 fixes
check_whole_number RUNS 2
require_python3 "to generate the fences and compute the ratios"
require_hyperfine
check_gnu_time

binaries_from_env_or_build "set FENCERULE and FIXSIM to binaries" FENCERULE fencerule FIXSIM fixsim

# --- input files ------------------------------------------------------------------------------
fences_for() { echo "$out/fences-$1.json"; }
for n in "${COUNTS[@]}"; do
    generate "$(fences_for "$n")" "$n fences" gen_fences.py --count "$n"
done
fixes_for() { input_for fences-fixes.ndjson "$1"; } # fences-fixes.ndjson for the default size
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
NOISY=${NOISY:-1}
if [[ $NOISY != 0 ]]; then
    noisy_fences=$out/fences-100km-1000000.json
    generate "$noisy_fences" "1000000 fences over 100 km" gen_fences.py --count 1000000 --area-km 100
    noisy_fixes=$(input_for fences-noisy-fixes.ndjson "$N")
    generate "$noisy_fixes" "$N fixes, hacc 2-150 m" gen_fixes.py --center 47.0,8.0 --area-km 100 --hacc 2,150 --fixes "$N"
fi

start_summary "$out/fencerule-summary.txt"
say_header "fencerule benchmark" 11
say "fixes:     $fixes: $N fixes, $(file_mib "$fixes") MiB"
for n in "${COUNTS[@]}"; do
    say "fences:    $(fences_for "$n"): $n, $(file_mib "$(fences_for "$n")") MiB"
done
if [[ $NOISY != 0 ]]; then
    say "noisy:     $noisy_fixes: $N fixes, hacc 2-150 m, $(file_mib "$noisy_fixes") MiB"
    say "           against $noisy_fences: 1000000 over 100 km, $(file_mib "$noisy_fences") MiB"
fi
say "fencerule: $fencerule ($("$fencerule" --version 2>&1 | head -1))"
say "events:    $(for n in "${COUNTS[@]}"; do printf '%s fences: %s  ' "$n" "$("$fencerule" --fences "$(fences_for "$n")" "$fixes" | wc -l)"; done)"
[[ $NOISY != 0 ]] && say "           noisy: 1 fence: $("$fencerule" --fences "$(fences_for 1)" "$noisy_fixes" | wc -l)  1000000 fences: $("$fencerule" --fences "$noisy_fences" "$noisy_fixes" | wc -l)"
say ""

# --- time: one hyperfine run over the three fence counts, then the loads alone ----------------
args=()
load_args=(-N)
for n in "${COUNTS[@]}"; do
    args+=(-n "$n fences" "$(q "$fencerule") --fences $(q "$(fences_for "$n")") $(q "$fixes") > /dev/null")
    # no shell (-N): the small files load in a few milliseconds, too near a shell's start-up
    load_args+=(-n "$n fences" "$(q "$fencerule") --fences $(q "$(fences_for "$n")") /dev/null")
done
run_hyperfine fencerule "$N fixes" -- "${args[@]}"
run_hyperfine fencerule-load "loading the fences alone" -- "${load_args[@]}"
if [[ $NOISY != 0 ]]; then
    run_hyperfine fencerule-noisy "$N fixes with hacc 2-150 m" -- \
        -n "noisy, 1 fence" "$(q "$fencerule") --fences $(q "$(fences_for 1)") $(q "$noisy_fixes") > /dev/null" \
        -n "noisy, 1000000 fences" "$(q "$fencerule") --fences $(q "$noisy_fences") $(q "$noisy_fixes") > /dev/null" \
        -n "noisy, load alone" "$(q "$fencerule") --fences $(q "$noisy_fences") /dev/null"
fi

summarize "$out/fencerule.json" "$out/fencerule-load.json" "$N" <<'EOF'
full = load_results(sys.argv[1])
load = load_results(sys.argv[2])
n = int(sys.argv[3])
print_medians(full, 17, f"{MEDIANS}; {n:,} fixes")
print_medians(load, 17, "loading the fences alone (no fixes)")
print("fixes alone (full median - load median)")
for name in full:
    rest = full[name]["median"] - load[name]["median"]
    print(f"  {name:<17} {rest:7.3f} s  ({rest / n * 1e9:.0f} ns a fix)")
one, big = "1 fences", "1000000 fences"
r = full[big]["median"] / full[one]["median"]
print("ratio 1,000,000 fences / 1 fence")
print(f"  medians      = {r:.2f}x   (target: at most 2x)   " + ("ok" if r <= 2 else "MISSED"))
cpu, fastest = cpu_times(full), fastest_runs(full)
print(f"  CPU time (user + sys, means) = {cpu[big] / cpu[one]:.2f}x")
print(f"  fastest runs = {fastest[big] / fastest[one]:.2f}x")
rest = {k: full[k]["median"] - load[k]["median"] for k in full}
print(f"  without loading (full - load medians) = {rest[big] / rest[one]:.2f}x")
print(f"  1,000 fences / 1 fence, medians = {full['1000 fences']['median'] / full[one]['median']:.2f}x")
EOF
if [[ $NOISY != 0 ]]; then
    summarize "$out/fencerule-noisy.json" "$N" <<'EOF'
res = load_results(sys.argv[1])
n = int(sys.argv[2])
print_medians(res, 22, f"noisy: {n:,} fixes with hacc 2-150 m, 1,000,000 fences over 100 km; {MEDIANS}")
one, big, load = "noisy, 1 fence", "noisy, 1000000 fences", "noisy, load alone"
cpu = cpu_times(res)
r = cpu[big] / cpu[one]
print("ratio 1,000,000 fences / 1 fence, noisy")
print(f"  CPU time (user + sys, means) = {r:.2f}x   (target: at most 2x)   " + ("ok" if r <= 2 else "MISSED"))
print(f"  medians      = {res[big]['median'] / res[one]['median']:.2f}x")
print(f"  fastest runs = {min(res[big]['times']) / min(res[one]['times']):.2f}x")
print(f"  without loading (CPU, full - load) = {(cpu[big] - cpu[load]) / cpu[one]:.2f}x")
EOF
fi
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    say_peak_heading
    for n in "${COUNTS[@]}"; do
        peak "$n fences, $N fixes" "$fencerule" --fences "$(fences_for "$n")" "$fixes"
        peak "$n fences, no fixes" "$fencerule" --fences "$(fences_for "$n")" /dev/null
    done
    [[ $NOISY != 0 ]] && peak "noisy, 1000000 fences, $N fixes" "$fencerule" --fences "$noisy_fences" "$noisy_fixes"
fi

# --- instructions: a count that a busy machine does not disturb ---------------------------------
if callgrind_wanted 0; then
    make_fixes "$small_n"
    say ""
    say "instructions executed, $small_n fixes (valgrind --tool=callgrind; profiles in out/callgrind.fencerule-*.out)"
    counts=()
    for n in 1 1000000; do
        counts+=("$(instr "fencerule-$n" "$fencerule" --fences "$(fences_for "$n")" "$small")")
        counts+=("$(instr "fencerule-load-$n" "$fencerule" --fences "$(fences_for "$n")" /dev/null)")
    done
    summarize "$small_n" "${counts[@]}" <<'EOF'
n, one, one_load, big, big_load = (int(v) for v in sys.argv[1:6])
print(f"  1 fence          {one / 1e6:9.1f} M  (load {one_load / 1e6:.1f} M; fixes {(one - one_load) / n:,.0f} a fix)")
print(f"  1,000,000 fences {big / 1e6:9.1f} M  (load {big_load / 1e6:.1f} M; fixes {(big - big_load) / n:,.0f} a fix)")
print(f"  fixes alone, 1,000,000 fences / 1 fence = {(big - big_load) / (one - one_load):.2f}x")
EOF
fi
echo "== written: $out/fencerule.md, fencerule.json, fencerule-load.md, fencerule-load.json, fencerule-noisy.json, $summary" >&2
