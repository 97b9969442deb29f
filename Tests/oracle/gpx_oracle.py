#!/usr/bin/env python3
"""An independent reference reader for GPX, for checking gpx2fix.

    python3 gpx_oracle.py [--waypoints] FILE.gpx  >  fixes.ndjson

It is written from the rules in the brief and SPEC.md ("The fix record", "gpx2fix"), not
from the Swift source, and uses the Python standard library only (xml.sax over expat).
Output: one fix per line, NDJSON, fields in the contract's order.  Problems go to standard
error as `gpx_oracle: FILE:LINE: message`; the exit status is 1 when any input was skipped
or dropped (a point without usable coordinates, a value that does not parse, XML that is not
well formed) and 0 otherwise.

Rules, as read here (the comments at each step say which rule they implement):

* GPX elements are those in the GPX 1.0 or 1.1 namespace, in no namespace, or in the
  namespace of the root <gpx> element, whatever it is.  Anything else (for example the
  style elements of style.gpx, which re-declare the default xmlns) is not GPX.
* Points: <trkpt> inside a <trk>, <rtept> inside a <rte>, and <wpt>, in document order.
  Waypoints are written only when the file has no <trkpt>/<rtept> point at all, or with
  --waypoints (then in document order with the others).
* trace: the trk's / rte's direct child <name>, trimmed, when non-empty and seen before
  the point; else the file's base name.  Waypoints: the file's base name.
* Two recordings never share a trace (SPEC): each <trk> and <rte> is a recording, and the
  waypoints one more.  The first to use a name keeps it; a later one is called
  "NAME (FILE)", then "NAME (FILE, 2)", "(FILE, 3)", ...; a name that is the file's name
  already gets "NAME (2)", "NAME (3)", ...  Only points written take a name.  (fix2gpx's
  <fixkit:continued/>, which joins a track to the one before, never occurs in foreign
  files and is not read.)
* seg: for trkpt only, the index of its <trkseg> among the <trkseg> children of its <trk>,
  from 0, empty segments included.
* Direct GPX children of a point: ele, time, hdop, vdop, pdop, sat, name, speed, course,
  and COROS's <cog> as course.  Inside the point's <extensions>, at any depth and in any
  namespace, by local name: speed, course, hAcc/hacc/accuracy_horizontal,
  vAcc/vacc/accuracy_vertical, cacc.  For speed/course/hacc/vacc/cacc the first value in
  document order wins.  Negative speed or course means absent; course >= 360 is taken mod
  360.  An empty element means absent, silently; a value that does not parse is dropped
  and reported, and the point is kept.
"""

import math
import os
import re
import sys
import xml.sax
import xml.sax.handler
from decimal import Decimal

TOOL = "gpx_oracle"

# The namespaces that are always GPX; `None` is "no namespace".  The root's own namespace
# is added when the root <gpx> element is seen.
GPX_NAMESPACES = {
    "http://www.topografix.com/GPX/1/0",
    "http://www.topografix.com/GPX/1/1",
    None,
    "",
}

# Field order of the fix record (SPEC.md, "The fix record").
FIELD_ORDER = [
    "time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "cacc",
    "hdop", "vdop", "pdop", "sat", "name", "trace", "seg",
]

# Direct GPX children of a point, and the fix field each fills.
DIRECT_NUMBERS = {
    "ele": "alt", "hdop": "hdop", "vdop": "vdop", "pdop": "pdop",
    "speed": "speed", "course": "course", "cog": "course",
}

# Local names inside <extensions> (any depth, any namespace), and the field each fills.
EXTENSION_NUMBERS = {
    "speed": "speed", "course": "course",
    "hAcc": "hacc", "hacc": "hacc", "accuracy_horizontal": "hacc",
    "vAcc": "vacc", "vacc": "vacc", "accuracy_vertical": "vacc",
    "cacc": "cacc",
}

# Fields where the first value in document order wins (the others are direct children
# only, where a repeat would be schema-invalid; there the first wins too, see `put`).
FIRST_WINS = {"speed", "course", "hacc", "vacc", "cacc"}

# XML whitespace (XML 1.0 production S): what "trimmed" means for text content.
XML_SPACE = " \t\r\n"

# A decimal number as GPX writes them (xsd:decimal), optionally with an exponent
# (xsd:double); no "NaN", "INF", hex, underscores or other things Python's float() takes.
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
INTEGER = re.compile(r"[+-]?\d+\Z")

