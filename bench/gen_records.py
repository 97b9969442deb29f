#!/usr/bin/env python3
"""Writes a Google Takeout Records.json of about MIB mebibytes, as Takeout lays it out
(two-space indent, " : " separators), for bench/takeout.sh.

Usage: gen_records.py --mib MIB FILE

A walk around Zurich at 10 s steps; every location has latitudeE7, longitudeE7, accuracy,
source, deviceTag and timestamp (every fourth timestampMs instead, as older exports wrote);
every fifth an altitude, verticalAccuracy, velocity and heading, and an activity list;
one in 97 a latitude south of the equator written past 2^31, as Google's exporter did.
"""
import sys

def main():
    args = sys.argv[1:]
    mib = float(args[args.index("--mib") + 1])
    path = args[-1]
    target = int(mib * (1 << 20))
    t0 = 1_500_000_000_000
    size = 0
    i = 0
    with open(path, "w", buffering=1 << 20) as f:
        head = "{\n  \"locations\" : [ "
        f.write(head)
        size += len(head)
        parts = []
        while size < target:
            lat = 473769000 + (i * 37) % 200000
            lon = 85417000 + (i * 53) % 300000
            if i % 97 == 5:
                lat = (1 << 32) - lat  # -47.37... written as an unsigned 32-bit number
            t = t0 + i * 10_000 + (i % 7) * 13
            rec = ["{\n    \"latitudeE7\" : %d,\n    \"longitudeE7\" : %d,\n    \"accuracy\" : %d" % (lat, lon, 5 + i % 40)]
            if i % 5 == 0:
                rec.append(",\n    \"altitude\" : %d,\n    \"verticalAccuracy\" : %d,\n    \"velocity\" : %d,\n    \"heading\" : %d"
                           % (400 + i % 50, 3 + i % 9, i % 20, (i * 7) % 360))
                rec.append(",\n    \"activity\" : [ {\n      \"timestamp\" : \"2017-07-14T02:40:00.000Z\",\n      \"activity\" : [ {\n"
                           "        \"type\" : \"STILL\",\n        \"confidence\" : 90\n      }, {\n        \"type\" : \"ON_FOOT\",\n"
                           "        \"confidence\" : 10\n      } ]\n    } ]")
            rec.append(",\n    \"source\" : \"WIFI\",\n    \"deviceTag\" : 1234567")
            if i % 4 == 3:
                rec.append(",\n    \"timestampMs\" : \"%d\"\n  }" % t)
            else:
                s, ms = divmod(t, 1000)
                import time as _t
                rec.append(",\n    \"timestamp\" : \"%s.%03dZ\"\n  }" % (_t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(s)), ms))
            text = ("" if i == 0 else ", ") + "".join(rec)
            parts.append(text)
            size += len(text)
            i += 1
            if len(parts) >= 10000:
                f.write("".join(parts))
                parts = []
        f.write("".join(parts))
        f.write(" ]\n}\n")
    print("%d locations" % i, file=sys.stderr)

main()
