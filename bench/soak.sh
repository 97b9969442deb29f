#!/usr/bin/env bash
# Soak: pipe GB of generated input through each tool, on the fly (no input file on disk), and
# sample the tool's memory as it reads, to show that it stays flat however long the stream.
#
#   bench/soak.sh                      # 10 GB a tool, release build in .build
#   GB=1 bench/soak.sh                 # 1 GB a tool (a few minutes in all)
#   GB=3 TOOLS="fixfilter visits" bench/soak.sh
#   BUILD_DIR=/tmp/bench-build bench/soak.sh
#   BIN=/path/to/bin bench/soak.sh     # take the tools from this folder, build nothing
#
# Environment:
#   GB         gigabytes (10^9 bytes) of input a run (default 10; a decimal number is fine)
#   TOOLS      the runs to make, by name (default all, in this order):
#                gpx2fix-nmea  gpx2fix on an NMEA stream (RMC + GGA at 1 Hz)
#                gpx2fix-gpx   gpx2fix on one GPX document that long
#                fixfilter     fixfilter on fix records
#                fencerule     fencerule --fences (20 fences on the walk) on fix records
#                visits        visits on fix records
#                visits-stay   visits on fix records that start with a stay of STAY_HOURS
#                fix2gpx       fix2gpx on fix records
#                fixstats      fixstats on fix records
#                fixplot       fixplot on fix records
#   STAY_HOURS the stay visits-stay starts with (default 1000: 3.6 M fixes, about 0.3 GB)
#   SAMPLES    memory samples a run (default 10)
#   BIN        a folder holding the built tools; without it they are built with
#              `swift build -c release` (scratch path $BUILD_DIR, default .build)
#
# The input comes from bench/gen_stream.py (see its header: a walk that repeats every hour,
# with a stop), written into a pipe as the tool reads it. While the tool runs, its resident
# set (VmRSS) and its peak so far (VmHWM) are read from /proc/PID/status, SAMPLES times at even
# steps of the input (what the generator has written, wchar in /proc/PID/io); GNU time gives the
# final peak. A run's verdict: "flat" when the final peak is within 2 MiB (or 5%) of the peak
# at half the input, else "GROWS". The script exits 1 when a tool grows or fails. Linux only
# (/proc).
#
# Output: one table a tool on standard output, and bench/out/soak-summary.txt with everything
# printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
GB=${GB:-10}
SAMPLES=${SAMPLES:-10}
STAY_HOURS=${STAY_HOURS:-1000}
all_tools="gpx2fix-nmea gpx2fix-gpx fixfilter fencerule visits visits-stay fix2gpx fixstats fixplot"
TOOLS=${TOOLS:-$all_tools}

[[ -d /proc/self ]] || die "needs Linux's /proc to sample memory"
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if v > 0 else 1)" "$GB" 2>/dev/null ||
    die "GB must be a positive number of gigabytes (got '$GB')"
check_whole_number SAMPLES 2
check_whole_number STAY_HOURS 1 hours
require_python3 "to generate the input"
check_gnu_time
for t in $TOOLS; do [[ " $all_tools " == *" $t "* ]] || die "TOOLS: '$t' is not one of: $all_tools"; done

if [[ -n ${BIN:-} ]]; then
    for p in gpx2fix fixfilter fencerule visits fix2gpx fixstats fixplot; do
        [[ -x $BIN/$p ]] || die "BIN=$BIN has no executable $p"
        printf -v "$p" '%s' "$BIN/$p"
    done
else
    binaries_from_env_or_build "install Swift 6 or set BIN" \
        GPX2FIX gpx2fix FIXFILTER fixfilter FENCERULE fencerule VISITS visits FIX2GPX fix2gpx FIXSTATS fixstats FIXPLOT fixplot
fi

bytes=$(python3 -c "import sys; print(int(float(sys.argv[1]) * 1e9))" "$GB")
fences=$out/soak-fences.json
# 20 fences of 30 to 220 m along the walk (it goes north-east from 45.75, 4.85 for 1.7 km).
python3 - "$fences" <<'EOF'
import json, math, sys
fences = []
for i in range(20):
    d = 85.0 * i
    fences.append({"id": "f%02d" % i, "lat": 45.75 + d * math.sqrt(0.5) / 111195.0,
                   "lon": 4.85 + d * math.sqrt(0.5) / (111195.0 * math.cos(math.radians(45.75))),
                   "radius": 30 + 10 * i})
json.dump(fences, open(sys.argv[1], "w"))
EOF

start_summary "$out/soak-summary.txt"
say_header "soak: $GB GB a tool, generated on the fly" 10

