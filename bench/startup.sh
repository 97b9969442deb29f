#!/usr/bin/env bash
# Benchmark start-up: gpx2fix on a one-point GPX file, against xmllint --stream --noout on the
# same file (target: at most 1.5x), both run directly (no shell), many times.
#
#   bench/startup.sh                      # release build in .build, 200 runs each
#   GPX2FIX=/path/to/gpx2fix bench/startup.sh
#   RUNS=1000 bench/startup.sh
#
# Environment:
#   RUNS       timed runs of each command, after WARMUP warm-up runs (default 200)
#   WARMUP     warm-up runs of each command (default 20)
#   GPX2FIX    a gpx2fix binary to use; no build is done. Which binary matters here: `make
#              build` links the Swift runtime statically (what `make install` installs), a
#              plain `swift build -c release` dynamically, which starts about twice as slowly
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# Output (bench/out/, git-ignored): one-point.gpx, hyperfine's startup.{md,json}, and
# startup-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}

check_whole_number RUNS 2
require_python3 "to compute the ratios"
require_hyperfine
require_tool xmllint "xmllint is needed as the peer (apt-get install libxml2-utils)"

binaries_from_env_or_build "set GPX2FIX to a gpx2fix binary" GPX2FIX gpx2fix

gpx=$out/one-point.gpx
cat >"$gpx" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="bench/startup.sh" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>one</name><trkseg>
    <trkpt lat="47.000000" lon="8.000000"><ele>420.5</ele><time>2026-03-02T08:00:00Z</time></trkpt>
  </trkseg></trk>
</gpx>
EOF

start_summary "$out/startup-summary.txt"
say_header "start-up benchmark" 11
say "input:     $gpx: one track point, $(file_bytes "$gpx") bytes"
say "gpx2fix:   $gpx2fix ($("$gpx2fix" --version 2>&1 | head -1)); $(if ldd "$gpx2fix" 2>/dev/null | grep -q libswiftCore; then echo "Swift runtime linked dynamically"; else echo "Swift runtime linked statically"; fi)"
say "           $(ldd "$gpx2fix" 2>/dev/null | wc -l) shared objects mapped (ldd)"
say "xmllint:   $(xmllint --version 2>&1 | head -1)"
say "output:    $("$gpx2fix" "$gpx")"
say ""

# -N: no shell between hyperfine and the command, whose own start is what is measured.
run_hyperfine startup "one point, $RUNS runs" -- -N \
    -n gpx2fix "$(q "$gpx2fix") $(q "$gpx")" \
    -n "xmllint --stream" "xmllint --stream --noout $(q "$gpx")"

summarize "$out/startup.json" <<'EOF'
res = load_results(sys.argv[1])
print("median wall time (min-max), user + system CPU (means)")
for name, r in res.items():
    print(f"  {name:<17} {r['median'] * 1e3:6.2f} ms  ({min(r['times']) * 1e3:.2f}-{max(r['times']) * 1e3:.2f})"
          f"  user {r['user'] * 1e3:.2f} ms + sys {r['system'] * 1e3:.2f} ms")
g, x = res["gpx2fix"]["median"], res["xmllint --stream"]["median"]
print("ratio (from the medians)")
print(f"  gpx2fix / xmllint --stream = {g / x:.2f}x   (target: at most 1.5x)   " + ("ok" if g / x <= 1.5 else "MISSED"))
print_checks(res, [("gpx2fix", "xmllint --stream")], 2)
EOF
echo "== written: $out/startup.md, $out/startup.json, $summary" >&2
