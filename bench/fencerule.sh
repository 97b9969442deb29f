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
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   FENCERULE  a fencerule binary to use; with FIXSIM as well, no build is done
#   FIXSIM     a fixsim binary to use
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#   CALLGRIND  1 to count instructions with valgrind for 1 and 1,000,000 fences on N/10 fixes
#              (a few minutes; default 0)
#   NOISY      0 to leave out the noisy case (default 1): N fixes with hacc uniform in 2 to
#              150 m (Wi-Fi and cell fixes; bench/gen_fixes.py --hacc 2,150 --area-km 100)
#              against 1,000,000 fences over a 100 km square around the same centre, one
#              every 100 m on average, and against the one centre fence. Target: within 2x of
#              the one fence, in CPU time: hyperfine's runs, and the two commands run in turn
#              for PAIRS rounds (bench/cpu_pairs.py), whose median ratio decides
#   LIMIT      0 to leave out the --limit and --trace cases (default 1). --limit: N/10 fixes
#              against 1,000 fences over a continent (3,000 km) plus 20 fences of 20 m in
#              London, with and without `--limit 20`, for two walks: one in London with a
#              glitch fix at 0,0 every 1,000 fixes, and the 47th-parallel walk (hundreds of km
#              from most fences). Target: --limit within 2x of the run without it, for both,
#              in CPU time with the two run in turn for PAIRS rounds (bench/cpu_pairs.py).
#              --trace: the noisy case's first N/10 fixes against its 1,000,000 fences, with
#              and without --trace, and the fence entries --trace printed: its cost a printed
#              entry, and the same against the one fence (no entry to print)
#
# The fences (bench/gen_fences.py): a square of 1000 km around 47.0 N, 8.0 E, one fence at
# its centre (radius 100 m) and the others spread uniformly, radius 50 to 200 m. The fixes
# (fixsim): one walk at 3 m/s, 20 fixes a second, 8 m of noise, east along the 47th parallel
# from 75 km west of the centre, through the centre fence, cut at N fixes (1,000,000 fixes are
# 150 km, and cross about 36 of the million fences). Target: the million within 2x of the one
# fence; the two also run in turn for PAIRS rounds (bench/cpu_pairs.py), whose median CPU
# ratio decides, as in the noisy case.
#
# The load alone is `fencerule --fences F /dev/null`: no fixes, the same as `< /dev/null`.
#
# Output (bench/out/, git-ignored): fences-{1,1000,1000000}.json, fences-fixes[-N].ndjson,
# hyperfine's fencerule.{md,json} and fencerule-load.{md,json}, fencerule-pairs.json,
# fencerule-noisy-pairs.json and fencerule-limit-{london,walk}-pairs.json (cpu_pairs.py's
# rounds), and fencerule-summary.txt with everything printed after the build.
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
    noisy_fence_inputs "$N"
fi

LIMIT=${LIMIT:-1}
if [[ $LIMIT != 0 ]]; then
    make_fixes "$small_n"
    continent=$out/fences-continent.json
    if [[ ! -s $continent ]]; then
        generate "$out/fences-continent-1000.json" "1000 fences over 3000 km" gen_fences.py --count 1000 --area-km 3000
        generate "$out/fences-london-20.json" "20 fences of 20 m in London" gen_fences.py --count 20 \
            --center 51.5,-0.12 --area-km 2 --min-radius 20 --max-radius 20
        python3 -c 'import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
