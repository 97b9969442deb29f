#!/usr/bin/env python3
"""An independent reference reader for NMEA 0183 logs, for checking gpx2fix.

    python3 nmea_oracle.py FILE [--date YYYY-MM-DD] [--uere M]  >  fixes.ndjson

It is written from gpx2fix's NMEA rules (the brief, and SPEC.md "The fix record" and
"gpx2fix"), not from the Swift source.  pynmea2 splits each sentence into its talker, type
and named fields; the values are then read and checked here, strictly, so that what counts
as "malformed" is decided by the rules below and not by pynmea2's lenient converters.

Output: one fix per line, NDJSON, fields in the contract's order.  Standard error: at most
one note that the log gives no date, and at most one summary of dropped sentences, each as
`nmea_oracle: FILE: message`.  Exit 0 (dropped sentences are noise that NMEA expects);
1 when the file cannot be read; 2 for bad usage.

The rules, as read here (each step below says which rule it implements):

* Framing: a sentence runs from each '$' to the next '$' or '!' or the end of the line;
  a line ends at LF, CR, CRLF or CR CR LF (any CR or LF ends it).  Sentences starting
  with '!' (AIS) are ignored; so is an empty sentence (the "$$" of ST Teseo logs).
* Checksum: `*HH` at the end (hex, either case).  Wrong -> dropped and counted as "bad
  checksum"; missing -> accepted.  A '*' not followed by exactly two hex digits at the end
  (`*7`, or text run on after the checksum) counts as a bad checksum too.
* Types: RMC, GGA, GNS, GLL, VTG, GSA, GST, ZDA from any two-character talker.
  Proprietary ($P...), unknown types and text that pynmea2 cannot frame are ignored.
* Epochs: sentences sharing a UTC time are merged into one epoch, also when a sentence of
  the next epoch comes between them (a sentence may be one epoch late).  RMC, GGA, GNS,
  GLL (and GST, ZDA, which also carry the UTC time of the fix) join the last epoch or the
  one before it when it has their time, else open a new epoch; VTG and GSA carry no time
  and attach to the epoch of the last sentence with a time (and are dropped before the
  first one).  A sentence whose time field is empty is treated like VTG/GSA.
* Validity: RMC needs status A and a mode (field 12, if present) other than N; GGA a
  quality other than 0/empty; GNS a mode that is not all N; GLL status A and mode not N.
  A void sentence gives no position and no fix field, but its time still opens or
  continues an epoch, and a void RMC's date still dates it (the receiver knows the UTC
  date before it has a position; "void sentences give nothing" is read as "no fix").
  GGA quality 7 (manual input) and 8 (simulator) are not measurements: they give nothing
  and are counted ("not measured").  The most precise valid position of the epoch (the
  most decimal places in latitude and longitude together) wins, the first one on a tie;
  an epoch without one gives no fix.
* Fields, first value in the epoch wins: alt (GGA/GNS MSL altitude), speed (RMC knots, or
  VTG knots else VTG km/h, in m/s), course (RMC/VTG true course, mod 360), hdop (GGA/GNS,
  else GSA), pdop/vdop (GSA, skipped whole when its fix type is 1), sat (GGA/GNS),
  hacc = sqrt(σlat² + σlon²) and vacc = σalt from GST; without a GST hacc, --uere M gives
  hacc = hdop × M.  trace = the file's base name.
* Malformed (dropped and counted): a used sentence cut short before the last field read
  here, or whose time, date, coordinates or a numeric field does not parse or is out of
  range ("bad coordinates etc.", read strictly: a bad field spoils the whole sentence).
* Dates: from RMC ddmmyy (yy 80-99 -> 19yy, else 20yy) or ZDA dd,mm,yyyy, first in the
  epoch.  An RMC date that cannot be read (not six digits, or no such day) is no date, and
  the rest of the RMC is used.  An epoch without one takes the last date, +1 day when its time of day is more
  than 12 h earlier than the previous epoch's.  Epochs before the first date are dated
  backwards from it (-1 day when, going back, the time of day is more than 12 h later than
  the following epoch's); with --date, only while fewer than 10 fixes wait for it, else
--date dates the log from its start.  No date at all: --date gives the first epoch's date; without
  it the fixes have no time and one note goes to stderr.
* Times: two fixes of one trace never share a time (SPEC).  A fix whose time is that of a
  fix written before it (the log's time went back, or a sentence came more than one epoch
  late) is skipped: the first fix of a time is kept.  (Kept here in a set of every time
  written; gpx2fix keeps the last 4096 and skips what goes back further, which no corpus
  log does.)
"""

