#!/usr/bin/env python3
"""Write an endless-looking stream of generated input to standard output, for bench/soak.sh.

    python3 bench/gen_stream.py --format fix|nmea|gpx --bytes N [--stay-hours H]

Standard library only; deterministic. Nothing is written to disk: the stream is made as it is
read, so a pipe can carry any number of gigabytes. It stops after the first record that
reaches N bytes (GPX: then closes the document).

The movement is the same in every format, one fix a second, an hour that repeats: a walk
at 1.4 m/s north-east from a point in Lyon for 20 minutes and back for 20 (so positions stay
bounded however long the stream), then a stop of 20 minutes (a few metres of jitter), so
that visits finds a visit an hour and fencerule crosses fences. `--stay-hours H` (fix only) adds one stay of H hours at the start,
the case where a tool that keeps a stay's fixes grows. Fix records change `trace` every
24 hours ("day-00001", ...), as a day's file would.

Speed matters more than realism here: each hour is one join of precomputed pieces, so that
the generator is not what a soak measures.
"""

import argparse
import math
import sys
import time

LAT0, LON0 = 45.75, 4.85
M_PER_DEG_LAT = 111_195.0
M_PER_DEG_LON = M_PER_DEG_LAT * math.cos(math.radians(LAT0))
START = 1_767_261_600  # 2026-01-01T10:00:00Z, on the hour
SPEED = 1.4
HEX = ["%02X" % i for i in range(256)]


def hour_of_positions(stay):
    """3,600 (lat, lon, speed, course), one a second: walk out north-east for 20 minutes at
    1.4 m/s, back for 20, stand 20 (a few metres of jitter); `stay`: stand all hour."""
    out = []
    for k in range(3600):
        if stay or k >= 2400:
            d, speed, course = 0.0, 0.0, 0.0
            jx, jy = 3.0 * math.sin(k * 0.7), 3.0 * math.cos(k * 1.3)
        else:
            d = SPEED * (k if k < 1200 else 2400 - k)
            speed, course = SPEED, (45.0 if k < 1200 else 225.0)
            jx = jy = 0.0
        x = d * math.sqrt(0.5) + jx
        y = d * math.sqrt(0.5) + jy
        out.append((LAT0 + y / M_PER_DEG_LAT, LON0 + x / M_PER_DEG_LON, speed, course))
    return out


def xor(text):
    c = 0
    for b in text.encode():
        c ^= b
    return c


def dm(value, degree_digits):
    a = abs(value)
    d = int(a)
    return "%0*d%07.4f" % (degree_digits, d, (a - d) * 60.0)


class Templates:
    """An hour of one format with the parts that change by the hour left out: each hour is
    one `join` of precomputed pieces, so the generator runs at hundreds of MB/s."""

    def __init__(self, fmt, stay):
        self.fmt = fmt
        self.pos = hour_of_positions(stay)
        if fmt == "nmea":
            self.rmc_mid, self.rmc_tail, self.rmc_cs = [], [], []
            self.gga_mid, self.gga_cs = [], []
            for k, (lat, lon, speed, course) in enumerate(self.pos):
                mmss = "%02d%02d.00" % divmod(k, 60)
                la = dm(lat, 2) + ",N"
                lo = dm(lon, 3) + ",E"
                mid = "%s,A,%s,%s,%.2f,%.1f," % (mmss, la, lo, speed * 1.943844, course)
                tail = ",,,A"
                gmid = "%s,%s,%s,1,%02d,%.1f,170.0,M,47.0,M,," % (mmss, la, lo, 6 + k % 6, 0.8 + (k % 5) * 0.1)
                self.rmc_mid.append(mid)
                self.rmc_tail.append(tail)
                self.rmc_cs.append(xor("GPRMC," + mid + tail))
                self.gga_mid.append(gmid)
                self.gga_cs.append(xor("GPGGA," + gmid))

    def hour(self, t, trace):
        g = time.gmtime(t)
        if self.fmt == "nmea":
            hh = "%02d" % g.tm_hour
            date = time.strftime("%d%m%y", g)
            xr = xor(hh) ^ xor(date)
            xg = xor(hh)
            parts = []
            for k in range(3600):
                parts.append("$GPRMC,%s%s%s%s*%s\r\n$GPGGA,%s%s*%s\r\n" % (
                    hh, self.rmc_mid[k], date, self.rmc_tail[k], HEX[self.rmc_cs[k] ^ xr],
                    hh, self.gga_mid[k], HEX[self.gga_cs[k] ^ xg]))
            return "".join(parts)
        key = (self.fmt, trace)
        if getattr(self, "key", None) != key:
            self.key = key
            self.pieces = self.split_pieces(trace)
        return time.strftime("%Y-%m-%dT%H:", g).join(self.pieces)

    def split_pieces(self, trace):
        """Lines with the "YYYY-MM-DDTHH:" of their time cut out: the pieces between."""
        lines = []
        for k, (lat, lon, speed, course) in enumerate(self.pos):
            mmss = "%02d:%02dZ" % divmod(k, 60)
            if self.fmt == "fix":
                if speed > 0:
                    rest = '%s","lat":%.6f,"lon":%.6f,"hacc":%d,"speed":%.1f,"course":%.0f,"cacc":10,"trace":"%s"}\n' % (
                        mmss, lat, lon, 4 + k % 7, speed, course, trace)
                else:
                    rest = '%s","lat":%.6f,"lon":%.6f,"hacc":%d,"trace":"%s"}\n' % (mmss, lat, lon, 4 + k % 7, trace)
                lines.append(('{"time":"', rest))
            else:
                lines.append(('<trkpt lat="%.7f" lon="%.7f"><ele>170.0</ele><time>' % (lat, lon),
                              '%s</time><hdop>%.1f</hdop></trkpt>\n' % (mmss, 0.8 + (k % 5) * 0.1)))
        pieces = [lines[0][0]]
        for k in range(3600):
            pieces.append(lines[k][1] + (lines[k + 1][0] if k + 1 < 3600 else ""))
        return pieces


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--format", choices=["fix", "nmea", "gpx"], required=True)
    p.add_argument("--bytes", type=float, required=True, help="stop after about this many bytes (1e9 = 1 GB)")
    p.add_argument("--stay-hours", type=int, default=0)
    a = p.parse_args()
    limit = int(a.bytes)
    out = sys.stdout.buffer
    walk = Templates(a.format, stay=False)
    stay = Templates(a.format, stay=True) if a.stay_hours else None
    written = 0
    try:
        if a.format == "gpx":
            head = ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="FixKit bench/gen_stream.py" '
                    'xmlns="http://www.topografix.com/GPX/1/1">\n<trk><name>soak</name><trkseg>\n').encode()
            out.write(head)
            written += len(head)
        h = 0
        while written < limit:
            t = START + 3600 * h
            templates = stay if h < a.stay_hours else walk
            block = templates.hour(t, "day-%05d" % (h // 24 + 1)).encode()
            if written + len(block) > limit:
                # Stop at the end of the line that reaches the limit.
                end = block.find(b"\n", limit - written)
                block = block[: end + 1] if end >= 0 else block
            out.write(block)
            written += len(block)
            h += 1
        if a.format == "gpx":
            out.write(b"</trkseg></trk>\n</gpx>\n")
        out.flush()
    except BrokenPipeError:
        # The reader stopped (a tool that failed, or `| head`): not the generator's error.
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