# The command line and the input format of a run.
run_spec() {
    case $1 in
        gpx2fix-nmea) format=nmea; cmd=("$gpx2fix" --date 2026-01-01) ;;
        gpx2fix-gpx) format=gpx; cmd=("$gpx2fix") ;;
        fixfilter) format=fix; cmd=("$fixfilter") ;;
        fencerule) format=fix; cmd=("$fencerule" --fences "$fences") ;;
        visits | visits-stay) format=fix; cmd=("$visits") ;;
        fix2gpx) format=fix; cmd=("$fix2gpx") ;;
        fixstats) format=fix; cmd=("$fixstats") ;;
        fixplot) format=fix; cmd=("$fixplot") ;;
    esac
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

failed=0
for t in $TOOLS; do
    run_spec "$t"
    gen=(python3 "$here/gen_stream.py" --format "$format" --bytes "$bytes")
    [[ $t == visits-stay ]] && gen+=(--stay-hours "$STAY_HOURS")
    say ""
    say "== $t: $(printf '%q ' "${gen[@]#"$here/"}")| $(basename "${cmd[0]}") ${cmd[*]:1}"
    timefile=$out/soak-$t.time
    errfile=$out/soak-$t.err
    began=$(date +%s.%N)
    if ((have_time)); then
        /usr/bin/time -v -o "$timefile" "${cmd[@]}" < <("${gen[@]}") >/dev/null 2>"$errfile" &
    else
        "${cmd[@]}" < <("${gen[@]}") >/dev/null 2>"$errfile" &
    fi
    wrapper=$!
    # The tool itself: the wrapper's child of that name (its other child, from the process
    # substitution, is the generator), or the wrapper itself without GNU time.
    pid=$wrapper
    if ((have_time)); then
        for _ in $(seq 50); do
            child=$(pgrep -P "$wrapper" -x "$(basename "${cmd[0]}")" | head -1 || true)
            [[ -n $child ]] && { pid=$child; break; }
            sleep 0.1
        done
    fi
    # Progress is what the generator has written into the pipe (its wchar): the tool's own
    # rchar also counts what it reads back from a spool file (fix2gpx, fixplot).
    genpid=""
    for _ in $(seq 50); do
        genpid=$(pgrep -P "$wrapper" -x python3 | head -1 || true)
        [[ -n $genpid ]] && break
        genpid=$(pgrep -P $$ -x python3 | head -1 || true)
        [[ -n $genpid ]] && break
        sleep 0.1
    done
    say "$(printf '%10s %10s %12s %12s' 'GB in' 'seconds' 'VmRSS MiB' 'VmHWM MiB')"
    next=1
    first_hwm=""
    half_hwm=""
    last_hwm=""
    while kill -0 "$pid" 2>/dev/null; do
        rchar=""
        [[ -n $genpid ]] && rchar=$(awk '/^wchar:/ { print $2 }' "/proc/$genpid/io" 2>/dev/null || true)
        [[ -n $rchar ]] || rchar=$bytes
        if ((rchar * SAMPLES >= next * bytes)); then
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
            hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
            [[ -n $hwm ]] || break
            [[ -n $first_hwm ]] || first_hwm=$hwm
            ((rchar * 2 < bytes)) || [[ -n $half_hwm ]] || half_hwm=$hwm
            last_hwm=$hwm
            now=$(date +%s.%N)
            say "$(awk -v r="$rchar" -v s="$now" -v b="$began" -v m="$rss" -v h="$hwm" \
                'BEGIN { printf "%10.2f %10.1f %12.1f %12.1f", r / 1e9, s - b, m / 1024, h / 1024 }')"
            next=$((next + 1))
        fi
        sleep 0.2
    done
    status=0
    wait "$wrapper" || status=$?
    ended=$(date +%s.%N)
    final_kb=""
    if ((have_time)) && [[ -s $timefile ]]; then
        final_kb=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$timefile")
    fi
    final_kb=${final_kb:-$last_hwm}
    secs=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')
    rate=$(awk -v n="$bytes" -v s="$secs" 'BEGIN { printf "%.0f", n / 1e6 / s }')
    if ((status != 0)); then
        say "$t: exit status $status; its messages (first lines):"
        head -5 "$errfile" | tee -a "$summary"
        failed=1
        continue
    fi
    verdict="flat"
    if [[ -n $first_hwm && -n $half_hwm && -n $final_kb ]]; then
        # Flat: the peak gained at most 2 MiB (or 5%) over the second half of the input. A
        # tolerance against the first sample alone would pass a slow, steady leak at 1 GB.
        grew=$((final_kb - half_hwm))
        if ((grew > 2048 && grew * 20 > half_hwm)); then verdict="GROWS"; failed=1; fi
        say "$t: peak $(mib "$first_hwm") MiB at the first sample, $(mib "$half_hwm") MiB at half, $(mib "$final_kb") MiB at the end: $verdict ($secs s, $rate MB/s)"
    else
        say "$t: peak $(mib "${final_kb:-0}") MiB at the end; too quick to sample ($secs s)"
    fi
    messages=$(wc -l <"$errfile")
    ((messages == 0)) || say "$t: $messages lines on standard error, the first: $(head -1 "$errfile")"
done
say ""
say "summary written to $summary"
exit "$failed"