import datetime
import json
import math
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

try:
    import pynmea2
except ImportError:  # the Swift test checks this first and skips with a message
    sys.stderr.write("nmea_oracle: pynmea2 is not installed (pip install pynmea2)\n")
    sys.exit(3)

TOOL = "nmea_oracle"

# Field order of the fix record (SPEC.md, "The fix record").
FIELD_ORDER = [
    "time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "cacc",
    "hdop", "vdop", "pdop", "sat", "name", "trace", "seg",
]

# The sentence types that contribute to a fix; everything else is ignored.
USED_TYPES = {"RMC", "GGA", "GNS", "GLL", "VTG", "GSA", "GST", "ZDA"}

# How many fields (after the address) each used type must have at least: up to the last
# field read here.  Shorter is a sentence cut short (e.g. "$GPGGA,030130" in triton400).
MINIMUM_FIELDS = {"RMC": 9, "GGA": 9, "GNS": 9, "GLL": 6, "VTG": 7, "GSA": 17, "GST": 8, "ZDA": 4}

KNOT = 1852.0 / 3600.0          # m/s per knot
KMH = 1000.0 / 3600.0           # m/s per km/h
DAY_MS = 86_400_000
HALF_DAY_MS = 43_200_000

# A plain decimal number as NMEA writes it: optional sign, digits, optional fraction.
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
# hhmmss with an optional fraction.
TIME = re.compile(r"(\d\d)(\d\d)(\d\d)(?:\.(\d*))?")
# (d)ddmm.mmmm: whole degrees, then two digits of whole minutes, then the fraction.
LATITUDE = re.compile(r"(\d{1,2})(\d\d(?:\.\d*)?)")
LONGITUDE = re.compile(r"(\d{1,3})(\d\d(?:\.\d*)?)")
CHECKSUM = re.compile(r"(.*)\*([0-9A-Fa-f]{2})", re.S)


class Malformed(Exception):
    """A used sentence with a value that cannot be read: dropped and counted."""


# ---------------------------------------------------------------------------------------
# Framing

def sentences(text):
    """Yields the text of each '$' sentence (without the '$'), in file order.

    Any CR or LF ends a line, so LF, CRLF, CR-only and CR CR LF files all split the same
    way.  Within a line, each '$' or '!' starts a new sentence that runs to the next one.
    """
    for line in re.split(r"[\r\n]", text):
        starts = [i for i, c in enumerate(line) if c in "$!"]
        for k, i in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(line)
            if line[i] == "!":
                continue                      # AIS (!AIVDM ...): not ours
            body = line[i + 1:end].rstrip(" \t")
            if body:
                yield body


def check(body):
    """Returns (ok, payload): ok is False when the checksum is wrong.

    A '*' that is not followed by exactly two hex digits at the end (a checksum cut short,
    like `*7`, or text run on after it) is a checksum that does not match either.
    """
    m = CHECKSUM.fullmatch(body)
    if m:
        payload, given = m.group(1), int(m.group(2), 16)
        actual = 0
        for c in payload:
            actual ^= ord(c)
        return actual == given, payload
    if "*" in body:
        return False, body
    return True, body                         # no checksum: accepted


# ---------------------------------------------------------------------------------------
# Field readers (strict; '' means absent)

def raw(msg, name):
    """The raw text of a named field of a pynmea2 sentence, '' when the field is missing."""
    i = type(msg).name_to_idx[name]
    return msg.data[i].strip() if i < len(msg.data) else ""


def number(text, what):
    if text == "":
        return None
    if not NUMBER.fullmatch(text):
        raise Malformed(f"{what} {text!r} is not a number")
    return float(text)


def integer(text, what):
    if text == "":
        return None
    if not re.fullmatch(r"\d+", text):
        raise Malformed(f"{what} {text!r} is not a whole number")
    return int(text)