# ISO 8601 / xsd:dateTime with any number of fraction digits; zone Z, +hh:mm or +hhmm
# (Waterspeed writes +0000), or none (= UTC).
TIME = re.compile(
    r"(?P<y>-?\d{4,})-(?P<mo>\d\d)-(?P<d>\d\d)T(?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
    r"(?:\.(?P<f>\d+))?"
    r"(?P<z>Z|[+-]\d\d:?\d\d)?\Z"
)


# ---------------------------------------------------------------------------------------
# Values


def parse_number(text):
    """float for a number's text (already trimmed), or None when it is not a number."""
    if not NUMBER.match(text):
        return None
    value = float(text)  # correctly rounded to the nearest double
    return value if math.isfinite(value) else None


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z):
    """Inverse of days_from_civil."""
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def days_in_month(y, m):
    if m == 2:
        return 29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def parse_time(text):
    """Milliseconds since the Unix epoch (UTC) of an ISO 8601 time, or None.

    No zone means UTC; an offset is subtracted to give UTC; the fraction, of any length, is
    rounded to the nearest millisecond (a half rounds up, i.e. later)."""
    m = TIME.match(text)
    if not m:
        return None
    y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
    h, mi, s = int(m["h"]), int(m["mi"]), int(m["s"])
    if not (1 <= mo <= 12 and 1 <= d <= days_in_month(y, mo) and h <= 23 and mi <= 59 and s <= 59):
        return None
    ms = 0
    if m["f"]:
        # round(f * 1000) exactly, with integers: digits beyond the third decide.
        digits = m["f"]
        scaled = int(digits) * 1000 * 2  # 2 * f * 1000 * 10^len
        unit = 10 ** len(digits)
        ms = (scaled + unit) // (2 * unit)  # floor(f*1000 + 1/2)
    offset_minutes = 0
    zone = m["z"]
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        hh, mm = int(zone[1:3]), int(zone[-2:])
        if hh > 23 or mm > 59:
            return None
        offset_minutes = sign * (hh * 60 + mm)
    seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset_minutes * 60
    return seconds * 1000 + ms


def format_time(epoch_ms):
    """RFC 3339 UTC with Z; exactly three fraction digits when the second is not whole."""
    seconds, ms = divmod(epoch_ms, 1000)
    days, sod = divmod(seconds, 86400)
    y, mo, d = civil_from_days(days)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, mo, d, sod // 3600, sod // 60 % 60, sod % 60)
    if ms:
        text += ".%03d" % ms
    return text + "Z"


def format_number(value):
    """Shortest decimal that reads back as the same double, never with an exponent."""
    if isinstance(value, int):
        return str(value)
    shortest = repr(value)  # Python's repr is the shortest round-trip form
    if "e" in shortest or "E" in shortest:
        shortest = format(Decimal(shortest), "f")  # same digits, positional notation
    return shortest


