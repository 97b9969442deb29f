#!/usr/bin/env python3
"""Writes samples/walk.gpx: a synthetic but realistic recorded walk, to standard output.

    python3 samples/make_walk.py > samples/walk.gpx

Ten minutes (600 fixes at 1 Hz) of someone walking once around a city block near Waterloo,
London, clockwise, with an 18-second stop at a shop window on the north side. The block is a rectangle
with rounded corners, turned 17 degrees off north as streets are, sized so that the walk
ends where it began.

Each point carries what an iPhone's Apple Health export carries (<ele>, <time>, and in
<extensions> <speed>, <course>, <hAcc>, <vAcc>), plus an <hdop>, which receivers that
report DOP write. The errors are what a phone shows in a street of tall buildings:
- position error: per-axis Gaussian, correlated from one second to the next (AR(1),
  coefficient 0.9), with a standard deviation of half the reported hAcc (phones report a
  cautious radius);
- hAcc wanders between about 3.5 and 11 m, worse along the north side (tall
  buildings); vAcc between about 3 and 8 m; hdop is hAcc / 5, to one decimal;
- speed: the true speed plus N(0, 0.08) m/s; course: the true heading plus N(0, 4) degrees;
- Apple's "unknown" sentinels: the first fix has speed and course -1, and while standing
  still speed is 0 and course -1. gpx2fix leaves such negative values out.

Deterministic: a fixed seed and Python's own Mersenne Twister (random.Random), standard
library only; numbers are written with fixed decimals, so the output is the same bytes on
every platform.
"""

import datetime
import math
import random
import sys

SEED = 20260314
START = datetime.datetime(2026, 3, 14, 8, 30, 0, tzinfo=datetime.timezone.utc)
FIXES = 600  # one a second
NAME = "Morning walk"

# Where: the block's centre, in WGS 84 degrees.
CENTRE_LAT = 51.50100
CENTRE_LON = -0.11440
ROTATION_DEG = 17.0  # the street grid's angle east of north
ASPECT = 230.0 / 180.0  # long side (east-west before rotation) over short side
CORNER_RADIUS = 6.0  # metres: walkers cut corners

# WGS 84 ellipsoid (NIMA TR8350.2): semi-major axis and first eccentricity squared.
WGS84_A = 6378137.0
WGS84_E2 = 6.69437999014e-3


def metres_per_degree(lat_deg):
    """Metres per degree of latitude and of longitude at a latitude (radii of curvature)."""
    phi = math.radians(lat_deg)
    w = math.sqrt(1.0 - WGS84_E2 * math.sin(phi) ** 2)
    meridional = WGS84_A * (1.0 - WGS84_E2) / w**3
    prime_vertical = WGS84_A / w
    return math.radians(meridional), math.radians(prime_vertical * math.cos(phi))


def speed_profile(rng):
    """True walking speed (m/s) for each second, and the seconds spent standing still."""
    stop_start, stop_len = 231, 18  # a look in a shop window
    speeds = []
    drift = 0.0
    for t in range(FIXES):
        drift = 0.95 * drift + rng.gauss(0.0, 0.02)
        v = 1.38 + 0.06 * math.sin(2 * math.pi * t / 140.0) + drift
        # Slow down over 3 s into the stop and speed up over 3 s out of it.
        if stop_start <= t < stop_start + stop_len:
            v = 0.0
        elif stop_start - 3 <= t < stop_start:
            v *= (stop_start - t) / 4.0
        elif stop_start + stop_len <= t < stop_start + stop_len + 3:
            v *= (t - (stop_start + stop_len) + 1) / 4.0
        speeds.append(max(v, 0.0))
    return speeds, range(stop_start, stop_start + stop_len)


