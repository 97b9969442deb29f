#!/usr/bin/env python3
"""Write a deterministic, realistic NDJSON stream of N fixes, for benchmarking fixfilter.

    python3 bench/gen_fixes.py [--fixes N] [--seed K] [--center LAT,LON] [--area-km KM]
                               [--hacc LO,HI] OUT.ndjson

Standard library only. The same arguments always give the same bytes.

The fixes are what a phone's location service delivers at 1 Hz, one line each, as gpx2fix
writes them: time (RFC 3339, UTC), lat and lon (6 decimals), alt, hacc, speed, course, cacc
and trace. They come as trips, one after another, each its own trace ("trip-0001", ...) of
10 minutes to 2 hours: a walk, a run, a ride or a drive, with stops. The values are varied
so that each of fixfilter's rules (SPEC order: hacc, age, speed, course, move) rejects some
fixes with its defaults:

- hacc: about 2% of fixes, mostly the first seconds of a trip before the receiver settles
  (cell and Wi-Fi fixes of 100 to 1,500 m), and a few with Core Location's -1 (invalid);
- age: about 0.3% are late deliveries, a fix from 16 to 120 s before the newest one on the
  trace;
- speed: about 0.2% are glitches of 90 to 400 m/s;
- course: about 3% have a course but no cacc, and 1% cacc -1: stripped by default (rejected
  with --course reject); fixes at a standstill have neither;
- move: walks, runs and stops make many fixes closer than 10 m to the last one passed.

With --no-cacc every fix has a speed and a course and none has cacc, as gpx2fix writes a
GPX file with Garmin's TrackPointExtension: then every fix that passes has its course
stripped by default (fixfilter.sh's "course stripped" case).

Every fix has hacc, so `select(.hacc < 100)` (jq) and fixfilter's hacc rule agree on what
hacc rejects. A fix takes about 140 bytes, so 1,000,000 fixes make about 140 MB.

For fencerule (bench/fencerule.sh), two options change the stream; without them the bytes
are the same as before they existed:
- --center LAT,LON starts the first trip there (default 45.7578137,4.8320114, Lyon), and
  --area-km KM keeps every trip in a square of KM a side around it: a trip that would leave
  turns back (its course mirrored);
- --hacc LO,HI gives every fix a hacc uniform in [LO, HI] metres, and moves the fix from the
  true track by Gaussian noise of that hacc per axis, as a receiver's error is (no settling,
  no -1, no late fixes): Wi-Fi and cell fixes are like that with 2,150.
"""

import argparse
import math
import random
import sys
import time

