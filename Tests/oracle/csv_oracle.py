#!/usr/bin/env python3
"""Reference reader for gpx2fix's CSV format, written from the CSV section of man/gpx2fix.1
with Python's csv module and str/datetime alone, independently of the Swift code (which
scans bytes in a sliding window; this reads the whole file as text).

Usage: csv_oracle.py FILE

Writes the fixes gpx2fix should write, one JSON object a line, in the fix record's field
order, then on standard error the note about rows without a position, if any. Exit 0; 2 when
no header naming latitude and longitude is found. Bad rows are reported on standard error as
"LINE: bad" (their first line) and skipped.
"""
import csv
import io
import json
import math
import os
import re
import sys
from datetime import datetime, timezone

ORDER = ["time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "cacc",
         "hdop", "vdop", "pdop", "sat", "name", "trace", "seg"]

ROLES = {}
for role, names in {
    "lat": "lat latitude",
    "lon": "lon lng long longitude",
    "ns": "n/s ns",
    "ew": "e/w ew",
    "time": "time timestamp datetime date_time utc_time time_utc utc_t lcl_time iso_time",
    "date": "date utc_date date_utc utc_d lcl_date",
    "offset": "utcofst utc_offset utcoffset",
    "alt": "ele alt altitude elevation height altmsl alt_msl",
    "speed": "speed spd velocity ground_speed groundspeed gndspd",
    "course": "course heading head bearing cog trk",
    "hacc": "accuracy acc hacc accuracy_horizontal horizontal_accuracy",
    "vacc": "vacc accuracy_vertical vertical_accuracy",
    "sat": "sat sats satellites nsat",
    "hdop": "hdop", "vdop": "vdop", "pdop": "pdop", "name": "name",
}.items():
    for n in names.split():
        ROLES[n] = role

EPOCH = {}
for n in "epoch unix unixtime unix_time epoch_time time_epoch timestamp_epoch unix_timestamp timestamp_unix".split():
    EPOCH[n] = "auto"
for n in "epoch_ms unix_ms time_ms timestamp_ms millis time_millis timestamp_millis".split():
    EPOCH[n] = "ms"
for n in "epoch_s unix_s timestamp_s".split():
    EPOCH[n] = "s"

LENGTH = {"m": lambda v: v, "meter": lambda v: v, "meters": lambda v: v, "metre": lambda v: v,
          "metres": lambda v: v, "ft": lambda v: v * 0.3048, "feet": lambda v: v * 0.3048,
          "foot": lambda v: v * 0.3048}
SPEED = {"m/s": lambda v: v, "mps": lambda v: v, "km/h": lambda v: v / 3.6,
         "kmh": lambda v: v / 3.6, "kph": lambda v: v / 3.6, "kmph": lambda v: v / 3.6,
         "mph": lambda v: v * 0.44704, "kt": lambda v: v * 1852 / 3600,
         "kts": lambda v: v * 1852 / 3600, "kn": lambda v: v * 1852 / 3600,
         "knot": lambda v: v * 1852 / 3600, "knots": lambda v: v * 1852 / 3600}
HEADER_SPEED = dict(SPEED, ms=lambda v: v, m_s=lambda v: v, km_h=lambda v: v / 3.6)
ANGLE = {"deg": lambda v: v, "degree": lambda v: v, "degrees": lambda v: v, "°": lambda v: v}
TIME = {"s": "s", "sec": "s", "secs": "s", "seconds": "s", "ms": "ms", "millis": "ms",
        "milliseconds": "ms"}
KIND = {"alt": LENGTH, "hacc": LENGTH, "vacc": LENGTH, "speed": HEADER_SPEED, "course": ANGLE,
        "lat": ANGLE, "lon": ANGLE}
VALUE_KIND = {"alt": LENGTH, "hacc": LENGTH, "vacc": LENGTH, "speed": SPEED, "course": ANGLE}

