#!/usr/bin/env python3
"""Reference reader for gpx2fix's JSON formats: GeoJSON, Google location history (Records.json,
Semantic Location History, Timeline.json), OwnTracks (.rec and messages) -- written from the
field tables of man/gpx2fix.1 with Python's json module alone, independently of the Swift code
(which streams; this loads the whole document).

Usage: json_oracle.py FILE [--waypoints]

Writes the fixes gpx2fix should write, one JSON object a line, in the fix record's field
order. Waypoints (GeoJSON Points without time, place visits) are written, as gpx2fix writes
them, only when the file has no track fixes or with --waypoints. Exit 0; 2 when the file is
not one of these formats. Problem lines are not reported: the corpus files have none.
"""
import json
import math
import os
import sys
from datetime import datetime, timezone

ORDER = ["time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "cacc",
         "hdop", "vdop", "pdop", "sat", "name", "trace", "seg"]


def num(v):
    """A JSON number (not a bool), else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def loose(v):
    """A number, or a string holding a plain decimal number."""
    n = num(v)
    if n is not None:
        return n
    if isinstance(v, str) and v and all(c in "+-.0123456789eE" for c in v):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def epoch(v):
    if abs(v) >= 1e11:
        return int(math.floor(v + 0.5))
    return int(math.floor(v * 1000 + 0.5))


def ms_of(v):
    """Milliseconds since 1970 of an RFC 3339 string or of seconds (ms above 1e11)."""
    if isinstance(v, str):
        try:
            t = datetime.fromisoformat(v.replace("z", "Z"))
        except ValueError:
            return epoch(int(v)) if v.isdigit() else None
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        delta = t - datetime(1970, 1, 1, tzinfo=timezone.utc)
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        return (us + 500) // 1000
    n = num(v)
    return epoch(n) if n is not None else None


def rfc3339(ms):
    t = datetime(1970, 1, 1, tzinfo=timezone.utc).timestamp() + 0  # noqa: keep UTC arithmetic explicit
    secs, frac = divmod(ms, 1000)
    text = datetime.fromtimestamp(secs, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return text + (".%03dZ" % frac if frac else "Z")


class Out:
    def __init__(self, waypoints):
        self.waypoints_option = waypoints
        self.track = []
        self.waypoints = []
        self.saw_track = False

    def emit(self, fix, waypoint=False):
        if not (-90 <= fix["lat"] <= 90 and -180 <= fix["lon"] <= 180):
            return
        if waypoint and not self.waypoints_option:
            self.waypoints.append(fix)
            return
        if not waypoint:
            self.saw_track = True
        self.track.append(fix)

    def write(self):
        fixes = self.track if self.saw_track else self.track + self.waypoints
        for f in fixes:
            out = {}
            for k in ORDER:
                v = f.get(k)
                if v is None:
                    continue
                out[k] = rfc3339(v) if k == "time" else v
            print(json.dumps(out, ensure_ascii=False, separators=(",", ":")))


# GeoJSON -------------------------------------------------------------------------------------

def first_number(p, names):
    for n in names:
        v = loose(p.get(n))
        if v is not None:
            return v
    return None


def geojson(doc, name, out):
    if isinstance(doc, list):
        features = doc
    elif doc.get("type") == "Feature":
        features = [doc]
    else:
        features = doc.get("features", doc.get("locations", []))
    next_seg = {}
    for f in features:
        g = f.get("geometry") or {}
        p = f.get("properties") if isinstance(f.get("properties"), dict) else {}
        t = g.get("type")
        if t == "Point":
            c = g["coordinates"]
            fix = {"lon": loose(c[0]), "lat": loose(c[1])}
            for key in ["timestamp", "time", "datetime", "when", "recorded_at", "time_long"]:
                if key in p and p[key] is not None and ms_of(p[key]) is not None:
                    fix["time"] = ms_of(p[key])
                    break
            alt = first_number(p, ["altitude", "ele", "elevation", "height"])
            fix["alt"] = alt if alt is not None else (loose(c[2]) if len(c) > 2 else None)
            fix["hacc"] = first_number(p, ["horizontal_accuracy", "accuracy", "hacc", "acc"])
            fix["vacc"] = first_number(p, ["vertical_accuracy", "vacc", "vac"])
            if fix["vacc"] is not None and fix["vacc"] < 0:
                fix["vacc"] = fix["alt"] = None
            speed = first_number(p, ["speed"])
            if speed is None and first_number(p, ["speed_kmh"]) is not None:
                speed = first_number(p, ["speed_kmh"]) / 3.6
            fix["speed"] = speed if speed is not None and speed >= 0 else None
            course = first_number(p, ["course", "bearing", "heading", "cog"])
            fix["course"] = math.fmod(course, 360) if course is not None and course >= 0 else None
            cacc = first_number(p, ["course_accuracy"])
            fix["cacc"] = cacc if cacc is not None and cacc >= 0 else None
            for k in ["hdop", "vdop", "pdop"]:
                fix[k] = first_number(p, [k])
            sat = first_number(p, ["sat", "satellites"])
            fix["sat"] = int(sat) if sat is not None and sat >= 0 and sat == int(sat) else None
            fix["name"] = p.get("name") if isinstance(p.get("name"), str) else None
            fix["trace"] = name
            for key in ["trace", "device_id", "deviceId", "device", "tid"]:
                if isinstance(p.get(key), str) and p[key]:
                    fix["trace"] = p[key]
                    break
            out.emit(fix, waypoint="time" not in fix)
        elif t in ("LineString", "MultiLineString"):
            lines = [g["coordinates"]] if t == "LineString" else g["coordinates"]
            times = p.get("coordTimes")
            if times is None:
                times = (p.get("coordinateProperties") or {}).get("times")
            if times is not None and t == "LineString":
                times = [times]
            trace = p.get("name") if isinstance(p.get("name"), str) and p.get("name") else name
            for k, line in enumerate(lines):
                seg = next_seg.get(trace or "", 0)
                next_seg[trace or ""] = seg + 1
                for i, c in enumerate(line):
                    fix = {"lon": loose(c[0]), "lat": loose(c[1]), "alt": loose(c[2]) if len(c) > 2 else None,
                           "trace": trace, "seg": seg}
                    if times is not None and times[k][i] is not None:
                        fix["time"] = ms_of(times[k][i])
                    out.emit(fix)


# Google location history ----------------------------------------------------------------------

def e7(lat, lon):
    if lat > 900000000:
        lat -= 2 ** 32
    if lon > 1800000000:
        lon -= 2 ** 32
    return lat / 1e7, lon / 1e7


def records(doc, name, out):
    devices = []
    for loc in doc["locations"]:
        if "latitudeE7" not in loc or "longitudeE7" not in loc:
            continue
        lat, lon = e7(loc["latitudeE7"], loc["longitudeE7"])
        fix = {"lat": lat, "lon": lon}
        if "timestamp" in loc:
            fix["time"] = ms_of(loc["timestamp"])
        elif "timestampMs" in loc:
            fix["time"] = int(loc["timestampMs"])
        fix["hacc"] = num(loc.get("accuracy"))
        fix["alt"] = num(loc.get("altitude"))
        fix["vacc"] = num(loc.get("verticalAccuracy"))
        v = num(loc.get("velocity"))
        fix["speed"] = v if v is not None and v >= 0 else None
        h = num(loc.get("heading"))
        fix["course"] = math.fmod(h, 360) if h is not None and h >= 0 else None
        tag = loc.get("deviceTag")
        fix["trace"] = name
        if tag is not None:
            if not devices:
                devices.append(tag)
            if tag != devices[0]:
                fix["trace"] = "%s (device %d)" % (name, tag)
        out.emit(fix)


def e7_fix(loc, time, **more):
    if not isinstance(loc, dict):
        return None
    lat = loc.get("latitudeE7", loc.get("latE7"))
    lon = loc.get("longitudeE7", loc.get("lngE7"))
    if lat is None or lon is None:
        return None
    la, lo = e7(lat, lon)
    fix = {"lat": la, "lon": lo, "time": ms_of(time) if time is not None else None}
    fix.update(more)
    return fix


def semantic(doc, name, out):
    for obj in doc["timelineObjects"]:
        if "activitySegment" in obj:
            a = obj["activitySegment"]
            d = a.get("duration", {})
            for fix in [e7_fix(a.get("startLocation"), d.get("startTimestamp"), trace=name)]:
                if fix:
                    out.emit(fix)
            for pt in (a.get("simplifiedRawPath") or {}).get("points", []):
                fix = e7_fix(pt, pt.get("timestamp", pt.get("timestampMs")), hacc=num(pt.get("accuracyMeters")), trace=name)
                if fix:
                    out.emit(fix)
            fix = e7_fix(a.get("endLocation"), d.get("endTimestamp"), trace=name)
            if fix:
                out.emit(fix)
        elif "placeVisit" in obj:
            v = obj["placeVisit"]
            loc = v.get("location") or {}
            fix = e7_fix(loc, (v.get("duration") or {}).get("startTimestamp"), trace=name,
                         name=loc.get("name", loc.get("address")))
            if fix:
                out.emit(fix, waypoint=True)
            for pt in (v.get("simplifiedRawPath") or {}).get("points", []):
                fix = e7_fix(pt, pt.get("timestamp", pt.get("timestampMs")), hacc=num(pt.get("accuracyMeters")), trace=name)
                if fix:
                    out.emit(fix)


def latlng(text):
    text = text[4:] if text.startswith("geo:") else text
    a, b = text.split(",")
    return float(a.strip().rstrip("°")), float(b.strip().rstrip("°"))


def timeline(segments, signals, name, out):
    for s in segments:
        start = ms_of(s["startTime"]) if "startTime" in s else None
        for p in s.get("timelinePath", []):
            lat, lon = latlng(p["point"])
            t = ms_of(p["time"]) if "time" in p else None
            if t is None and start is not None and "durationMinutesOffsetFromStartTime" in p:
                t = start + int(math.floor(float(p["durationMinutesOffsetFromStartTime"]) * 60000 + 0.5))
            out.emit({"lat": lat, "lon": lon, "time": t, "trace": name})
        cand = (s.get("visit") or {}).get("topCandidate")
        if cand is not None and "placeLocation" in cand:
            loc = cand["placeLocation"]
            text = loc.get("latLng") if isinstance(loc, dict) else loc
            lat, lon = latlng(text)
            kind = cand.get("semanticType")
            out.emit({"lat": lat, "lon": lon, "time": start, "trace": name,
                      "name": None if kind is None or kind.upper() == "UNKNOWN" else kind}, waypoint=True)
    for r in signals:
        p = r.get("position")
        if p is None:
            continue
        lat, lon = latlng(p.get("LatLng", p.get("latLng")))
        sp = num(p.get("speedMetersPerSecond"))
        out.emit({"lat": lat, "lon": lon, "time": ms_of(p["timestamp"]) if "timestamp" in p else None,
                  "alt": num(p.get("altitudeMeters")), "hacc": num(p.get("accuracyMeters")),
                  "speed": sp if sp is not None and sp >= 0 else None, "trace": name + " (rawSignals)"})


# OwnTracks ----------------------------------------------------------------------------------

def owntracks_message(m, name, out):
    if not isinstance(m, dict) or m.get("_type") != "location":
        return
    fix = {"lat": float(m["lat"]), "lon": float(m["lon"])}
    if "tst" in m:
        fix["time"] = ms_of(m["tst"])
    fix["hacc"] = num(m.get("acc"))
    fix["alt"] = num(m.get("alt"))
    fix["vacc"] = num(m.get("vac"))
    if fix["vacc"] is not None and fix["vacc"] < 0:
        fix["vacc"] = fix["alt"] = None
    vel = num(m.get("vel"))
    fix["speed"] = vel / 3.6 if vel is not None and vel >= 0 else None
    cog = num(m.get("cog"))
    fix["course"] = math.fmod(cog, 360) if cog is not None and cog >= 0 else None
    fix["trace"] = next((t for t in (m.get("tid"), m.get("topic")) if isinstance(t, str) and t), name)
    out.emit(fix)


def main():
    args = [a for a in sys.argv[1:] if a != "--waypoints"]
    path = args[0]
    name = os.path.basename(path)
    if name.endswith(".gz"):
        name = name[:-3]
    out = Out("--waypoints" in sys.argv[1:])
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        import gzip
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8-sig")
    stripped = text.lstrip()
    if stripped[:1].isdigit():
        for line in text.splitlines():
            if line.strip():
                owntracks_message(json.loads(line[line.index("{"):]), name, out)
        out.write()
        return 0
    try:
        doc = json.loads(text)
        docs = None
    except json.JSONDecodeError:
        # Messages one after another (one a line).
        dec = json.JSONDecoder()
        docs, i = [], 0
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            if i == len(text):
                break
            d, i = dec.raw_decode(text, i)
            docs.append(d)
        doc = docs[0]
    first = doc[0] if isinstance(doc, list) and doc else doc
    if isinstance(first, dict) and "_type" in first:
        for d in docs or [doc]:
            for m in (d if isinstance(d, list) else [d]):
                owntracks_message(m, name, out)
    elif isinstance(doc, dict) and ("timelineObjects" in doc):
        semantic(doc, name, out)
    elif isinstance(doc, dict) and ("semanticSegments" in doc or "rawSignals" in doc):
        timeline(doc.get("semanticSegments", []), doc.get("rawSignals", []), name, out)
    elif isinstance(doc, list) and isinstance(first, dict) and ("startTime" in first or "endTime" in first):
        timeline(doc, [], name, out)
    elif isinstance(doc, dict) and "locations" in doc and (not doc["locations"] or "latitudeE7" in doc["locations"][0]
                                                          or "timestamp" in doc["locations"][0]
                                                          or "timestampMs" in doc["locations"][0]):
        records(doc, name, out)
    elif isinstance(doc, (dict, list)):
        geojson(doc, name, out)
    else:
        print("json_oracle: %s: not a JSON format of gpx2fix" % path, file=sys.stderr)
        return 2
    out.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
