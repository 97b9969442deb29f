#!/usr/bin/env python3
"""Write a deterministic, realistic FIT activity file of N record messages, for benchmarking.

    python3 bench/gen_fit.py [--records N] [--seed K] OUT.fit

Standard library only (the FIT framing is simple enough to write with struct; fit-tool is
far too slow for a million records). The same arguments always give the same bytes.

The file is what a Garmin Edge writes for a 1 Hz ride: a 14-byte header with its CRC, a
file_id, a timer start event, then one record a second (timestamp, position_lat,
position_long, distance, enhanced_altitude, enhanced_speed, heart_rate, cadence, power,
temperature and gps_accuracy: 31 bytes a message after its header), with a timer
stop/start pair every 20,000 records, and the file's CRC. A record is about 32 bytes, so
1,000,000 records make about 32 MB.
"""

import argparse
import math
import random
import struct
import sys

FIT_EPOCH_UNIX = 631065600
START = 1715551200 - FIT_EPOCH_UNIX  # 2024-05-12T22:00:00Z
SEMICIRCLES = 2**31 / 180


def crc_table():
    nib = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
           0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    table = []
    for b in range(256):
        crc = 0
        for n in (b & 0xF, b >> 4):
            tmp = nib[crc & 0xF]
            crc = ((crc >> 4) & 0x0FFF) ^ tmp ^ nib[n]
        table.append(crc)
    return table


TABLE = crc_table()


def crc16(data, crc=0):
    t = TABLE
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc


def definition(local, global_num, fields):
    out = struct.pack("<BBBHB", 0x40 | local, 0, 0, global_num, len(fields))
    for num, size, base in fields:
        out += struct.pack("<BBB", num, size, base)
    return out


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1000000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("out")
    a = ap.parse_args(argv[1:])
    rnd = random.Random(a.seed)
    body = bytearray()
    body += definition(0, 0, [(0, 1, 0x00), (1, 2, 0x84), (2, 2, 0x84), (4, 4, 0x86)])
    body += struct.pack("<BBHHI", 0, 4, 1, 2713, START)  # activity file, garmin, edge 1030
    body += definition(1, 21, [(253, 4, 0x86), (0, 1, 0x00), (1, 1, 0x00)])
    body += struct.pack("<BIBB", 1, START, 0, 0)  # timer start
    record = [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (5, 4, 0x86), (78, 4, 0x86), (73, 4, 0x86),
              (3, 1, 0x02), (4, 1, 0x02), (7, 2, 0x84), (13, 1, 0x01), (31, 1, 0x02)]
    body += definition(2, 20, record)
    rec = struct.Struct("<BIiiIIIBBHbB")
    lat, lon, heading, speed, alt, dist = 45.76, 4.84, 0.0, 8.0, 170.0, 0.0
    t = START
    for i in range(a.records):
        if i and i % 20000 == 0:
            body += struct.pack("<BIBB", 1, t, 0, 4)  # timer stop_all
            t += 120
            body += struct.pack("<BIBB", 1, t, 0, 0)  # timer start
        heading += rnd.gauss(0, 3)
        speed = min(16.0, max(0.0, speed + rnd.gauss(0, 0.3)))
        alt += rnd.gauss(0, 0.2)
        dlat = speed * math.cos(math.radians(heading)) / 111_195
        lat = max(-80.0, min(80.0, lat + dlat))
        lon += speed * math.sin(math.radians(heading)) / (111_195 * math.cos(math.radians(lat)))
        if lon > 180:
            lon -= 360
        dist += speed
        body += rec.pack(2, t, round(lat * SEMICIRCLES), round(lon * SEMICIRCLES), round(dist * 100),
                         round((alt + 500) * 5), round(speed * 1000), 120 + rnd.randrange(40),
                         85 + rnd.randrange(10), 150 + rnd.randrange(200), 18, 2 + rnd.randrange(6))
        t += 1
    body += struct.pack("<BIBB", 1, t, 0, 4)
    header = struct.pack("<BBHI4s", 14, 0x20, 2132, len(body), b".FIT")
    header += struct.pack("<H", crc16(header))
    crc = crc16(body, crc16(header))
    with open(a.out, "wb") as f:
        f.write(header)
        f.write(body)
        f.write(struct.pack("<H", crc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
