#!/usr/bin/env python3
"""Write a deterministic, realistic NMEA 0183 log of N epochs, for benchmarking gpx2fix.

    python3 bench/gen_nmea.py [--epochs N] [--seed K] OUT.nmea

Standard library only. The same arguments always give the same bytes.

Each epoch (1 a second) is the three sentences a receiver set to 1 Hz with error statistics
on writes: $GPRMC, $GPGGA and $GPGST, each with a valid checksum and a CR LF line end. The
track is a drive around Lyon: speed and heading drift smoothly, with stops (speed 0) now and
then. Positions have 4-decimal minutes (about 0.2 m), as most receivers write them; RMC has
the speed in knots, the course and the date; GGA the fix quality, satellites in use, HDOP,
altitude and geoid separation; GST the residual RMS, the error ellipse and the 1-sigma
latitude, longitude and altitude errors in metres. The log starts at 22:00:00 UTC, so it
crosses midnight after 7,200 epochs and every 86,400 after that, the RMC date advancing.

An epoch takes about 205 bytes, so 1,000,000 epochs make about 205 MB.
"""

import argparse
import math
import random
import sys
import time

START = 1715551200  # 2024-05-12T22:00:00Z
EARTH_RADIUS = 6371008.8
KNOTS_PER_MPS = 3600.0 / 1852.0


def checksum(body):
    """The XOR of the bytes of body (an ASCII str shorter than 128 bytes), folded from one big int."""
    b = body.encode("ascii")
    if len(b) > 128:
        x = 0
        for c in b:
            x ^= c
        return x
    x = int.from_bytes(b, "little")
    for shift in (512, 256, 128, 64, 32, 16, 8):
        x = (x >> shift) ^ (x & ((1 << shift) - 1))
    return x


def ddmm(value, width):
    """Degrees as NMEA's d..dmm.mmmm (width digits of degrees) with 4 decimals of minutes."""
    v = abs(value)
    deg = int(v)
    minutes = round((v - deg) * 60.0, 4)
    if minutes >= 60.0:
        deg, minutes = deg + 1, 0.0
    return "%0*d%07.4f" % (width, deg, minutes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the NMEA log to write ('-' for standard output)")
    ap.add_argument("--epochs", "-n", type=int, default=1_000_000, help="epochs, one a second (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=20240512, help="random seed (default 20240512)")
    args = ap.parse_args()
    n = max(0, args.epochs)

    rng = random.Random(args.seed)
    out = sys.stdout.buffer if args.out == "-" else open(args.out, "wb")
    started = time.monotonic()

    lat, lon, alt = 45.7578137, 4.8320114, 170.0
    course, speed = rng.uniform(0, 360), 12.0  # m/s
    stop_left = 0  # seconds left standing still
    hdop, sats = 0.9, 10
    geoid = 49.3
    deg_per_m_lat = 180.0 / (math.pi * EARTH_RADIUS)
    t = START
    day_key, date_text = None, ""
    chunk = []
    for _ in range(n):
        # Motion: 1 s a step; a stop of 10 to 60 s about every 5 minutes (traffic lights).
        if stop_left > 0:
            stop_left -= 1
            speed = 0.0
        else:
            if rng.random() < 1 / 300:
                stop_left = rng.randrange(10, 60)
            course = (course + rng.gauss(0.0, 3.0)) % 360.0
            speed = min(36.0, max(0.5, speed + rng.gauss(0.0, 0.6)))
            rad = math.radians(course)
            lat += speed * math.cos(rad) * deg_per_m_lat
            lon += speed * math.sin(rad) * deg_per_m_lat / math.cos(math.radians(lat))
            alt = min(2500.0, max(-10.0, alt + rng.gauss(0.0, 0.3)))
        # Quality: HDOP wanders around 1, satellites between 4 and 16; the error estimates follow HDOP.
        hdop = min(4.0, max(0.5, hdop + 0.02 * (1.0 - hdop) + rng.gauss(0.0, 0.05)))
        if rng.random() < 0.02:
            sats = min(16, max(4, sats + (1 if rng.random() < 0.5 + (10 - sats) * 0.05 else -1)))
        sig_lat = hdop * rng.uniform(1.2, 2.2)
        sig_lon = hdop * rng.uniform(1.0, 2.0)
        sig_alt = hdop * rng.uniform(2.0, 3.5)
        smaj, smin = max(sig_lat, sig_lon) * 1.1, min(sig_lat, sig_lon) * 0.9
        rms = hdop * rng.uniform(0.8, 1.6)

        key = t // 86400
        if key != day_key:
            day_key = key
            date_text = time.strftime("%d%m%y", time.gmtime(t))
        s = t % 86400
        hms = "%02d%02d%02d.00" % (s // 3600, s // 60 % 60, s % 60)
        la = ddmm(lat, 2) + (",N" if lat >= 0 else ",S")
        lo = ddmm(lon, 3) + (",E" if lon >= 0 else ",W")

        rmc = "GPRMC,%s,A,%s,%s,%.3f,%.2f,%s,,,A" % (hms, la, lo, speed * KNOTS_PER_MPS, course if speed > 0 else 0.0, date_text)
        gga = "GPGGA,%s,%s,%s,1,%02d,%.2f,%.1f,M,%.1f,M,," % (hms, la, lo, sats, hdop, alt, geoid)
        gst = "GPGST,%s,%.2f,%.2f,%.2f,%.1f,%.2f,%.2f,%.2f" % (hms, rms, smaj, smin, rng.uniform(0, 180), sig_lat, sig_lon, sig_alt)
        chunk.append("$%s*%02X\r\n$%s*%02X\r\n$%s*%02X\r\n" % (rmc, checksum(rmc), gga, checksum(gga), gst, checksum(gst)))
        t += 1
        if len(chunk) >= 4096:
            out.write("".join(chunk).encode("ascii"))
            chunk.clear()
    out.write("".join(chunk).encode("ascii"))
    if out is not sys.stdout.buffer:
        out.close()
    print(f"gen_nmea.py: {n} epochs, {time.monotonic() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
