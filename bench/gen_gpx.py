#!/usr/bin/env python3
"""Write a deterministic, realistic GPX 1.1 track of N points, for benchmarking gpx2fix.

    python3 bench/gen_gpx.py [--points N] [--segments S] [--seed K] OUT.gpx

Standard library only. The same arguments always give the same bytes.

The track is a random walk at cycling speed (1 fix a second) around Lyon, with the fields a
Garmin device writes: lat/lon with 7 decimals, <ele>, <time> in UTC, <hdop>, and the
TrackPointExtension v2 <speed> and <course>. Each <trkpt> is one indented line. The points
are split into S <trkseg> (pauses of a few minutes between them) of one named <trk>.

With every field present a point takes about 270 bytes, so 1,000,000 points make about
270 MB.
"""

import argparse
import math
import random
import sys
import time

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="FixKit bench/gen_gpx.py"
     xmlns="http://www.topografix.com/GPX/1/1"
     xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
     xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
     xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v2 http://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">
  <metadata>
    <name>Benchmark ride ({n} points)</name>
    <time>{start}</time>
  </metadata>
  <trk>
    <name>Benchmark ride, seed {seed}</name>
    <type>cycling</type>
"""

FOOTER = """  </trk>
</gpx>
"""

POINT = (
    '      <trkpt lat="{:.7f}" lon="{:.7f}"><ele>{:.1f}</ele><time>{}</time>'
    "<hdop>{:.1f}</hdop><extensions><gpxtpx:TrackPointExtension>"
    "<gpxtpx:speed>{:.2f}</gpxtpx:speed><gpxtpx:course>{:.1f}</gpxtpx:course>"
    "</gpxtpx:TrackPointExtension></extensions></trkpt>\n"
)

START = 1715502600  # 2024-05-12T08:30:00Z
EARTH_RADIUS = 6371008.8
DEG_PER_M_LAT = 180.0 / (math.pi * EARTH_RADIUS)


def step(rng, lat, lon, ele, course, speed):
    """One second of the ride: heading and speed drift smoothly (gen_rides.py walks the same
    way). Returns (lat, lon, ele, course, speed)."""
    course = (course + rng.gauss(0.0, 4.0)) % 360.0
    speed = min(14.0, max(0.0, speed + rng.gauss(0.0, 0.3)))
    rad = math.radians(course)
    lat += speed * math.cos(rad) * DEG_PER_M_LAT
    lon += speed * math.sin(rad) * DEG_PER_M_LAT / math.cos(math.radians(lat))
    ele = min(2500.0, max(-10.0, ele + rng.gauss(0.0, 0.4)))
    return lat, lon, ele, course, speed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the GPX file to write ('-' for standard output)")
    ap.add_argument("--points", "-n", type=int, default=1_000_000, help="track points (default 1,000,000)")
    ap.add_argument("--segments", "-s", type=int, default=0,
                    help="<trkseg> count (default: one per 50,000 points, from 1 to 20)")
    ap.add_argument("--seed", type=int, default=20240512, help="random seed (default 20240512)")
    args = ap.parse_args()
    n = max(0, args.points)
    segments = args.segments if args.segments > 0 else min(20, max(1, n // 50_000))
    segments = min(segments, max(1, n))

    rng = random.Random(args.seed)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")
    started = time.monotonic()

    def stamp(t):
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

    out.write(HEADER.format(n=n, start=stamp(START), seed=args.seed))
    lat, lon, ele = 45.7578137, 4.8320114, 170.0
    course, speed = rng.uniform(0, 360), 6.0
    t = START
    base, extra = divmod(n, segments)
    fmt = POINT.format
    # Minute prefix cache: "YYYY-MM-DDTHH:MM:" changes once every 60 points.
    minute_key, minute_prefix = None, ""
    for s in range(segments):
        count = base + (1 if s < extra else 0)
        out.write("    <trkseg>\n")
        lines = []
        for _ in range(count):
            # 1 s between fixes.
            lat, lon, ele, course, speed = step(rng, lat, lon, ele, course, speed)
            hdop = 0.6 + rng.random() * 1.8
            key = t // 60
            if key != minute_key:
                minute_key = key
                minute_prefix = stamp(key * 60)[:-3]
            ts = "%s%02dZ" % (minute_prefix, t % 60)
            lines.append(fmt(lat, lon, ele, ts, hdop, speed, course))
            t += 1
            if len(lines) >= 4096:
                out.write("".join(lines))
                lines.clear()
        out.write("".join(lines))
        out.write("    </trkseg>\n")
        t += 120 + rng.randrange(600)  # a pause between segments
    out.write(FOOTER)
    if out is not sys.stdout:
        out.close()
    print(f"gen_gpx.py: {n} points in {segments} segments, {time.monotonic() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