START = 1715495400  # 2024-05-12T06:30:00Z
EARTH_RADIUS = 6371008.8
# Activity: (mean speed m/s, speed jitter, heading jitter in degrees, stops per minute)
ACTIVITIES = [(1.4, 0.15, 8.0, 0.05), (3.0, 0.3, 6.0, 0.02), (6.0, 0.5, 4.0, 0.1), (14.0, 1.0, 3.0, 0.3)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the NDJSON file to write ('-' for standard output)")
    ap.add_argument("--fixes", "-n", type=int, default=1_000_000, help="fixes (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=20240512, help="random seed (default 20240512)")
    ap.add_argument("--no-cacc", action="store_true",
                    help="every fix has a speed and a course and none a cacc (all courses stripped by default)")
    ap.add_argument("--center", default=None, help="LAT,LON of the first fix (default Lyon)")
    ap.add_argument("--area-km", type=float, default=0.0, help="keep trips in a square of KM around --center")
    ap.add_argument("--hacc", default=None, help="LO,HI: hacc uniform in [LO, HI] m, with noise of that hacc")
    args = ap.parse_args()
    no_cacc = args.no_cacc
    n = max(0, args.fixes)
    noisy = None
    if args.hacc is not None:
        try:
            noisy = tuple(float(v) for v in args.hacc.split(","))
        except ValueError:
            noisy = ()
        if len(noisy) != 2 or not 0 <= noisy[0] <= noisy[1]:
            ap.error(f"--hacc must be LO,HI with 0 <= LO <= HI (got {args.hacc!r})")

    rng = random.Random(args.seed)
    out = sys.stdout.buffer if args.out == "-" else open(args.out, "wb")
    started = time.monotonic()

    deg_per_m_lat = 180.0 / (math.pi * EARTH_RADIUS)
    lat, lon, alt = 45.7578137, 4.8320114, 170.0
    if args.center is not None:
        try:
            lat, lon = (float(v) for v in args.center.split(","))
        except ValueError:
            ap.error(f"--center must be LAT,LON (got {args.center!r})")
    clat, clon = lat, lon
    half = args.area_km * 500.0  # metres from the centre to the square's sides
    t = START
    written = 0
    trip = 0
    chunk = []
    minute_key, minute_prefix = None, ""

    def stamp(s):
        nonlocal minute_key, minute_prefix
        key = s // 60
        if key != minute_key:
            minute_key = key
            minute_prefix = time.strftime("%Y-%m-%dT%H:%M:", time.gmtime(key * 60))
        return "%s%02dZ" % (minute_prefix, s % 60)

    while written < n:
        trip += 1
        trace = "trip-%04d" % trip
        mean, jitter, turn, stops = ACTIVITIES[rng.randrange(len(ACTIVITIES))]
        length = min(n - written, rng.randrange(600, 7200))
        course, speed = rng.uniform(0, 360), mean
        settle = rng.randrange(3, 30)  # seconds of coarse fixes at the start
        stop_left = 0
        history = []  # (time, lat, lon) of recent fixes, for late deliveries
        for k in range(length):
            if stop_left > 0:
                stop_left -= 1
                speed = 0.0
            else:
                if rng.random() < stops / 60:
                    stop_left = rng.randrange(5, 90)
                course = (course + rng.gauss(0.0, turn)) % 360.0
                speed = min(mean * 2.5, max(0.3, (speed or mean) + 0.05 * (mean - speed) + rng.gauss(0.0, jitter)))
                rad = math.radians(course)
                if half > 0:
                    # Turn back at the square's sides: mirror the course's north or east part.
                    north = (lat - clat) / deg_per_m_lat + speed * math.cos(rad)
                    east = (lon - clon) / deg_per_m_lat * math.cos(math.radians(lat)) + speed * math.sin(rad)
                    if abs(north) > half:
                        course = (180.0 - course) % 360.0
                    if abs(east) > half:
                        course = (-course) % 360.0
                    rad = math.radians(course)
                lat += speed * math.cos(rad) * deg_per_m_lat
                lon += speed * math.sin(rad) * deg_per_m_lat / math.cos(math.radians(lat))
                alt = min(2500.0, max(-10.0, alt + rng.gauss(0.0, 0.3)))
            r = rng.random()
            if noisy is not None:
                hacc = rng.uniform(noisy[0], noisy[1])
                flat = lat + rng.gauss(0.0, hacc) * deg_per_m_lat
                flon = lon + rng.gauss(0.0, hacc) * deg_per_m_lat / math.cos(math.radians(lat))
                parts = ['{"time":"%s","lat":%.7f,"lon":%.7f,"alt":%.1f,"hacc":%.1f' % (stamp(t), flat, flon, alt, hacc)]
                parts.append(',"speed":%.2f' % speed if speed > 0 else ',"speed":0')
                parts.append(',"trace":"%s"}\n' % trace)
                chunk.append("".join(parts))
                t += 1
                if len(chunk) >= 4096:
                    out.write("".join(chunk).encode("ascii"))
                    chunk.clear()
                continue
            if k < settle:
                hacc = rng.uniform(100.0, 1500.0) if r < 0.6 else rng.uniform(20.0, 99.0)
            elif r < 0.002:
                hacc = -1.0
            elif r < 0.008:
                hacc = rng.uniform(100.0, 400.0)
            else:
                hacc = rng.lognormvariate(1.6, 0.45)  # median about 5 m
            ft, flat, flon, fspeed = t, lat, lon, speed
            r = rng.random()
            if r < 0.003 and len(history) > 16:
                ft, flat, flon = history[-rng.randrange(16, min(120, len(history)))]  # late
            elif r < 0.005 and speed > 0:
                fspeed = rng.uniform(90.0, 400.0)  # glitch
            parts = ['{"time":"%s","lat":%.6f,"lon":%.6f,"alt":%.1f,"hacc":%.1f' % (stamp(ft), flat, flon, alt, hacc)]
            if no_cacc:
                parts.append(',"speed":%.2f,"course":%.1f' % (fspeed, course))
            elif fspeed > 0:
                parts.append(',"speed":%.2f,"course":%.1f' % (fspeed, course))
                r = rng.random()
                if r >= 0.04:
                    parts.append(',"cacc":%.1f' % rng.uniform(3.0, 40.0))
                elif r >= 0.03:
                    parts.append(',"cacc":-1')
            else:
                parts.append(',"speed":0')
            parts.append(',"trace":"%s"}\n' % trace)
            chunk.append("".join(parts))
            history.append((t, lat, lon))
            if len(history) > 240:
                del history[:120]
            t += 1
            if len(chunk) >= 4096:
                out.write("".join(chunk).encode("ascii"))
                chunk.clear()
        written += length
        t += rng.randrange(600, 6 * 3600)  # between trips
    out.write("".join(chunk).encode("ascii"))
    if out is not sys.stdout.buffer:
        out.close()
    print(f"gen_fixes.py: {n} fixes in {trip} traces, {time.monotonic() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
