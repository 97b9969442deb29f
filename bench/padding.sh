#!/usr/bin/env bash
# Benchmark gpx2fix on input with nothing in it, in every reader: MB of NUL bytes (an SD card
# logger's unwritten tail), of blank lines, and one line that never ends, each read with the
# format recognised from its content and with every `--format` gpx2fix has. Target (issue
# 11): every run under 3x the time of `cat FILE | wc -c` in the same loop, and under 16 MiB.
#
#   bench/padding.sh                      # release build in .build, 300 MB inputs, 3 runs
#   GPX2FIX=/path/to/gpx2fix bench/padding.sh
#   MB=100 RUNS=5 bench/padding.sh
#
# Environment:
#   MB         the size of each input, in megabytes of 10^6 bytes (default 300)
#   RUNS       timed runs of each command (default 3); the median counts, CPU time beside it
#   GPX2FIX    a gpx2fix binary to use; no build is done
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# The inputs (bench/out/, git-ignored, MB each): padding-nul.bin (NUL bytes),
# padding-blank.txt (line feeds) and padding-endless.txt ("$GPGGA," and digits, no line end:
# a sentence start the NMEA reader must not hold, and a line no other reader may keep).
# gpx2fix refuses all three (exit 1, a message); what is timed is that it reads each to its
# end, or stops early where the format allows, in constant memory.
#
# Output (bench/out/): padding.json (each command's median wall and CPU time and peak memory,
# its input's floor, and the worst of them, which bench/figures.py shows) and
# padding-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
MB=${MB:-300}
RUNS=${RUNS:-3}

check_whole_number MB 1 megabytes
check_whole_number RUNS 1
require_python3 "to write the inputs and compute the ratios"
check_gnu_time
((have_time)) || die "GNU time is needed for the times and the peak memory (apt-get install time)"

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

# --- inputs -----------------------------------------------------------------------------------
bytes=$((MB * 1000000))
make_input() { # FILE KIND
    [[ -s $1 && $(file_bytes "$1") -eq $bytes ]] && return
    echo "== writing $1 ($MB MB of $2)" >&2
    python3 - "$1" "$2" "$bytes" <<'EOF'
import os, sys
path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
head = b"$GPGGA," if kind == "endless" else b""
unit = {"nul": b"\0", "blank": b"\n", "endless": b"0123456789"}[kind]
block = (unit * (1 << 20))[: 1 << 20]
with open(path + ".tmp", "wb") as f:
    f.write(head)
    n -= len(head)
    while n > 0:
        f.write(block[:n])
        n -= len(block)
os.replace(path + ".tmp", path)
EOF
}
inputs=(nul:"$out/padding-nul.bin" blank:"$out/padding-blank.txt" endless:"$out/padding-endless.txt")
for spec in "${inputs[@]}"; do make_input "${spec#*:}" "${spec%%:*}"; done

# Every format gpx2fix reads, from its own list ("  NAME  summary" lines).
mapfile -t formats < <("$gpx2fix" --format help 2>&1 | sed -n 's/^  \([a-z0-9]*\)  .*/\1/p')
((${#formats[@]} >= 5)) || die "could not read the formats from '$gpx2fix --format help'"

# --- runs -------------------------------------------------------------------------------------
runs=$out/padding-runs.tsv
: >"$runs"
timed() { # INPUT LABEL COMMAND... (one line to $runs a run: input, label, wall, user, sys, KB)
    local input=$1 label=$2
    shift 2
    for ((r = 0; r < RUNS; r++)); do
        /usr/bin/time -o "$out/padding-time.txt" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || true
        # The format line is the file's last ("Command exited with non-zero status" may precede it).
        printf '%s\t%s\t%s\n' "$input" "$label" "$(tail -1 "$out/padding-time.txt" | tr ' ' '\t')" >>"$runs"
    done
}
for spec in "${inputs[@]}"; do
    name=${spec%%:*} file=${spec#*:}
    echo "== $name: cat | wc -c, gpx2fix, and gpx2fix --format for ${#formats[@]} formats ($RUNS runs each)" >&2
    # The floor, interleaved with the readers: cat's time before and after them.
    timed "$name" "cat | wc -c" bash -c 'cat "$1" | wc -c' - "$file"
    timed "$name" "recognised" "$gpx2fix" "$file"
    for f in "${formats[@]}"; do timed "$name" "--format $f" "$gpx2fix" --format "$f" "$file"; done
    timed "$name" "cat | wc -c" bash -c 'cat "$1" | wc -c' - "$file"
done

start_summary "$out/padding-summary.txt"
say_header "gpx2fix on padding benchmark" 10
say "gpx2fix:  $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1))"
say "inputs:   $MB MB each of NUL bytes, of blank lines, and one line with no end; ${#formats[@]} formats and recognition"
say ""
summarize "$runs" "$out/padding.json" "$MB" <<'EOF'
import collections, json, statistics
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 6:
        rows[(parts[0], parts[1])].append([float(v) for v in parts[2:]])
data = {}
for (name, label), runs in rows.items():
    data.setdefault(name, {})[label] = {
        "median": statistics.median(r[0] for r in runs),
        "cpu": statistics.median(r[1] + r[2] for r in runs),
        "peak_mib": max(r[3] for r in runs) / 1024,
        "runs": len(runs),
    }
# The worst of every reader run against its input's floor: what figures.py shows.
worst = {"ratio": [0.0, ""], "cpu_ratio": [0.0, ""], "seconds": [0.0, ""], "peak_mib": [0.0, ""]}
for name, labels in data.items():
    floor = labels.pop("cat | wc -c")
    labels["floor"] = floor
    print(f"{name}: cat | wc -c {floor['median']:.2f} s (CPU {floor['cpu']:.2f} s)")
    readers = sorted(((k, v) for k, v in labels.items() if k != "floor"), key=lambda kv: -kv[1]["median"])
    for label, r in readers:
        where = f"{name}, {label}"
        figures = {"ratio": r["median"] / max(floor["median"], 1e-3), "cpu_ratio": r["cpu"] / max(floor["cpu"], 1e-3),
                   "seconds": r["median"], "peak_mib": r["peak_mib"]}
        print(f"  {label:<20} {r['median']:6.2f} s  CPU {r['cpu']:5.2f} s  {r['peak_mib']:6.1f} MiB   {figures['ratio']:4.2f}x cat")
        for key, value in figures.items():
            worst[key] = max(worst[key], [value, where])
json.dump({"mb": int(sys.argv[3]), "inputs": data, "worst": worst}, open(sys.argv[2], "w"), indent=1)
print("worst (target: under 3x cat | wc -c, under 16 MiB)")
print(f"  time   {worst['ratio'][0]:.2f}x cat ({worst['ratio'][1]})   " + ("ok" if worst["ratio"][0] < 3 else "MISSED"))
print(f"  CPU    {worst['cpu_ratio'][0]:.2f}x cat's CPU ({worst['cpu_ratio'][1]})")
print(f"  memory {worst['peak_mib'][0]:.1f} MiB ({worst['peak_mib'][1]})   " + ("ok" if worst["peak_mib"][0] < 16 else "MISSED"))
EOF
rm -f "$out/padding-time.txt"
echo "== written: $out/padding.json, $summary" >&2
