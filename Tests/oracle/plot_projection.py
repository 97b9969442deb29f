#!/usr/bin/env python3
"""Independent oracle for fixplot's map projection: where a point lies from the picture's
centre, in metres east and north, from GeographicLib's geodesic on WGS 84 (Karney's
algorithms), `pip install geographiclib`. This is the azimuthal equidistant projection about
the centre, which fixplot's local equirectangular projection matches to second order: over a
picture a few kilometres across they agree to millimetres per hundred metres.

Reads lines "lat0 lon0 lat lon" on standard input and writes "east north" for each, in full
precision (repr).
"""
import math
import sys

from geographiclib.geodesic import Geodesic

g = Geodesic.WGS84
out = []
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    lat0, lon0, lat, lon = map(float, parts)
    r = g.Inverse(lat0, lon0, lat, lon)
    azi = math.radians(r["azi1"])
    out.append(f"{r['s12'] * math.sin(azi)!r} {r['s12'] * math.cos(azi)!r}")
sys.stdout.write("\n".join(out) + "\n")