def json_string(text):
    """A JSON string literal (ASCII-safe is not required; UTF-8 is written as is)."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def fix_line(fix):
    parts = []
    for key in FIELD_ORDER:
        if key not in fix:
            continue
        value = fix[key]
        if key == "time":
            rendered = json_string(format_time(value))
        elif isinstance(value, str):
            rendered = json_string(value)
        else:
            rendered = format_number(value)
        parts.append(json_string(key) + ":" + rendered)
    return "{" + ",".join(parts) + "}"


# ---------------------------------------------------------------------------------------
# The document walk


class Frame:
    """One open element: its name, whether it is GPX, and the text directly inside it."""

    __slots__ = ("uri", "local", "gpx", "text", "line", "index")

    def __init__(self, uri, local, gpx, line):
        self.uri, self.local, self.gpx, self.line = uri, local, gpx, line
        self.text = []
        self.index = None  # for a <trkseg>: its index within its <trk>


class Container:
    """An open <trk> or <rte>: its name once seen, and how many <trkseg> it has had."""

    def __init__(self, depth):
        self.depth = depth  # depth of the <trk>/<rte> element, to recognise direct children
        self.name = None
        self.name_seen = False
        self.segments = 0


class Point:
    def __init__(self, kind, line, depth):
        self.kind = kind  # "trkpt", "rtept" or "wpt"
        self.line = line
        self.depth = depth  # depth of the point element
        self.fix = {}
        self.ext_depth = None  # depth of the <extensions> we are inside, if any
        self.problems = []  # (line, message)
        self.valid = True


class Reader(xml.sax.handler.ContentHandler):
    def __init__(self, path, report):
        super().__init__()
        self.path = path
        self.base = os.path.basename(path)
        self.recordings = 0
        self.report = report
        self.gpx_namespaces = set(GPX_NAMESPACES)
        self.stack = []  # Frames
        self.containers = []  # open trk/rte Containers, innermost last
        self.point = None
        self.points = []  # finished Points, document order
        self.seen_track_or_route_point = False
        self.locator = None

    def setDocumentLocator(self, locator):
        self.locator = locator

    def line(self):
        return self.locator.getLineNumber() if self.locator else 0

    def is_gpx(self, uri):
        return uri in self.gpx_namespaces

    # -- SAX events ------------------------------------------------------------------

    def startElementNS(self, name, qname, attrs):
        uri, local = name
        depth = len(self.stack)
        if depth == 0 and local == "gpx":
            # The root's namespace, whatever it is, is GPX too.
            self.gpx_namespaces.add(uri)
        gpx = self.is_gpx(uri)
        frame = Frame(uri, local, gpx, self.line())
        self.stack.append(frame)
        parent = self.stack[-2] if depth > 0 else None

        if self.point is not None:
            # Inside a point: remember whether we are in its <extensions>.
            if (self.point.ext_depth is None and depth == self.point.depth + 1
                    and gpx and local == "extensions"):
                self.point.ext_depth = depth
            return

        if not gpx:
            return
        if local in ("trk", "rte"):
            self.containers.append(Container(depth))
            self.recordings += 1
            self.containers[-1].number = self.recordings
        elif local == "trkseg":
            trk = self.innermost("trk")
            if trk is not None and parent is not None and parent.gpx and parent.local == "trk" \
                    and depth == trk.depth + 1:
                frame.index = trk.segments
                trk.segments += 1
        elif local in ("trkpt", "rtept", "wpt"):
            kind = local
            if kind == "trkpt" and self.innermost("trk") is None:
                return  # a trkpt outside any trk is not a point
            if kind == "rtept" and self.innermost("rte") is None:
                return
            if kind != "wpt":
                self.seen_track_or_route_point = True
            self.start_point(kind, attrs, depth)

    def innermost(self, kind):
        """The innermost open container of that kind (trk or rte), or None."""
        for c in reversed(self.containers):
            if self.stack[c.depth].local == kind:
                return c
        return None

    def characters(self, content):
        if self.stack:
            self.stack[-1].text.append(content)

    def endElementNS(self, name, qname):
        frame = self.stack.pop()
        depth = len(self.stack)
        text = "".join(frame.text)

        if self.point is not None:
            if depth == self.point.depth:
                self.finish_point()
            elif self.point.ext_depth is not None and depth > self.point.ext_depth:
                self.extension_value(frame, text)
            elif self.point.ext_depth == depth:
                self.point.ext_depth = None  # left this <extensions>; a later one may follow
            elif depth == self.point.depth + 1 and frame.gpx:
                self.direct_value(frame, text)
            return

        if frame.gpx and frame.local == "name" and self.containers:
            # The trk's / rte's direct child <name>: the trace of the points after it.
            c = self.containers[-1]
            if depth == c.depth + 1 and not c.name_seen:
                c.name_seen = True
                trimmed = text.strip(XML_SPACE)
                c.name = trimmed or None
        if self.containers and self.containers[-1].depth == depth and frame.gpx \
                and frame.local in ("trk", "rte"):
            self.containers.pop()

    # -- points ------------------------------------------------------------------------

    def start_point(self, kind, attrs, depth):
        point = Point(kind, self.line(), depth)
        self.point = point
        # lat/lon: the unprefixed attributes.
        for key in ("lat", "lon"):
            raw = attrs.get((None, key))
            if raw is None:
                point.valid = False
                point.problems.append((point.line, "<%s> has no %s attribute: point skipped" % (kind, key)))
                continue
            value = parse_number(raw.strip(XML_SPACE))
            limit = 90.0 if key == "lat" else 180.0
            if value is None or not (-limit <= value <= limit):
                point.valid = False
                point.problems.append((point.line, "<%s> %s=%r is not a number in [-%g, %g]: point skipped"
                                       % (kind, key, raw, limit, limit)))
                continue
            point.fix[key] = value
        # trace and seg.
        if kind == "wpt":
            point.fix["trace"] = self.base
            point.recording = 0
        else:
            c = self.innermost("trk" if kind == "trkpt" else "rte")
            point.fix["trace"] = c.name if c.name else self.base
            point.recording = c.number
            if kind == "trkpt":
                seg = self.enclosing_segment()
                if seg is not None:
                    point.fix["seg"] = seg

    def enclosing_segment(self):
        """The index of the innermost <trkseg> of the point's <trk>, if it is in one."""
        for frame in reversed(self.stack[:-1]):
            if frame.gpx and frame.local == "trkseg" and isinstance(frame.index, int):
                return frame.index
            if frame.gpx and frame.local == "trk":
                return None
        return None

    def put(self, field, value):
        """Sets a field; the first value in document order wins."""
        if field not in self.point.fix:
            self.point.fix[field] = value

    def problem(self, frame, message):
        self.point.problems.append((frame.line, message))

    def number(self, frame, text):
        """The element's number, None when empty (silently) or bad (reported)."""
        trimmed = text.strip(XML_SPACE)
        if trimmed == "":
            return None
        value = parse_number(trimmed)
        if value is None:
            self.problem(frame, "<%s>%s</%s> is not a number: value dropped" % (frame.local, trimmed, frame.local))
        return value

    def motion(self, field, value):
        """speed and course: negative means absent; course is taken mod 360."""
        if value is None or value < 0:
            return
        if field == "course" and value >= 360:
            value = math.fmod(value, 360.0)
        self.put(field, value)

    def direct_value(self, frame, text):
        local = frame.local
        if local in DIRECT_NUMBERS:
            field = DIRECT_NUMBERS[local]
            value = self.number(frame, text)
            if field in ("speed", "course"):
                self.motion(field, value)
            elif value is not None:
                self.put(field, value)
        elif local == "time":
            trimmed = text.strip(XML_SPACE)
            if trimmed == "":
                return
            ms = parse_time(trimmed)
            if ms is None:
                self.problem(frame, "<time>%s</time> is not an ISO 8601 time: value dropped" % trimmed)
            else:
                self.put("time", ms)
        elif local == "sat":
            trimmed = text.strip(XML_SPACE)
            if trimmed == "":
                return
            if INTEGER.match(trimmed):
                self.put("sat", int(trimmed))
            else:
                self.problem(frame, "<sat>%s</sat> is not an integer: value dropped" % trimmed)
        elif local == "name":
            trimmed = text.strip(XML_SPACE)
            if trimmed:
                self.put("name", trimmed)

    def extension_value(self, frame, text):
        field = EXTENSION_NUMBERS.get(frame.local)
        if field is None:
            return
        value = self.number(frame, text)
        if field in ("speed", "course"):
            self.motion(field, value)
        elif value is not None:
            self.put(field, value)

    def finish_point(self):
        self.points.append(self.point)
        self.point = None

    # -- output -------------------------------------------------------------------------

    def emit(self, waypoints, out):
        """Writes the points that are output, and reports their problems."""
        take_waypoints = waypoints or not self.seen_track_or_route_point
        ok = True
        used, given = set(), {}

        def free(name):
            if name not in used:
                return name
            if name != self.base:
                if "%s (%s)" % (name, self.base) not in used:
                    return "%s (%s)" % (name, self.base)
                stem = "%s (%s, " % (name, self.base)
            else:
                stem = "%s (" % name
            k = 2
            while "%s%d)" % (stem, k) in used:
                k += 1
            return "%s%d)" % (stem, k)

        for p in self.points:
            if p.kind == "wpt" and not take_waypoints:
                continue
            for line, message in p.problems:
                self.report(line, message)
                ok = False
            if p.valid:
                key = (p.recording, p.fix["trace"])
                if key not in given:
                    given[key] = free(p.fix["trace"])
                    used.add(given[key])
                p.fix["trace"] = given[key]
                out.write(fix_line(p.fix) + "\n")
        return ok


def main(argv):
    args = argv[1:]
    waypoints = False
    if args and args[0] == "--waypoints":
        waypoints = True
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: gpx_oracle.py [--waypoints] FILE.gpx\n")
        return 2
    path = args[0]

    def report(line, message):
        sys.stderr.write("%s: %s:%d: %s\n" % (TOOL, path, line, message))

    reader = Reader(path, report)
    parser = xml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, True)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setContentHandler(reader)
    status = 0
    error = None
    try:
        with open(path, "rb") as f:
            parser.parse(f)
    except xml.sax.SAXParseException as e:
        error = e
    except OSError as e:
        sys.stderr.write("%s: %s: %s\n" % (TOOL, path, e.strerror))
        return 1
    # Every point finished before an XML error is still written.
    if not reader.emit(waypoints, sys.stdout):
        status = 1
    if error is not None:
        report(error.getLineNumber(), "not well-formed XML: %s" % error.getMessage())
        status = 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except BrokenPipeError:
        # A closed output pipe (`gpx_oracle.py big.gpx | head`) ends the reader quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
