#!/usr/bin/env python3
"""The pynmea2 peer of gpx2fix's NMEA benchmark: an NMEA log in, one JSON fix an epoch out.

    python3 bench/py_nmea.py FILE.nmea > fixes.ndjson

What a Python user writes with pynmea2 (pip install pynmea2): parse each line (checksum
checked), merge the RMC, GGA and GST of one time into a fix (date from RMC, altitude,
satellites and HDOP from GGA, hacc from GST's sigmas) and write it with json.dumps when the
time changes. Lines pynmea2 cannot parse are skipped.
"""

import datetime
import json
import math
import sys

try:
    import pynmea2
except ImportError:
    sys.exit("py_nmea.py: pynmea2 is not installed (pip install pynmea2)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: py_nmea.py FILE.nmea")
    write = sys.stdout.write
    parse, ParseError = pynmea2.parse, pynmea2.ParseError
    fix, fix_time, date = None, None, None

    def flush():
        if fix is not None and "lat" in fix:
            write(json.dumps(fix, separators=(",", ":")))
            write("\n")

    with open(sys.argv[1], encoding="ascii", errors="replace", newline="") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("$"):
                continue
            try:
                msg = parse(line, check=True)
            except (ParseError, ValueError):
                continue
            kind = msg.sentence_type
            if kind not in ("RMC", "GGA", "GST"):
                continue
            t = msg.timestamp
            if t != fix_time:
                flush()
                fix, fix_time = {}, t
            try:
                if kind == "RMC":
                    date = msg.datestamp or date
                    fix["lat"], fix["lon"] = msg.latitude, msg.longitude
                    if msg.spd_over_grnd is not None:
                        fix["speed"] = msg.spd_over_grnd * 1852 / 3600
                    if msg.true_course is not None:
                        fix["course"] = msg.true_course
                elif kind == "GGA":
                    fix["lat"], fix["lon"] = msg.latitude, msg.longitude
                    if msg.altitude is not None:
                        fix["alt"] = msg.altitude
                    fix["hdop"] = float(msg.horizontal_dil)
                    fix["sat"] = int(msg.num_sats)
                else:
                    fix["hacc"] = math.hypot(msg.std_dev_latitude, msg.std_dev_longitude)
                    fix["vacc"] = msg.std_dev_altitude
            except (TypeError, ValueError):
                continue
            if date is not None and t is not None and "time" not in fix:
                fix["time"] = datetime.datetime.combine(date, t).strftime("%Y-%m-%dT%H:%M:%SZ")
    flush()


if __name__ == "__main__":
    main()