PAD = " \t\0"
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def normalise(cell):
    name = cell.strip(PAD).lstrip("#").strip(PAD).lower()
    unit = None
    m = re.match(r"^(.*?)\s*[\(\[]([^\(\[]*)[\)\]]$", name)
    if m and ((name.endswith(")") and "(" in name) or (name.endswith("]") and "[" in name)):
        name, unit = m.group(1).strip(), m.group(2).strip()
    for suffix in (" n/s", " e/w"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    name = re.sub(r"[ .\-]+", "_", name)
    return name, unit


class Header:
    def __init__(self, cells, delimiter):
        self.delimiter = delimiter
        self.col = {}
        self.unit = {}
        self.epoch = None
        self.local = False
        names = []
        for i, cell in enumerate(cells):
            name, unit = normalise(cell)
            names.append(name)
            role = ROLES.get(name)
            ep = EPOCH.get(name)
            if ep:
                role = "time"
            if role is None and "_" in name:
                base, suffix = name.rsplit("_", 1)
                r = ROLES.get(base)
                if r and ((r == "time" and suffix in TIME) or suffix in KIND.get(r, {})):
                    role, unit = r, suffix
            if role is None or role in self.col:
                continue
            if unit is not None:
                if role == "time" and unit in TIME:
                    ep = TIME[unit]
                elif unit in KIND.get(role, {}):
                    self.unit[role] = KIND[role][unit]
                elif role in ("alt", "speed", "hacc", "vacc"):
                    continue
            if role == "time":
                self.epoch = ep
                self.local = self.local or name == "lcl_time"
            if role == "date" and name == "lcl_date":
                self.local = True
            self.col[role] = i
        self.ok = "lat" in self.col and "lon" in self.col
        self.header_units = set(self.unit)
        if "speed" not in self.unit and "index" in names and ("rcr" in names or "tag" in names):
            self.unit["speed"] = SPEED["km/h"]
        n = len(names)
        while n > 0 and names[n - 1] == "":
            n -= 1
        self.named = n

    def units_row(self, cells):
        if len(cells) < self.named:
            return
        for role, table in (("alt", LENGTH), ("speed", SPEED)):
            if role in self.header_units or role not in self.col or self.col[role] >= len(cells):
                continue
            words = cells[self.col[role]].strip(PAD).lstrip("#").split()
            if words and words[0].lower() in table:
                self.unit[role] = table[words[0].lower()]


def split(line, delimiter):
    return next(csv.reader([line], delimiter=delimiter))


def find_header(line):
    counts = {}
    quoted = False
    for c in line:
        if c == '"':
            quoted = not quoted
        elif not quoted and c in ",;\t|":
            counts[c] = counts.get(c, 0) + 1
    for d in sorted(counts, key=lambda d: (-counts[d], ",;\t|".index(d))):
        h = Header(split(line, d), d)
        if h.ok:
            return h
    return None


class Bad(Exception):
    pass


def number(text, comma):
    """The leading number of text and the rest, stripped."""
    t = text.replace(",", ".", 1) if comma else text
    m = NUMBER.match(t)
    if not m or not math.isfinite(float(m.group(0))):
        raise Bad()
    return float(m.group(0)), t[m.end():].strip(PAD)


def coordinate(text, pos, neg, comma):
    letter = None
    if text[:1].upper() in (pos, neg):
        letter, text = text[0].upper(), text[1:].strip(PAD)
    v, rest = number(text, comma)
    if rest:
        if letter or len(rest) != 1 or rest.upper() not in (pos, neg):
            raise Bad()
        letter = rest.upper()
    if letter and v < 0:
        raise Bad()
    return -v if letter == neg else v


def quantity(text, table, convert, comma):
    v, rest = number(text, comma)
    if rest:
        if table is None or rest.lower() not in table:
            raise Bad()
        return table[rest.lower()](v)
    return convert(v) if convert else v


def epoch_ms(v, kind):
    ms = kind == "ms" or (kind == "auto" and abs(v) >= 1e11)
    return int(math.floor((v if ms else v * 1000) + 0.5))


def day_ms(t):
    m = re.fullmatch(r"(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?|(\d\d)(\d\d)(\d\d)(?:\.(\d+))?", t)
    if not m:
        raise Bad()
    if m.group(1):
        h, mi, s, f = m.group(1), m.group(2), m.group(3) or "0", m.group(4)
    else:
        h, mi, s, f = m.group(5), m.group(6), m.group(7), m.group(8)
    h, mi, s = int(h), int(mi), int(s)
    if h > 23 or mi > 59 or s > 60:
        raise Bad()
    frac = 0
    if f:
        frac = int((f + "000")[:4])
    return (h * 3600 + mi * 60 + s) * 1000 + (frac + 5) // 10


def days(d):
    for pattern, order in ((r"(\d{4})-(\d\d)-(\d\d)", "ymd"), (r"(\d{4})/(\d\d)/(\d\d)", "ymd"),
                           (r"(\d\d)\.(\d\d)\.(\d{4})", "dmy"), (r"(\d{4})(\d\d)(\d\d)", "ymd"),
                           (r"(\d\d)(\d\d)(\d\d)", "YMD")):
        m = re.fullmatch(pattern, d)
        if m:
            a, b, c = (int(x) for x in m.groups())
            y, mo, da = (c, b, a) if order == "dmy" else (a, b, c)
            if order == "YMD":
                y += 2000
            try:
                return (datetime(y, mo, da, tzinfo=timezone.utc) - datetime(1970, 1, 1, tzinfo=timezone.utc)).days
            except ValueError:
                raise Bad()
    raise Bad()


def rfc3339_ms(t):
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)([.,]\d+)?([Zz]|[+-]\d\d(?::?\d\d)?)?", t)
    if not m:
        return None
    try:
        base = datetime.strptime(m.group(1) + " " + m.group(2).replace(":60", ":59"), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    ms = int((base.replace(tzinfo=timezone.utc) - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()) * 1000
    if m.group(2).endswith(":60"):
        ms += 1000
    if m.group(3):
        ms += (int((m.group(3)[1:] + "000")[:4]) + 5) // 10
    z = m.group(4)
    if z and z not in "Zz":
        digits = z[1:].replace(":", "")
        off = int(digits[:2]) * 3600 + (int(digits[2:4]) * 60 if len(digits) > 2 else 0)
        ms -= off * 1000 * (-1 if z[0] == "-" else 1)
    return ms


def offset_seconds(o):
    if o in ("Z", "z"):
        return 0
    m = re.fullmatch(r"([+-])(\d\d):?(\d\d)?", o)
    if not m:
        raise Bad()
    return (int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60) * (-1 if m.group(1) == "-" else 1)


def fix_time(h, get, comma):
    if h.local and "offset" not in h.col:
        return None
    t, d = get("time"), get("date")
    if h.epoch:
        if not t:
            return None
        v, rest = number(t, comma)
        if rest:
            raise Bad()
        ms = epoch_ms(v, h.epoch)
    elif t:
        ms = rfc3339_ms(t)
        if ms is None:
            if "date" in h.col:
                dm = day_ms(t)
                if not d:
                    return None
                ms = days(d) * 86400000 + dm
            elif NUMBER.fullmatch(t.replace(",", ".", 1) if comma else t):
                ms = epoch_ms(float(t.replace(",", ".", 1) if comma else t), "auto")
            else:
                parts = re.split(r"[ T]", t, maxsplit=1)
                if len(parts) != 2:
                    raise Bad()
                ms = days(parts[0]) * 86400000 + day_ms(parts[1].strip(PAD))
    else:
        return None
    if h.local:
        ms -= offset_seconds(get("offset")) * 1000
    # RFC 3339 writes years 0000 to 9999 only.
    if not -62167219200000 <= ms <= 253402300799999:
        raise Bad()
    return ms


def rfc3339(ms):
    secs, frac = divmod(ms, 1000)
    text = datetime.fromtimestamp(secs, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return text + (".%03dZ" % frac if frac else "Z")


def main():
    path = sys.argv[1]
    data = open(path, "rb").read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # NUL bytes are padding (the Columbus V-900): dropped, as gpx2fix trims them.
    text = data.decode("utf-8", errors="replace").replace("\0", "")
    lines = text.splitlines(keepends=True)
    header = None
    previous = None
    preamble = 0
    start = 0
    for i, line in enumerate(lines):
        if not line.strip(PAD + "\r\n"):
            continue
        body = line.rstrip("\r\n")
        h = find_header(body)
        if h:
            header, start = h, i + 1
            if previous is not None:
                header.units_row(split(previous, h.delimiter))
            break
        if body.startswith("#") and preamble < 8:
            preamble += 1
            previous = body
            continue
        break
    if header is None:
        print("no header", file=sys.stderr)
        return 2
    name = os.path.basename(path)
    if name.endswith(".gz"):
        name = name[:-3]
    comma = header.delimiter != ","
    without = 0
    reader = csv.reader(io.StringIO("".join(lines[start:]), newline=""), delimiter=header.delimiter)
    line_no = start
    for row in reader:
        first = line_no + 1
        line_no = start + reader.line_num
        cells = [c.strip(PAD) for c in row]
        if all(c == "" for c in cells):
            continue

        def get(role):
            i = header.col.get(role)
            return cells[i] if i is not None and i < len(cells) else ""

        try:
            if len(cells) < header.named:
                raise Bad()
            if not get("lat") and not get("lon"):
                without += 1
                continue
            lat = coordinate(get("lat"), "N", "S", comma)
            lon = coordinate(get("lon"), "E", "W", comma)
            for role, v, pos, neg in (("ns", None, "N", "S"), ("ew", None, "E", "W")):
                letter = get(role)
                if letter:
                    if letter.upper() not in (pos, neg):
                        raise Bad()
                    if letter.upper() == neg:
                        if role == "ns":
                            lat = -abs(lat)
                        else:
                            lon = -abs(lon)
            if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                raise Bad()
            fix = {"lat": lat, "lon": lon, "time": fix_time(header, get, comma)}
            for role in ("alt", "speed", "course", "hacc", "vacc", "hdop", "vdop", "pdop"):
                if get(role):
                    fix[role] = quantity(get(role), VALUE_KIND.get(role), header.unit.get(role), comma)
            if fix.get("speed") is not None and fix["speed"] < 0:
                del fix["speed"]
            if fix.get("course") is not None:
                if fix["course"] < 0:
                    del fix["course"]
                else:
                    fix["course"] = math.fmod(fix["course"], 360)
            if get("sat"):
                m = re.match(r"\d+", get("sat"))
                rest = get("sat")[m.end():] if m else None
                if not m or not (rest == "" or rest[0] in "(/ "):
                    raise Bad()
                fix["sat"] = int(m.group(0)[:9])
            if get("name"):
                fix["name"] = get("name")
            fix["trace"] = name
            fix["seg"] = 0
        except Bad:
            print("%d: bad" % first, file=sys.stderr)
            continue
        out = {}
        for k in ORDER:
            v = fix.get(k)
            if v is None:
                continue
            if k == "time":
                v = rfc3339(v)
            elif isinstance(v, float) and v == int(v) and abs(v) < 1e15 and k not in ("lat", "lon"):
                v = float(v)
            out[k] = v
        print(json.dumps(out, ensure_ascii=False, separators=(",", ":")))
    if without:
        print("%d row%s without a position (sensor-only) skipped" % (without, "" if without == 1 else "s"),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