def block_path(perimeter):
    """The walked loop: a rounded rectangle of the given perimeter, as a function of arc length
    that returns (east, north) metres from the centre and the heading in degrees."""
    r = CORNER_RADIUS
    # perimeter = 2 (w + h) - 8 r + 2 pi r, with w = ASPECT h
    h = (perimeter + 8 * r - 2 * math.pi * r) / (2 * (1 + ASPECT))
    w = ASPECT * h
    straight_w, straight_h = w - 2 * r, h - 2 * r
    arc = math.pi * r / 2
    # Clockwise from the south-west corner, first heading north (in the block's own frame).
    pieces = [
        ("line", (-w / 2, -h / 2 + r), 0.0, straight_h),
        ("arc", (-w / 2 + r, h / 2 - r), 270.0, arc),
        ("line", (-w / 2 + r, h / 2), 90.0, straight_w),
        ("arc", (w / 2 - r, h / 2 - r), 0.0, arc),
        ("line", (w / 2, h / 2 - r), 180.0, straight_h),
        ("arc", (w / 2 - r, -h / 2 + r), 90.0, arc),
        ("line", (w / 2 - r, -h / 2), 270.0, straight_w),
        ("arc", (-w / 2 + r, -h / 2 + r), 180.0, arc),
    ]
    rot = math.radians(ROTATION_DEG)

    def at(s):
        s = s % perimeter
        for kind, origin, angle, length in pieces:
            if s <= length:
                break
            s -= length
        if kind == "line":
            heading = angle
            x = origin[0] + s * math.sin(math.radians(heading))
            y = origin[1] + s * math.cos(math.radians(heading))
        else:
            # `angle` is the bearing from the arc's centre to where the arc begins; walking
            # clockwise it grows by 90 degrees over the arc.
            bearing = angle + 90.0 * s / length
            x = origin[0] + r * math.sin(math.radians(bearing))
            y = origin[1] + r * math.cos(math.radians(bearing))
            heading = bearing + 90.0
        # Turn the block's frame onto the map.
        east = x * math.cos(rot) + y * math.sin(rot)
        north = -x * math.sin(rot) + y * math.cos(rot)
        return east, north, (heading + ROTATION_DEG) % 360.0

    return at


def iso_time(offset_seconds):
    t = START + datetime.timedelta(seconds=offset_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    rng = random.Random(SEED)
    speeds, stopped = speed_profile(rng)
    # Distance walked by each second's fix: the speed holds over the second before it.
    s = [0.0]
    for v in speeds[1:]:
        s.append(s[-1] + v)
    path = block_path(s[-1] + speeds[0])  # the loop closes one second after the last fix
    per_lat, per_lon = metres_per_degree(CENTRE_LAT)

    out = []
    out.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.append(
        '<gpx version="1.1" creator="FixKit samples/make_walk.py (synthetic)" '
        'xmlns="http://www.topografix.com/GPX/1/1" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">'
    )
    out.append("  <metadata>")
    out.append("    <name>A walk around a city block (synthetic)</name>")
    out.append("    <time>%s</time>" % iso_time(FIXES))
    out.append("  </metadata>")
    out.append("  <trk>")
    out.append("    <name>%s</name>" % NAME)
    out.append("    <trkseg>")

    err_e = err_n = err_u = 0.0
    hacc_level = vacc_level = 0.0
    for t in range(FIXES):
        east, north, heading = path(s[t])
        # Accuracy: a slow wander, worse on the north side (heading east in the block's frame),
        # where the buildings are tall.
        hacc_level = 0.97 * hacc_level + rng.gauss(0.0, 0.25)
        canyon = 2.5 * max(0.0, math.sin(math.radians(heading - ROTATION_DEG)))
        hacc = min(max(4.7 + canyon + hacc_level, 3.5), 11.0)
        vacc_level = 0.97 * vacc_level + rng.gauss(0.0, 0.2)
        vacc = min(max(3.8 + 0.5 * canyon + vacc_level, 3.0), 8.0)
        sigma = hacc / 2.0
        k = math.sqrt(1 - 0.9**2)
        err_e = 0.9 * err_e + k * rng.gauss(0.0, sigma)
        err_n = 0.9 * err_n + k * rng.gauss(0.0, sigma)
        err_u = 0.9 * err_u + k * rng.gauss(0.0, vacc / 2.0)
        lat = CENTRE_LAT + (north + err_n) / per_lat
        lon = CENTRE_LON + (east + err_e) / per_lon
        # The ground rises 3 m from the south-west corner to the north-east one.
        ele = 14.0 + 3.0 * (east + north + 300.0) / 600.0 + err_u
        hdop = round(hacc / 5.0, 1)
        if t == 0:
            speed, course = -1.0, -1.0
        elif t in stopped:
            speed, course = 0.0, -1.0
        else:
            speed = max(speeds[t] + rng.gauss(0.0, 0.08), 0.0)
            course = (heading + rng.gauss(0.0, 4.0)) % 360.0
        out.append(
            '      <trkpt lon="%.6f" lat="%.6f"><ele>%.6f</ele><time>%s</time><hdop>%.1f</hdop>'
            "<extensions><speed>%.6f</speed><course>%.6f</course><hAcc>%.6f</hAcc><vAcc>%.6f</vAcc>"
            "</extensions></trkpt>"
            % (lon, lat, ele, iso_time(t), hdop, speed, course, hacc, vacc)
        )

    out.append("    </trkseg>")
    out.append("  </trk>")
    out.append("</gpx>")
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))


if __name__ == "__main__":
    main()