for f in b: f["id"] = "london-" + f["id"]
json.dump(a + b, open(sys.argv[3], "w"))' "$out/fences-continent-1000.json" "$out/fences-london-20.json" "$continent.tmp"
        mv "$continent.tmp" "$continent"
    fi
    london=$(input_for fences-london-glitch.ndjson "$small_n")
    if [[ ! -s $london ]]; then
        echo "== generating $london ($small_n fixes in London, 0,0 every 1,000th)" >&2
        # 1.4 m/s at 10 Hz, back and forth over 2 km; every 1,000th fix moved to 0,0 (its time kept).
        { "$fixsim" --origin 51.5,-0.12 --route "-1000,0:1000,0:-1000,0:1000,0:-1000,0:1000,0:-1000,0:1000,0" \
            --rate 10 --speed 1.4 --noise 5 || true; } | head -n "$small_n" |
            awk 'NR % 1000 == 0 { sub(/"lat":[^,]*,"lon":[^,]*/, "\"lat\":0,\"lon\":0") } { print }' >"$london.tmp"
        [[ $(wc -l <"$london.tmp") -eq $small_n ]] || die "fixsim did not write $small_n fixes for London"
        mv "$london.tmp" "$london"
    fi
    if [[ $NOISY != 0 ]]; then
        noisy_small=$(input_for fences-noisy-fixes.ndjson "$small_n")
        [[ -s $noisy_small ]] || head -n "$small_n" "$noisy_fixes" >"$noisy_small"
    fi
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
# The one fence and the million in turn, which decide the 2x target (run_pairs, lib.sh).
run_pairs "the one fence and the million in turn" "$out/fencerule-pairs.json" \
    -- "$fencerule" --fences "$(fences_for 1)" "$fixes" \
    -- "$fencerule" --fences "$(fences_for 1000000)" "$fixes"
if [[ $NOISY != 0 ]]; then
    run_hyperfine fencerule-noisy "$N fixes with hacc 2-150 m" -- \
        -n "noisy, 1 fence" "$(q "$fencerule") --fences $(q "$(fences_for 1)") $(q "$noisy_fixes") > /dev/null" \
        -n "noisy, 1000000 fences" "$(q "$fencerule") --fences $(q "$noisy_fences") $(q "$noisy_fixes") > /dev/null" \
        -n "noisy, load alone" "$(q "$fencerule") --fences $(q "$noisy_fences") /dev/null"
    # The same two runs in turn, round after round, which decide the target.
    run_pairs "the one fence and the million in turn" "$out/fencerule-noisy-pairs.json" \
        -- "$fencerule" --fences "$(fences_for 1)" "$noisy_fixes" \
        -- "$fencerule" --fences "$noisy_fences" "$noisy_fixes"
fi
if [[ $LIMIT != 0 ]]; then
    run_hyperfine fencerule-limit "$small_n fixes, 1,020 fences over a continent, --limit 20 or not" -- \
        -n "london, no limit" "$(q "$fencerule") --fences $(q "$continent") $(q "$london") > /dev/null" \
        -n "london, --limit 20" "$(q "$fencerule") --limit 20 --fences $(q "$continent") $(q "$london") > /dev/null" \
        -n "walk, no limit" "$(q "$fencerule") --fences $(q "$continent") $(q "$small") > /dev/null" \
        -n "walk, --limit 20" "$(q "$fencerule") --limit 20 --fences $(q "$continent") $(q "$small") > /dev/null"
    # Each walk with and without the limit in turn, which decide the 2x target (run_pairs,
    # lib.sh, says why).
    run_pairs "London: no limit and --limit 20 in turn" "$out/fencerule-limit-london-pairs.json" \
        -- "$fencerule" --fences "$continent" "$london" -- "$fencerule" --limit 20 --fences "$continent" "$london"
    run_pairs "the walk: no limit and --limit 20 in turn" "$out/fencerule-limit-walk-pairs.json" \
        -- "$fencerule" --fences "$continent" "$small" -- "$fencerule" --limit 20 --fences "$continent" "$small"
    if [[ $NOISY != 0 ]]; then
        entries=$("$fencerule" --trace --fences "$noisy_fences" "$noisy_small" | grep -o '"inside":' | wc -l)
        run_hyperfine fencerule-trace "$small_n noisy fixes, --trace or not" -- \
            -n "1M fences" "$(q "$fencerule") --fences $(q "$noisy_fences") $(q "$noisy_small") > /dev/null" \
            -n "1M fences, --trace" "$(q "$fencerule") --trace --fences $(q "$noisy_fences") $(q "$noisy_small") > /dev/null" \
            -n "1 fence" "$(q "$fencerule") --fences $(q "$(fences_for 1)") $(q "$noisy_small") > /dev/null" \
            -n "1 fence, --trace" "$(q "$fencerule") --trace --fences $(q "$(fences_for 1)") $(q "$noisy_small") > /dev/null"
    fi
fi

