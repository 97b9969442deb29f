#!/usr/bin/env python3
"""Independent oracle for Geodesy.distance: GeographicLib's geodesic on WGS 84 (Karney's
algorithms, accurate to about 15 nm), `pip install geographiclib`.

Reads lines on standard input, one pair each:
    D lat1 lon1 azi1 s12     the point s12 metres from (lat1, lon1) at azimuth azi1 (Direct)
    I lat1 lon1 lat2 lon2    the pair as given
and writes "lat1 lon1 lat2 lon2 s12" in full precision (repr): for D lines lat2/lon2 are
Direct's end point and s12 the Inverse distance between the printed (exactly representable)
coordinates, so that the caller measures the very same pair.
"""
import sys

from geographiclib.geodesic import Geodesic

g = Geodesic.WGS84
out = []
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    kind, a, b, c, d = parts[0], *map(float, parts[1:5])
    if kind == "D":
        r = g.Direct(a, b, c, d)
        lat2, lon2 = r["lat2"], r["lon2"]
    else:
        lat2, lon2 = c, d
    s12 = g.Inverse(a, b, lat2, lon2)["s12"]
    out.append(f"{a!r} {b!r} {lat2!r} {lon2!r} {s12!r}")
sys.stdout.write("\n".join(out) + "\n")
