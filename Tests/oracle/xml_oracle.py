#!/usr/bin/env python3
"""An independent reference reader for TCX and KML, for checking gpx2fix.

    python3 xml_oracle.py tcx|kml [--waypoints] FILE  >  fixes.ndjson

Written from gpx2fix(1)'s rules for these formats, not from the Swift source, with the Python
standard library only: xml.etree.ElementTree reads the whole document as a tree (gpx2fix
streams it), and elements are matched by local name, as gpx2fix(1) says.

TCX: every Trackpoint with a Position (LatitudeDegrees, LongitudeDegrees) is a fix, with Time,
AltitudeMeters and Extensions//Speed; trace is the Course's Name, else the file's name; seg is
the index of the Track, counted over the file's activities, or within its course.  Course
points are waypoints.
KML: Placemarks.  gx:Track: the i-th <when> with the i-th <gx:coord> ("lon lat [alt]"), an
empty coord giving no fix; LineString coordinates ("lon,lat[,alt]" separated by white space)
give fixes without time; seg counts a placemark's tracks and line strings from 0 in document
order; trace is the placemark's <name>, else the file's name.  A Point placemark is a
waypoint named after the placemark, with its TimeStamp/when, trace the file's name.
Waypoints are written only when the file has no track point, or with --waypoints (then in
document order).
Exit status 1 when something was skipped (a coordinate out of range or unparsable, a
when/coord count mismatch), else 0.
"""

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

status = 0


def local(tag):
    return tag.rsplit("}", 1)[-1]


def kids(e, name):
    return [c for c in e if local(c.tag) == name]


def kid(e, name):
    k = kids(e, name)
    return k[0] if k else None


def text(e):
    return (e.text or "").strip() if e is not None else ""


def iso(s):
    s = s.strip()
    if not s:
        return None
    try:
        t = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    t = t.astimezone(timezone.utc)
    ms = round(t.microsecond / 1000)
    base = t.strftime("%Y-%m-%dT%H:%M:%S")
    return base + ("Z" if ms == 0 else ".%03dZ" % ms)


def num(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v if v == v and abs(v) != float("inf") else None


def out(fix):
    order = ["time", "lat", "lon", "alt", "speed", "name", "trace", "seg"]
    print(json.dumps({k: fix[k] for k in order if fix.get(k) is not None}))


def bad(msg):
    global status
    status = 1
    print("xml_oracle: " + msg, file=sys.stderr)


def valid(lat, lon):
    return lat is not None and lon is not None and -90 <= lat <= 90 and -180 <= lon <= 180


def tcx(root, fname):
    points = []  # (kind, fix)
    activity_seg = -1

    def point(tp, trace, seg, kind):
        pos = kid(tp, "Position")
        if pos is None:
            return
        lat, lon = num(text(kid(pos, "LatitudeDegrees"))), num(text(kid(pos, "LongitudeDegrees")))
        if not valid(lat, lon):
            bad("bad position")
            return
        fix = {"lat": lat, "lon": lon, "trace": trace}
        t = kid(tp, "Time")
        if t is not None and text(t):
            fix["time"] = iso(text(t))
        a = kid(tp, "AltitudeMeters")
        if a is not None and text(a):
            fix["alt"] = num(text(a))
        ext = kid(tp, "Extensions")
        if ext is not None:
            for e in ext.iter():
                if local(e.tag) == "Speed" and text(e):
                    v = num(text(e))
                    if v is not None and v >= 0:
                        fix["speed"] = v
        if kind == "waypoint":
            n = kid(tp, "Name")
            if n is not None and text(n):
                fix["name"] = text(n)
        else:
            fix["seg"] = seg
        points.append((kind, fix))

    for e in root.iter():
        name = local(e.tag)
        if name == "Activity":
            for lap in kids(e, "Lap"):
                for track in kids(lap, "Track"):
                    activity_seg += 1
                    for tp in kids(track, "Trackpoint"):
                        point(tp, fname, activity_seg, "track")
        elif name == "Course":
            n = kid(e, "Name")
            trace = text(n) or fname
            seg = -1
            for c in e:
                if local(c.tag) == "Track":
                    seg += 1
                    for tp in kids(c, "Trackpoint"):
                        point(tp, trace, seg, "track")
                elif local(c.tag) == "CoursePoint":
                    point(c, trace, None, "waypoint")
    return points


def coord_tuple(s, sep):
    parts = [p for p in (s.split(",") if sep == "," else s.split()) if p != ""]
    if not parts:
        return None
    vals = [num(p) for p in parts]
    if len(parts) not in (2, 3) or any(v is None for v in vals) or not valid(vals[1], vals[0]):
        bad("bad coordinates " + s)
        return None
    fix = {"lon": vals[0], "lat": vals[1]}
    if len(vals) == 3:
        fix["alt"] = vals[2]
    return fix


def kml(root, fname):
    points = []
    for pm in root.iter():
        if local(pm.tag) != "Placemark":
            continue
        n = kid(pm, "name")
        pname = text(n) or None
        seg = -1
        wpt = None
        for g in pm.iter():
            tag = local(g.tag)
            if tag == "Track":
                seg += 1
                whens = [iso(text(w)) if text(w) else None for w in kids(g, "when")]
                coords = [coord_tuple(text(c), " ") for c in kids(g, "coord")]
                for i, c in enumerate(coords):
                    if c is None:
                        continue
                    if i < len(whens) and whens[i]:
                        c["time"] = whens[i]
                    c["trace"] = pname or fname
                    c["seg"] = seg
                    points.append(("track", c))
                if len(whens) != len(coords):
                    bad("count mismatch")
            elif tag == "LineString":
                seg += 1
                co = kid(g, "coordinates")
                for tup in text(co).split():
                    c = coord_tuple(tup, ",")
                    if c is None:
                        continue
                    c["trace"] = pname or fname
                    c["seg"] = seg
                    points.append(("track", c))
            elif tag == "Point" and wpt is None:
                co = kid(g, "coordinates")
                tups = text(co).split()
                if tups:
                    wpt = coord_tuple(tups[0], ",")
        if wpt is not None:
            ts = kid(pm, "TimeStamp")
            if ts is not None and text(kid(ts, "when")):
                wpt["time"] = iso(text(kid(ts, "when")))
            wpt["name"] = pname
            wpt["trace"] = fname
            points.append(("waypoint", wpt))
    return points


def main():
    args = sys.argv[1:]
    fmt = args.pop(0)
    waypoints = "--waypoints" in args
    path = [a for a in args if a != "--waypoints"][0]
    fname = os.path.basename(path)
    if fname.endswith(".gz"):
        fname = fname[:-3]
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        import gzip
        data = gzip.decompress(data)
    # gpx2fix(1): a UTF-8 byte order mark and white space before the first byte are skipped.
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    root = ET.fromstring(data.lstrip(b" \t\r\n"))
    points = tcx(root, fname) if fmt == "tcx" else kml(root, fname)
    has_track = any(k == "track" for k, _ in points)
    for kind, fix in points:
        if kind == "waypoint" and has_track and not waypoints:
            continue
        out(fix)
    sys.exit(status)


main()
