#!/usr/bin/env bash
# Whether XMLStreamParser's libxml2 callbacks should borrow their state with the underscored
# `Unmanaged._withUnsafeGuaranteedRef` (no retain or release per callback: the build gpx2fix
# ships) or with `takeUnretainedValue()` (a retain and a release per callback: the build with
# `-Xswiftc -DFIXKIT_SAX_RETAIN`). Issue 9 keeps an underscored standard-library entry point
# only where a benchmark shows that it pays: this is that benchmark. It builds gpx2fix both
# ways and counts the instructions of each on a generated GPX track (callgrind: a count a busy
# machine does not disturb), after checking that both write the same bytes.
#
#   bench/xml-callbacks.sh                  # 20,000 points
#   N=100000 bench/xml-callbacks.sh
#
# Environment:
#   N          track points of the generated GPX (default 20000)
#   BUILD_DIR  SwiftPM scratch path of the shipped build (default <repo>/.build); the
#              takeUnretainedValue build goes to BUILD_DIR-sax-retain
#
# Output (bench/out/, git-ignored): the GPX, callgrind.xml-guaranteed.out and
# callgrind.xml-retain.out, and xml-callbacks-summary.txt with what is printed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
N=${N:-20000}
check_whole_number N 1 points
require_python3 "to generate the GPX track"
require_tool valgrind "valgrind is needed to count instructions (apt-get install valgrind)"
require_tool swift "swift is needed to build gpx2fix both ways"

build=${BUILD_DIR:-$root/.build}
echo "== building gpx2fix (shipped: _withUnsafeGuaranteedRef) into $build" >&2
(cd "$root" && swift build -c release --product gpx2fix --scratch-path "$build" >&2)
echo "== building gpx2fix with -DFIXKIT_SAX_RETAIN (takeUnretainedValue) into $build-sax-retain" >&2
(cd "$root" && swift build -c release --product gpx2fix --scratch-path "$build-sax-retain" \
    -Xswiftc -DFIXKIT_SAX_RETAIN >&2)
guaranteed=$build/release/gpx2fix
retain=$build-sax-retain/release/gpx2fix

gpx=$(input_for track.gpx "$N")
generate "$gpx" "$N points" gen_gpx.py --points "$N"
cmp -s <("$guaranteed" "$gpx") <("$retain" "$gpx") || die "the two builds write different fixes"

start_summary "$out/xml-callbacks-summary.txt"
say_header "XML callbacks: _withUnsafeGuaranteedRef against takeUnretainedValue" 10
say "input:    $gpx: $N track points, $(file_mib "$gpx") MiB"
say_callgrind_heading "$N-point GPX"
g=$(instr xml-guaranteed "$guaranteed" "$gpx")
r=$(instr xml-retain "$retain" "$gpx")
say_instr_per_unit "_withUnsafeGuaranteedRef" "$g" "$N" "a point" "$gpx" "$out/callgrind.xml-guaranteed.out"
say_instr_per_unit "takeUnretainedValue     " "$r" "$N" "a point" "$gpx" "$out/callgrind.xml-retain.out"
python3 -c 'import sys; g, r = int(sys.argv[1]), int(sys.argv[2]); print(f"  takeUnretainedValue / _withUnsafeGuaranteedRef = {r / g:.3f}x ({(r - g) / 1e6:+.1f} M)")' \
    "$g" "$r" | tee -a "$summary"
echo "== written: $summary" >&2
