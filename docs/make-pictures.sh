#!/usr/bin/env bash
# Makes the pictures README.md shows, from the samples, with fixplot --html rendered by
# headless Chromium (Debian's `chromium`). The same tools give the same pages; the PNGs can
# differ by a pixel between Chromium versions and fonts.
#
#   docs/make-pictures.sh            builds the release tools (swift build -c release) first
#   BIN=DIR docs/make-pictures.sh    takes the tools from DIR instead
#
# Writes docs/walk-fences.png, docs/day-visits.png and docs/crossing-p-inside.png.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [[ -z ${BIN:-} ]]; then
  swift build -c release >&2
  BIN=$root/.build/release
fi
export PATH=$BIN:$PATH
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n $chromium ]] || { echo "make-pictures.sh: chromium is needed (apt-get install chromium)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shoot PAGE PNG: the page at its own size (the SVG's width and height, the page's padding and
# its one line of key).
shoot() {
  local w h
  w=$(grep -o '<svg [^>]*' "$1" | grep -o 'width="[0-9.]*"' | head -1 | tr -dc '0-9.')
  h=$(grep -o '<svg [^>]*' "$1" | grep -o 'height="[0-9.]*"' | head -1 | tr -dc '0-9.')
  "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars --force-device-scale-factor=1 \
    --user-data-dir="$work/profile" --window-size="$(( ${w%.*} + 16 )),$(( ${h%.*} + 54 ))" \
    --screenshot="$2" "file://$1" 2>/dev/null
  echo "make-pictures.sh: wrote $2" >&2
}

# 1. The sample walk, its fences and the confident rule's events.
gpx2fix samples/walk.gpx > "$work/walk.ndjson"
fencerule --fences samples/shops.json "$work/walk.ndjson" > "$work/events.ndjson"
fixplot --html --fences samples/shops.json --title "Morning walk: fences and the events of the confident rule" \
  "$work/walk.ndjson" "$work/events.ndjson" > "$work/walk.html"
shoot "$work/walk.html" docs/walk-fences.png

# 2. A simulated day: its fixes, its visits, and the timeline.
fixsim --origin 51.5,-0.12 --route 0,0:0,0:800,300:800,300:1100,350:1100,350:0,0:0,0 --pause 1800 \
  > "$work/day.ndjson"
visits "$work/day.ndjson" > "$work/visits.ndjson"
fixplot --html --title "A day's visits (visits, fixsim's day)" --height 640 \
  "$work/day.ndjson" "$work/visits.ndjson" > "$work/day.html"
shoot "$work/day.html" docs/day-visits.png

# 3. A walk past a fence, 5 m inside its edge: P(inside), and the state each rule held.
printf '[{"id":"fence","lat":51.5,"lon":-0.12,"radius":100}]\n' > "$work/fence.json"
fixsim --origin 51.5,-0.12 --route -300,95:300,95 > "$work/cross.ndjson"
for rule in naive confident; do
  fencerule --fences "$work/fence.json" --rule $rule --trace "$work/cross.ndjson" |
    sed "s/\"trace\":\"sim\"/\"trace\":\"$rule\"/"
  fencerule --fences "$work/fence.json" --rule $rule "$work/cross.ndjson" |
    sed "s/\"trace\":\"sim\"/\"trace\":\"$rule\"/"
done > "$work/rules.ndjson"
fixplot --html --fences "$work/fence.json" --title "Past a fence, 5 m inside its edge: naive and confident" \
  "$work/rules.ndjson" > "$work/cross.html"
shoot "$work/cross.html" docs/crossing-p-inside.png