summarize "$out/fencerule.json" "$out/fencerule-load.json" "$N" "$out/fencerule-pairs.json" <<'EOF'
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
print_pairs(sys.argv[4], 2)
print(f"  medians      = {r:.2f}x")
cpu, fastest = cpu_times(full), fastest_runs(full)
print(f"  CPU time (user + sys, means) = {cpu[big] / cpu[one]:.2f}x")
print(f"  fastest runs = {fastest[big] / fastest[one]:.2f}x")
rest = {k: full[k]["median"] - load[k]["median"] for k in full}
print(f"  without loading (full - load medians) = {rest[big] / rest[one]:.2f}x")
print(f"  1,000 fences / 1 fence, medians = {full['1000 fences']['median'] / full[one]['median']:.2f}x")
EOF
if [[ $NOISY != 0 ]]; then
    summarize "$out/fencerule-noisy.json" "$N" "$out/fencerule-noisy-pairs.json" <<'EOF'
res = load_results(sys.argv[1])
n = int(sys.argv[2])
print_medians(res, 22, f"noisy: {n:,} fixes with hacc 2-150 m, 1,000,000 fences over 100 km; {MEDIANS}")
one, big, load = "noisy, 1 fence", "noisy, 1000000 fences", "noisy, load alone"
cpu = cpu_times(res)
print("ratio 1,000,000 fences / 1 fence, noisy")
print_pairs(sys.argv[3], 2)
print(f"  CPU time (user + sys, hyperfine's means) = {cpu[big] / cpu[one]:.2f}x")
print(f"  medians      = {res[big]['median'] / res[one]['median']:.2f}x")
print(f"  fastest runs = {min(res[big]['times']) / min(res[one]['times']):.2f}x")
print(f"  without loading (CPU, full - load) = {(cpu[big] - cpu[load]) / cpu[one]:.2f}x")
EOF
fi
if [[ $LIMIT != 0 ]]; then
    reselects=$("$fencerule" --limit 20 --fences "$continent" "$london" | grep -c '"event":"reselect"' || true)
    summarize "$out/fencerule-limit.json" "$small_n" "$reselects" "$out/fencerule-limit-london-pairs.json" \
        "$out/fencerule-limit-walk-pairs.json" <<'EOF'
res = load_results(sys.argv[1])
print_medians(res, 20, f"--limit 20: {int(sys.argv[2]):,} fixes, 1,020 fences over a continent; {MEDIANS}")
print(f"  (London: {int(sys.argv[3]):,} reselections, a glitch fix at 0,0 every 1,000 fixes)")
cpu = cpu_times(res)
for walk, pairs in (("london", sys.argv[4]), ("walk", sys.argv[5])):
    r = cpu[f"{walk}, --limit 20"] / cpu[f"{walk}, no limit"]
    m = res[f"{walk}, --limit 20"]["median"] / res[f"{walk}, no limit"]["median"]
    print(f"  {walk}: --limit 20 / no limit, CPU = {r:.2f}x, medians = {m:.2f}x; in turn:")
    print_pairs(pairs, 2)
EOF
    if [[ $NOISY != 0 ]]; then
        summarize "$out/fencerule-trace.json" "$small_n" "$entries" <<'EOF'
res = load_results(sys.argv[1])
n, entries = int(sys.argv[2]), int(sys.argv[3])
print_medians(res, 20, f"--trace: {n:,} noisy fixes; {MEDIANS}")
cpu = cpu_times(res)
extra = cpu["1M fences, --trace"] - cpu["1M fences"]
one = cpu["1 fence, --trace"] - cpu["1 fence"]
print(f"  1M fences: {entries:,} fence entries printed ({entries / n:.1f} a fix); --trace adds {extra:.3f} s CPU, "
      f"{extra / max(1, entries) * 1e9:.0f} ns an entry")
print(f"  1 fence: --trace adds {one:.3f} s CPU ({one / n * 1e9:.0f} ns a fix: each fix is written whole)")
EOF
    fi
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
echo "== written: $out/fencerule.md, fencerule.json, fencerule-load.md, fencerule-load.json, fencerule-pairs.json, fencerule-noisy.json, fencerule-noisy-pairs.json, fencerule-limit.json, fencerule-limit-{london,walk}-pairs.json, fencerule-trace.json, $summary" >&2
