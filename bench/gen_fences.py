#!/usr/bin/env python3
"""Write a deterministic fences file of N circles, for benchmarking fencerule.

    python3 bench/gen_fences.py [--count N] [--seed K] [--center LAT,LON] [--area-km KM]
                                [--min-radius M] [--max-radius M] OUT.json

Standard library only. The same arguments always give the same bytes.

The file is what `fencerule --fences` reads: a JSON array of {"id", "lat", "lon", "radius"},
one fence a line. The first fence is always at --center, radius 100 m, so that a walk through
the centre passes a fence whatever N is (with N = 1 it is the only one). The others are
spread uniformly, in metres, over a square of --area-km a side around the centre, with radii
uniform from --min-radius to --max-radius (50 to 200 m: shops, car parks, stations). With the
defaults, a million fences over 1000 km x 1000 km are one a square kilometre, about the
density of a large chain's stores and partners across a country; a thousand over the same
square are one per 1000 km².

lat and lon are written to 7 decimals (about 1 cm), radius to 0.1 m. A million fences make
about 67 MB and take two or three seconds to write.
"""

import argparse
import math
import random
import sys

# WGS 84, for the radii of curvature: metres to degrees at each fence's own latitude.
A = 6378137.0
E2 = 6.69437999014e-3


def metres_per_degree(lat):
    s = math.sin(math.radians(lat))
    w = math.sqrt(1 - E2 * s * s)
    meridional = A * (1 - E2) / (w * w * w)
    prime_vertical = A / w
    return math.radians(1) * meridional, math.radians(1) * prime_vertical * math.cos(math.radians(lat))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the JSON file to write ('-' for standard output)")
    ap.add_argument("--count", "-n", type=int, default=1_000_000, help="fences (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=20260101, help="random seed (default 20260101)")
    ap.add_argument("--center", default="47.0,8.0", help="LAT,LON of the square's centre (default 47.0,8.0)")
    ap.add_argument("--area-km", type=float, default=1000.0, help="side of the square, km (default 1000)")
    ap.add_argument("--min-radius", type=float, default=50.0, help="smallest radius, m (default 50)")
    ap.add_argument("--max-radius", type=float, default=200.0, help="largest radius, m (default 200)")
    args = ap.parse_args()
    try:
        clat, clon = (float(v) for v in args.center.split(","))
    except ValueError:
        ap.error(f"--center must be LAT,LON (got {args.center!r})")
    if args.count < 0:
        ap.error("--count must be >= 0")
    if not 0 <= args.min_radius <= args.max_radius:
        ap.error("radii must satisfy 0 <= --min-radius <= --max-radius")
    half = args.area_km * 1000 / 2
    m_lat0, _ = metres_per_degree(clat)
    if abs(clat) + half / m_lat0 >= 89:
        ap.error("the square reaches a pole: choose a smaller --area-km or a lower --center")

    rng = random.Random(args.seed)
    width = len(str(max(1, args.count)))
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="ascii")
    lines = []
    started = False

    def flush():
        nonlocal started
        out.write(("[" if not started else ",\n") + ",\n".join(lines))
        started = True
        lines.clear()

    for k in range(args.count):
        if k == 0:
            lat, lon, radius = clat, clon, 100.0
        else:
            north = rng.uniform(-half, half)
            east = rng.uniform(-half, half)
            lat = clat + north / m_lat0  # close enough: the meridional radius hardly varies
            _, m_lon = metres_per_degree(lat)
            lon = clon + east / m_lon
            lon = (lon + 180) % 360 - 180
            radius = rng.uniform(args.min_radius, args.max_radius)
        lines.append(f'{{"id":"f{k:0{width}d}","lat":{lat:.7f},"lon":{lon:.7f},"radius":{radius:.1f}}}')
        if len(lines) >= 65536:
            flush()
    if lines or not started:
        flush()
    out.write("]\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