def time_of_day(text):
    """hhmmss[.sss] -> milliseconds since midnight (rounded to the ms), None when empty."""
    if text == "":
        return None
    m = TIME.fullmatch(text)
    if not m:
        raise Malformed(f"time {text!r}")
    h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if h > 23 or mi > 59 or s > 59:
        raise Malformed(f"time {text!r} out of range")
    fraction = Decimal("0." + (m.group(4) or "0"))
    ms = int((fraction * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return ((h * 60 + mi) * 60 + s) * 1000 + ms


def coordinate(value, hemisphere, pattern, limit, positive, negative, what):
    """ddmm.mmmm + N/S (or dddmm.mmmm + E/W) -> signed degrees; None when both are empty."""
    if value == "" and hemisphere == "":
        return None
    m = pattern.fullmatch(value)
    if not m or hemisphere not in (positive, negative):
        raise Malformed(f"{what} {value!r} {hemisphere!r}")
    degrees, minutes = int(m.group(1)), float(m.group(2))
    if minutes >= 60:
        raise Malformed(f"{what} {value!r}: minutes >= 60")
    result = degrees + minutes / 60.0
    if result > limit:
        raise Malformed(f"{what} {value!r} out of range")
    return -result if hemisphere == negative else result


def decimals(text):
    """Decimal places of a coordinate field: how precise it is."""
    return len(text.partition(".")[2])


def position(msg):
    """(lat, lon, decimal places of both fields together)."""
    lat = coordinate(raw(msg, "lat"), raw(msg, "lat_dir"), LATITUDE, 90, "N", "S", "latitude")
    lon = coordinate(raw(msg, "lon"), raw(msg, "lon_dir"), LONGITUDE, 180, "E", "W", "longitude")
    if lat is None or lon is None:
        # Valid status but no coordinates: nothing usable in it.
        raise Malformed("a valid sentence without coordinates")
    return lat, lon, decimals(raw(msg, "lat")) + decimals(raw(msg, "lon"))


def rmc_date(text):
    """ddmmyy -> date; yy 80-99 is 19yy, 00-79 is 20yy."""
    if text == "":
        return None
    if not re.fullmatch(r"\d{6}", text):
        return None                           # garbled (gpsd's april6_2019.log: "2208-1")
    d, mo, yy = int(text[0:2]), int(text[2:4]), int(text[4:6])
    try:
        return datetime.date(1900 + yy if yy >= 80 else 2000 + yy, mo, d)
    except ValueError:
        return None                           # no such day


def zda_date(day, month, year):
    if day == "" and month == "" and year == "":
        return None
    if not (re.fullmatch(r"\d{1,2}", day) and re.fullmatch(r"\d{1,2}", month) and re.fullmatch(r"\d{4}", year)):
        raise Malformed(f"ZDA date {day!r} {month!r} {year!r}")
    try:
        return datetime.date(int(year), int(month), int(day))
    except ValueError:
        raise Malformed(f"ZDA date {day!r} {month!r} {year!r}")


def course_of(text):
    value = number(text, "course")
    return None if value is None else value % 360.0


def mode_ok(text):
    """RMC/GLL mode indicator (optional): anything but N."""
    return text.upper() != "N"


# ---------------------------------------------------------------------------------------
# What one sentence contributes: (time ms or None, {key: value}).  Keys: date, pos, alt,
# speed, course, hdop_fix (GGA/GNS), hdop_gsa, pdop, vdop, sat, gst_hacc, gst_vacc.

def contribution(msg):
    kind = msg.sentence_type.upper()
    out = {}
    if kind == "RMC":
        t = time_of_day(raw(msg, "timestamp"))
        valid = raw(msg, "status").upper() == "A" and mode_ok(raw(msg, "mode_indicator"))
        # Read everything, so that a malformed field drops the sentence either way.
        date = rmc_date(raw(msg, "datestamp"))
        speed = number(raw(msg, "spd_over_grnd"), "speed")
        course = course_of(raw(msg, "true_course"))
        # The date is the epoch's, and a receiver knows the UTC date before it has a
        # position: a void RMC still dates its epoch (but gives no fix values).
        out["date"] = date
        if valid:
            out["pos"] = position(msg)
            out["speed"] = None if speed is None else speed * KNOT
            out["course"] = course
        return t, out
    if kind == "GGA":
        t = time_of_day(raw(msg, "timestamp"))
        quality = integer(raw(msg, "gps_qual"), "fix quality")
        sat = integer(raw(msg, "num_sats"), "satellites")
        hdop = number(raw(msg, "horizontal_dil"), "HDOP")
        alt = number(raw(msg, "altitude"), "altitude")
        if quality in (7, 8):                 # manual input, simulator: not measurements
            return t, NOT_MEASURED
        if quality:                           # not 0 and not empty
            out.update(pos=position(msg), alt=alt, sat=sat, hdop_fix=hdop)
        return t, out
    if kind == "GNS":
        t = time_of_day(raw(msg, "timestamp"))
        mode = raw(msg, "mode_indicator").upper()
        sat = integer(raw(msg, "num_sats"), "satellites")
        hdop = number(raw(msg, "hdop"), "HDOP")
        alt = number(raw(msg, "altitude"), "altitude")
        if mode and any(c != "N" for c in mode):
            out.update(pos=position(msg), alt=alt, sat=sat, hdop_fix=hdop)
        return t, out
    if kind == "GLL":
        t = time_of_day(raw(msg, "timestamp"))
        if raw(msg, "status").upper() == "A" and mode_ok(raw(msg, "faa_mode")):
            out["pos"] = position(msg)
        return t, out
    if kind == "VTG":
        course = course_of(raw(msg, "true_track"))
        knots = number(raw(msg, "spd_over_grnd_kts"), "speed (knots)")
        kmh = number(raw(msg, "spd_over_grnd_kmph"), "speed (km/h)")
        out["course"] = course
        out["speed"] = knots * KNOT if knots is not None else (kmh * KMH if kmh is not None else None)
        return None, out
    if kind == "GSA":
        fix_type = raw(msg, "mode_fix_type")
        pdop = number(raw(msg, "pdop"), "PDOP")
        hdop = number(raw(msg, "hdop"), "HDOP")
        vdop = number(raw(msg, "vdop"), "VDOP")
        if fix_type != "1":
            out.update(pdop=pdop, hdop_gsa=hdop, vdop=vdop)
        return None, out
    if kind == "GST":
        t = time_of_day(raw(msg, "timestamp"))
        slat = number(raw(msg, "std_dev_latitude"), "σlat")
        slon = number(raw(msg, "std_dev_longitude"), "σlon")
        salt = number(raw(msg, "std_dev_altitude"), "σalt")
        if slat is not None and slon is not None:
            out["gst_hacc"] = math.sqrt(slat * slat + slon * slon)
        out["gst_vacc"] = salt
        return t, out
    if kind == "ZDA":
        t = time_of_day(raw(msg, "timestamp"))
        out["date"] = zda_date(raw(msg, "day"), raw(msg, "month"), raw(msg, "year"))
        return t, out
    raise AssertionError(kind)


# What a GGA of quality 7 or 8 contributes: nothing, and it is counted.
NOT_MEASURED = {}


class Epoch:
    def __init__(self, time_ms):
        self.time = time_ms
        self.values = {}
        self.date = None  # the resolved date, after the dating pass

    def has_fix(self):
        """Whether the epoch gives a fix (a valid position)."""
        return "pos" in self.values

    def merge(self, values):
        for key, value in values.items():
            if value is None:
                continue
            if key == "pos":
                # The most precise position wins, the first one on a tie.
                if key not in self.values or value[2] > self.values[key][2]:
                    self.values[key] = value
            elif key not in self.values:      # first value wins
                self.values[key] = value


# ---------------------------------------------------------------------------------------

def read(text):
    """Returns (epochs, counts) for the text of a log."""
    counts = {"total": 0, "bad": 0, "malformed": 0, "not_measured": 0}
    epochs = []
    current = None
    for body in sentences(text):
        good, payload = check(body)
        if not good:
            counts["total"] += 1
            counts["bad"] += 1
            continue
        try:
            msg = pynmea2.NMEASentence.parse("$" + payload)
        except pynmea2.ParseError:
            continue                          # not a sentence pynmea2 can frame: not ours
        counts["total"] += 1
        kind = msg.sentence_type.upper() if isinstance(msg, pynmea2.TalkerSentence) else None
        if kind not in USED_TYPES:
            continue                          # proprietary, GSV, TXT, ... : ignored
        try:
            if len(msg.data) < MINIMUM_FIELDS[kind]:
                raise Malformed(f"{kind} cut short after {len(msg.data)} fields")
            t, values = contribution(msg)
        except Malformed:
            counts["malformed"] += 1
            continue
        if values is NOT_MEASURED:
            counts["not_measured"] += 1
        if t is not None:
            # The last epoch or the one before it (a sentence one epoch late), else a new one.
            current = next((e for e in epochs[-2:] if e.time == t), None)
            if current is None:
                current = Epoch(t)
                epochs.append(current)
        elif current is None:
            continue                          # VTG/GSA before any time: nowhere to go
        current.merge(values)
    return epochs, counts


# With --date, at most this many fixes wait for the log's own first date; when more would,
# --date dates them (a live feed is not held back for long).
HOLD_WITH_DATE = 10


def assign_dates(epochs, start_date):
    """Dates every epoch (see the module docstring); False when there is no date at all."""
    first = next((i for i, e in enumerate(epochs) if "date" in e.values), None)
    if start_date is not None and epochs:
        waiting = sum(1 for e in epochs[:first] if e.has_fix()) if first is not None else HOLD_WITH_DATE
        if first is None or waiting >= HOLD_WITH_DATE:
            # --date dates the log from its start; a date in the log later takes over.
            if first is None or first > 0:
                epochs[0].values["date"] = start_date
                first = 0
    if first is None:
        return False
    # Forward from the first date.
    day = epochs[first].values["date"]
    epochs[first].date = day
    previous = epochs[first].time
    for e in epochs[first + 1:]:
        if "date" in e.values:
            day = e.values["date"]
        elif e.time < previous - HALF_DAY_MS:
            day += datetime.timedelta(days=1)     # past midnight
        e.date = day
        previous = e.time
    # Backwards before the first date.
    day = epochs[first].date
    following = epochs[first].time
    for e in reversed(epochs[:first]):
        if e.time > following + HALF_DAY_MS:
            day -= datetime.timedelta(days=1)     # back across midnight
        e.date = day
        following = e.time
    return True


def rfc3339(day, ms):
    seconds, millis = divmod(ms, 1000)
    h, rest = divmod(seconds, 3600)
    mi, s = divmod(rest, 60)
    text = f"{day.isoformat()}T{h:02d}:{mi:02d}:{s:02d}"
    return text + (f".{millis:03d}Z" if millis else "Z")


def fixes(epochs, trace, uere, dated):
    written = set()                           # (date, time of day) of every fix written
    for e in epochs:
        v = e.values
        if "pos" not in v:
            continue                          # no valid position: no fix
        fix = {}
        if dated:
            if (e.date, e.time) in written:
                continue                      # a fix of this time was written: the first wins
            written.add((e.date, e.time))
            fix["time"] = rfc3339(e.date, e.time)
        fix["lat"], fix["lon"], _ = v["pos"]
        hdop = v.get("hdop_fix", v.get("hdop_gsa"))
        hacc = v.get("gst_hacc")
        if hacc is None and uere is not None and hdop is not None:
            hacc = hdop * uere
        for key, value in (("alt", v.get("alt")), ("hacc", hacc), ("vacc", v.get("gst_vacc")),
                           ("speed", v.get("speed")), ("course", v.get("course")),
                           ("hdop", hdop), ("vdop", v.get("vdop")), ("pdop", v.get("pdop")),
                           ("sat", v.get("sat"))):
            if value is not None:
                fix[key] = value
        fix["trace"] = trace
        yield {k: fix[k] for k in FIELD_ORDER if k in fix}


def usage(message):
    sys.stderr.write(f"{TOOL}: {message}\nusage: {TOOL} FILE [--date YYYY-MM-DD] [--uere M]\n")
    sys.exit(2)


def main(argv):
    path, start_date, uere = None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--date", "--uere"):
            if i + 1 >= len(argv):
                usage(f"{a} needs a value")
            value = argv[i + 1]
            i += 2
            if a == "--date":
                try:
                    start_date = datetime.date.fromisoformat(value)
                except ValueError:
                    usage(f"--date {value!r} is not YYYY-MM-DD")
            else:
                if not NUMBER.fullmatch(value):
                    usage(f"--uere {value!r} is not a number")
                uere = float(value)
            continue
        if path is not None:
            usage("one FILE only")
        path = a
        i += 1
    if path is None:
        usage("no FILE")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        sys.stderr.write(f"{TOOL}: {path}:0: cannot read: {error.strerror}\n")
        return 1
    # Latin-1 keeps one character per byte, so binary noise cannot fail the decoding.
    epochs, counts = read(data.decode("latin-1"))
    dated = assign_dates(epochs, start_date)
    out = sys.stdout
    for fix in fixes(epochs, os.path.basename(path), uere, dated):
        out.write(json.dumps(fix, ensure_ascii=False, separators=(",", ":")) + "\n")
    if not dated and any("pos" in e.values for e in epochs):
        sys.stderr.write(f"{TOOL}: {path}: the log gives no date: fixes written without time\n")
    if counts["bad"] or counts["malformed"] or counts["not_measured"]:
        sys.stderr.write(
            f"{TOOL}: {path}: {counts['bad']} with a bad checksum, {counts['malformed']} malformed "
            f"and {counts['not_measured']} not measured of {counts['total']} NMEA sentences dropped\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:                   # `nmea_oracle.py LOG | head`: end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
