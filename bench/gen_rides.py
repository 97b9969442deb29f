#!/usr/bin/env python3
"""Write a folder of COUNT deterministic GPX 1.1 ride files of N points each, for rides in bulk.

    python3 bench/gen_rides.py [--points N] [--seed K] [--same-name EVERY] COUNT DIR

Standard library only; the same arguments always give the same bytes. DIR is created; the
files are ride-00001.gpx, ride-00002.gpx, ... (the number padded to at least 5 digits).

Each file is one named <trk> of one <trkseg>, written like bench/gen_gpx.py's points (a random
walk at cycling speed around Lyon, 1 fix a second, lat/lon to 7 decimals, <ele>, <time>,
<hdop>, a Garmin TrackPointExtension <speed> and <course>), each ride starting on its own
day. As in real exports many rides share a name: every EVERY-th file (default 3) is called
"Morning Ride", "Lunch Ride" or "Evening Ride" in turn, the others "Ride N". With 0 every
name is different.
"""

import argparse
import os
import random
import sys
import time

from gen_gpx import FOOTER, POINT, START, step

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="FixKit bench/gen_rides.py"
     xmlns="http://www.topografix.com/GPX/1/1"
     xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
  <metadata>
    <time>{start}</time>
  </metadata>
  <trk>
    <name>{name}</name>
    <type>cycling</type>
    <trkseg>
"""

SHARED = ["Morning Ride", "Lunch Ride", "Evening Ride"]


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def ride(number, points, seed, same_name):
    """The text of ride `number` (from 1)."""
    rng = random.Random(seed * 1_000_003 + number)
    if same_name and number % same_name == 0:
        name = SHARED[(number // same_name) % len(SHARED)]
    else:
        name = f"Ride {number}"
    t = START + number * 86400
    parts = [HEADER.format(start=stamp(t), name=name)]
    lat = 45.7578137 + rng.uniform(-0.05, 0.05)
    lon = 4.8320114 + rng.uniform(-0.05, 0.05)
    ele = 170.0 + rng.uniform(0, 100)
    course, speed = rng.uniform(0, 360), 6.0
    for _ in range(points):
        lat, lon, ele, course, speed = step(rng, lat, lon, ele, course, speed)
        parts.append(POINT.format(lat, lon, ele, stamp(t), 0.6 + rng.random() * 1.8, speed, course))
        t += 1
    parts.append("    </trkseg>\n")
    parts.append(FOOTER)
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("count", type=int, help="how many ride files")
    ap.add_argument("dir", help="the folder to write them into (created)")
    ap.add_argument("--points", "-n", type=int, default=1000, help="track points a ride (default 1,000)")
    ap.add_argument("--seed", type=int, default=20240512, help="random seed (default 20240512)")
    ap.add_argument("--same-name", type=int, default=3, metavar="EVERY",
                    help="every EVERY-th ride gets a shared name (default 3; 0: none)")
    args = ap.parse_args()
    started = time.monotonic()
    os.makedirs(args.dir, exist_ok=True)
    width = max(5, len(str(args.count)))
    for number in range(1, args.count + 1):
        path = os.path.join(args.dir, f"ride-{number:0{width}d}.gpx")
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            out.write(ride(number, max(0, args.points), args.seed, args.same_name))
    print(f"gen_rides.py: {args.count} rides of {args.points} points in {args.dir}, "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
