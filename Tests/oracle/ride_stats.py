#!/usr/bin/env python3
"""Independent figures for fixstats.

    ride_stats.py ndjson < fixes.ndjson
        One line per trace, in order of first appearance: {"trace", "distance"}, the sum of
        GeographicLib's WGS 84 geodesic distances (Karney, ~15 nm) between consecutive fixes
        of the trace with the same "seg". `pip install geographiclib`.

    ride_stats.py gpx FILE...
        One line per GPX track (files parsed by gpxpy, not by FixKit): {"file", "track",
        "points", "geodesic" (as above, per <trkseg>), "rises" and "falls" (the plain sums
        of every rise and fall of <ele>, over the track's points in order), and gpxpy's own
        figures: "gpxpy_length_2d", "gpxpy_uphill", "gpxpy_downhill" (after its 3-point
        smoothing), "gpxpy_moving_time" (speed above 1 km/h, 3-D distances, extremes
        dropped), "gpxpy_max_speed"}. `pip install gpxpy geographiclib`.
"""
import json
import sys

from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84


def from_ndjson():
    order, last, dist = [], {}, {}
    for line in sys.stdin:
        if not line.strip():
            continue
        f = json.loads(line)
        t = f.get("trace")
        if t not in dist:
            order.append(t)
            dist[t] = 0.0
        seg = f.get("seg")
        prev = last.get(t)
        if prev is not None and prev[2] == seg:
            dist[t] += G.Inverse(prev[0], prev[1], f["lat"], f["lon"])["s12"]
        last[t] = (f["lat"], f["lon"], seg)
    for t in order:
        print(json.dumps({"trace": t, "distance": dist[t]}))


def from_gpx(paths):
    import gpxpy

    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as fh:
            doc = gpxpy.parse(fh)
        for track in doc.tracks:
            points = [p for s in track.segments for p in s.points]
            if not points:
                continue
            geodesic = 0.0
            for s in track.segments:
                for a, b in zip(s.points, s.points[1:]):
                    geodesic += G.Inverse(a.latitude, a.longitude, b.latitude, b.longitude)["s12"]
            eles = [p.elevation for p in points if p.elevation is not None]
            rises = sum(max(0.0, b - a) for a, b in zip(eles, eles[1:]))
            falls = sum(max(0.0, a - b) for a, b in zip(eles, eles[1:]))
            up, down = track.get_uphill_downhill()
            moving = track.get_moving_data()
            print(json.dumps({
                "file": path, "track": track.name, "points": len(points), "geodesic": geodesic,
                "rises": rises, "falls": falls, "gpxpy_length_2d": track.length_2d(),
                "gpxpy_uphill": up, "gpxpy_downhill": down,
                "gpxpy_moving_time": moving.moving_time if moving else None,
                "gpxpy_max_speed": moving.max_speed if moving else None,
            }))


if __name__ == "__main__":
    if sys.argv[1:2] == ["ndjson"]:
        from_ndjson()
    else:
        from_gpx(sys.argv[2:])
