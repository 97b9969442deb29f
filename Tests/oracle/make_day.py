#!/usr/bin/env python3
"""A day of phone fixes with known stays, for testing `visits` (Python standard library only).

    make_day.py --seed N [--out FIXES.ndjson] [--truth TRUTH.json] [--trace NAME]
    make_day.py --seeds A-B --dir DIR      (day-SEED.ndjson and day-SEED.json for each seed)

The day: home -> office -> cafe (a few hundred metres from the office) -> gym -> home, with
walking and driving legs between, as a phone logs it:

- outdoors (legs): 1 Hz, hacc 3-15 m, Gaussian error with that 68% radius, traffic-light stops
  of 20-120 s while driving (not visits);
- indoors (stays): fixes at irregular intervals (5-60 s, and now and then a burst at 1 Hz while
  the phone is in use), the position drifting as a mean-reverting random walk whose offset is
  typically 20-60 m, reported hacc 30-100 m; now and then a better fix (hacc 10-25 m) near a
  window;
- outliers: about 3% of indoor fixes (0.3% outdoors) lie 200-1000 m off with hacc 100-2000 m,
  and about one in six of those with a small hacc (5-30 m), as a bad Wi-Fi or cell fix can;
- gaps: the phone asleep 10-40 minutes inside stays (never within 5 minutes of an arrival or
  departure, so that the truth is knowable from the fixes);
- variants: some days start on the road (no open-start home visit) or end on the road (no
  open-ended home visit); places anywhere on Earth, a few days straddling the antimeridian.

Deterministic per seed (random.Random(seed); no other source of randomness). The truth, written
to --truth as JSON, is {"seed","visits":[{"place","lat","lon","arrival","departure"}],
"stops":[...]} with arrival null when the log begins inside the visit and departure null when
it ends inside it, as `visits` must report them. Fixes are the fix record of SPEC.md: time,
lat, lon, hacc (and trace with --trace).
"""
import argparse
import json
import math
import random
import sys
import time as _time

A = 6378137.0
F = 1 / 298.257223563
E2 = F * (2 - F)


def metres_per_degree(lat):
    """Metres per degree of latitude and of longitude at `lat` (WGS 84)."""
    s = math.sin(math.radians(lat))
    w = math.sqrt(1 - E2 * s * s)
    m = A * (1 - E2) / w ** 3
    n = A / w
    return m * math.pi / 180, n * math.cos(math.radians(lat)) * math.pi / 180


def wrap_lon(lon):
    while lon > 180:
        lon -= 360
    while lon < -180:
        lon += 360
    return lon


def ecef(lat, lon):
    p, l = math.radians(lat), math.radians(lon)
    n = A / math.sqrt(1 - E2 * math.sin(p) ** 2)
    return (n * math.cos(p) * math.cos(l), n * math.cos(p) * math.sin(l), n * (1 - E2) * math.sin(p))


def distance(lat1, lon1, lat2, lon2):
    """Metres, the chord in Earth-centred coordinates (as Geodesy.distance below 50 km)."""
    a, b = ecef(lat1, lon1), ecef(lat2, lon2)
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def rfc3339(t):
    """Seconds since the epoch, to the millisecond, as SPEC's time."""
    ms = int(round(t * 1000))
    s, frac = divmod(ms, 1000)
    text = _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(s))
    return text + (f".{frac:03d}Z" if frac else "Z")


class Day:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        if r.random() < 0.04:
            self.lat0, self.lon0 = r.uniform(-50, 50), 179.97  # the places straddle the antimeridian
        else:
            self.lat0, self.lon0 = r.uniform(-55, 62), r.uniform(-180, 180)
        self.mlat, self.mlon = metres_per_degree(self.lat0)
        self.fixes = []  # (t, east, north, hacc)
        self.stops = []

    def geo(self, e, n):
        return self.lat0 + n / self.mlat, wrap_lon(self.lon0 + e / self.mlon)

    # Outdoors -------------------------------------------------------------------------------

    def outdoor_fix(self, t, e, n):
        r = self.rng
        if r.random() < 0.003:
            self.outlier(t, e, n)
            return
        hacc = r.uniform(3, 15)
        sigma = hacc / 1.51  # hacc is the 68% radius: P(r <= 1.51 sigma) = 0.68 in 2-D
        self.fixes.append((t, e + r.gauss(0, sigma), n + r.gauss(0, sigma), hacc))

    def outlier(self, t, e, n):
        r = self.rng
        d = r.uniform(200, 1000)
        a = r.uniform(0, 2 * math.pi)
        hacc = r.uniform(5, 30) if r.random() < 1 / 6 else math.exp(r.uniform(math.log(100), math.log(2000)))
        self.fixes.append((t, e + d * math.cos(a), n + d * math.sin(a), hacc))

    def leg(self, t, start, end, mode):
        """Moves from `start` to `end` (east, north), walking or driving, logging at 1 Hz from
        the first second after `t`; returns the arrival time."""
        r = self.rng
        (e0, n0), (e1, n1) = start, end
        # An L-shaped route with a random corner, as streets go.
        corner = (e1, n0) if r.random() < 0.5 else (e0, n1)
        points = [start, corner, end]
        speed = r.uniform(1.2, 1.5) if mode == "walk" else r.uniform(8, 14)
        # Traffic-light stops while driving: (distance along the route, seconds).
        length = sum(math.dist(points[i], points[i + 1]) for i in range(len(points) - 1))
        stops = []
        if mode == "drive" and length > 600:
            for _ in range(r.randint(0, 3)):
                stops.append((r.uniform(200, length - 200), r.uniform(20, 120)))
            stops.sort()
        # Time as a function of distance along the route.
        def position(s):
            for i in range(len(points) - 1):
                seg = math.dist(points[i], points[i + 1])
                if s <= seg or i == len(points) - 2:
                    f = 0 if seg == 0 else min(1, s / seg)
                    return (points[i][0] + f * (points[i + 1][0] - points[i][0]),
                            points[i][1] + f * (points[i + 1][1] - points[i][1]))
                s -= seg
        # Breakpoints: (time, distance) pieces.
        timeline = []  # (t_start, s_start, t_end, s_end)
        tc, sc = t, 0.0
        for s_stop, dwell in stops:
            if s_stop <= sc:
                continue
            te = tc + (s_stop - sc) / speed
            timeline.append((tc, sc, te, s_stop))
            timeline.append((te, s_stop, te + dwell, s_stop))
            self.stops.append({"at": rfc3339(te), "seconds": round(dwell, 1)})
            tc, sc = te + dwell, s_stop
        te = tc + (length - sc) / speed
        timeline.append((tc, sc, te, length))
        arrival = te
        tf = math.floor(t) + 1 + self.phase
        for piece in timeline:
            while tf < piece[2]:
                if tf >= piece[0]:
                    f = 0 if piece[2] == piece[0] else (tf - piece[0]) / (piece[2] - piece[0])
                    e, n = position(piece[1] + f * (piece[3] - piece[1]))
                    self.outdoor_fix(tf, e, n)
                tf += 1
        return arrival

    def trip(self, t, start, end, drive):
        """Door to door: a walk to the car, the drive, a walk from the car (or one walk)."""
        r = self.rng
        if not drive:
            return self.leg(t, start, end, "walk")
        a = r.uniform(0, 2 * math.pi)
        car0 = (start[0] + 40 * math.cos(a), start[1] + 40 * math.sin(a))
        b = r.uniform(0, 2 * math.pi)
        car1 = (end[0] + r.uniform(30, 70) * math.cos(b), end[1] + r.uniform(30, 70) * math.sin(b))
        t = self.leg(t, start, car0, "walk")
        t = self.leg(t + r.uniform(10, 40), car0, car1, "drive")
        return self.leg(t + r.uniform(10, 40), car1, end, "walk")

    # Indoors --------------------------------------------------------------------------------

    def stay(self, t0, t1, place, gaps):
        """Indoor fixes at `place` from t0 to t1, except in the gaps [(start, end)]."""
        r = self.rng
        pe, pn = place
        tau = r.uniform(120, 300)  # the drift's correlation time, seconds
        sd = r.uniform(18, 32)  # its stationary standard deviation per axis, metres
        de, dn = r.gauss(0, sd), r.gauss(0, sd)
        we, wn = 0.0, 0.0  # where in the building the user is
        t = t0 + r.uniform(2, 20)
        last = t0
        burst_until = -1
        while t < t1:
            if any(g0 <= t < g1 for g0, g1 in gaps):
                g1 = next(g1 for g0, g1 in gaps if g0 <= t < g1)
                t = g1 + r.uniform(0, 5)
                last = g1
                continue
            dt = t - last
            k = math.exp(-dt / tau)
            de = de * k + r.gauss(0, sd * math.sqrt(1 - k * k))
            dn = dn * k + r.gauss(0, sd * math.sqrt(1 - k * k))
            if r.random() < 0.02:
                we, wn = r.uniform(-12, 12), r.uniform(-12, 12)
            last = t
            u = r.random()
            if u < 0.03:
                self.outlier(t, pe + we, pn + wn)
            elif u < 0.15:
                hacc = r.uniform(10, 25)  # a good fix near a window
                sigma = hacc / 1.51
                self.fixes.append((t, pe + we + r.gauss(0, sigma), pn + wn + r.gauss(0, sigma), hacc))
            else:
                drift = math.hypot(de, dn)
                hacc = min(100, max(30, drift * r.uniform(0.8, 1.6) + r.uniform(0, 20)))
                self.fixes.append((t, pe + we + de + r.gauss(0, 4), pn + wn + dn + r.gauss(0, 4), hacc))
            if t < burst_until:
                t += 1
            else:
                if r.random() < 0.01:
                    burst_until = t + r.uniform(30, 180)  # the phone in use: 1 Hz for a while
                t += r.uniform(5, 60)

    def gaps(self, t0, t1):
        """Phone-asleep gaps of 10-40 minutes inside [t0, t1], at least 5 minutes from either
        end and 5 minutes from each other."""
        r = self.rng
        length = t1 - t0
        if length < 30 * 60:
            return []
        count = r.choice([0, 1, 1, 2]) if length >= 90 * 60 else r.choice([0, 1])
        out = []
        for _ in range(count * 10):
            if len(out) == count:
                break
            g = r.uniform(600, min(2400, length - 1200))
            s = r.uniform(t0 + 300, t1 - 300 - g)
            if all(s + g + 300 <= a or b + 300 <= s for a, b in out):
                out.append((s, s + g))
        return sorted(out)

    # The day --------------------------------------------------------------------------------

    def build(self):
        r = self.rng
        self.phase = r.choice([0, 0, 0.25, 0.5, 0.731])
        day = 86400 * (20513 + self.seed % 365)  # 2026-03-01 onwards
        a = r.uniform(0, 2 * math.pi)
        home = (0.0, 0.0)
        d = r.uniform(2000, 6000)
        office = (d * math.cos(a), d * math.sin(a))
        b = r.uniform(0, 2 * math.pi)
        c = r.uniform(200, 450)  # the cafe: a few hundred metres from the office
        cafe = (office[0] + c * math.cos(b), office[1] + c * math.sin(b))
        g = r.uniform(0, 2 * math.pi)
        gd = r.uniform(1500, 5000)
        gym = (cafe[0] + gd * math.cos(g), cafe[1] + gd * math.sin(g))
        if math.hypot(*gym) < 1000:  # keep the gym away from home
            gym = (gym[0] * 1000 / max(1, math.hypot(*gym)) + 800, gym[1] + 800)
        places = {"home": home, "office": office, "cafe": cafe, "gym": gym}

        start_on_road = r.random() < 0.12
        end_on_road = r.random() < 0.12
        log_start = day + 6.5 * 3600 + r.uniform(0, 1800)
        plan = [
            ("home", r.uniform(40, 110) * 60),
            ("office", r.uniform(150, 270) * 60),
            ("cafe", r.uniform(20, 60) * 60),
            ("gym", r.uniform(40, 90) * 60),
            ("home", r.uniform(60, 200) * 60),
        ]
        truth = []
        t = log_start
        where = home
        for i, (name, length) in enumerate(plan):
            if i > 0:
                drive = name != "cafe" and not (name == "office" and r.random() < 0.15)
                t = self.trip(t, where, places[name], drive)
            arrival, departure = t, t + length
            where = places[name]
            if i == 0 and start_on_road:
                # The log begins on the way to the office: drop the morning at home and the
                # start of the trip.
                t = departure
                continue
            if i == len(plan) - 1 and end_on_road:
                # The log ends on the way home, a few minutes after leaving the gym.
                break
            gaps = self.gaps(arrival, departure)
            self.stay(arrival, departure, where, gaps)
            lat, lon = self.geo(*where)
            truth.append({
                "place": name, "lat": lat, "lon": lon,
                "arrival": None if i == 0 else arrival, "departure": departure,
                "gaps": [[rfc3339(g0), rfc3339(g1)] for g0, g1 in gaps],
            })
            t = departure
        if start_on_road:
            cut = log_start + plan[0][1] + r.uniform(60, 300)
            self.fixes = [f for f in self.fixes if f[0] >= cut]
        if end_on_road:
            # Fixes up to a few minutes into the drive home.
            t_cut = truth[-1]["departure"] + r.uniform(180, 420)
            self.fixes = [f for f in self.fixes if f[0] <= t_cut]
        else:
            truth[-1]["departure"] = None
        self.fixes.sort(key=lambda f: f[0])
        for v in truth:
            for k in ("arrival", "departure"):
                if v[k] is not None:
                    v[k] = rfc3339(v[k])
        self.truth = {"seed": self.seed, "start_on_road": start_on_road, "end_on_road": end_on_road,
                      "visits": truth, "stops": self.stops,
                      "places": {k: dict(zip(("lat", "lon"), self.geo(*p))) for k, p in places.items()}}
        return self

    def lines(self, trace=None):
        out = []
        for t, e, n, hacc in self.fixes:
            lat, lon = self.geo(e, n)
            rec = {"time": rfc3339(t), "lat": round(lat, 7), "lon": round(lon, 7), "hacc": round(hacc, 1)}
            if trace is not None:
                rec["trace"] = trace
            out.append(json.dumps(rec, separators=(",", ":")))
        return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, help="the day's seed")
    p.add_argument("--seeds", help="a range of seeds, A-B, written to --dir as day-SEED.ndjson and day-SEED.json")
    p.add_argument("--dir", help="the directory for --seeds")
    p.add_argument("--out", help="the fixes, NDJSON (default: standard output)")
    p.add_argument("--truth", help="the known stays, JSON")
    p.add_argument("--trace", help="a trace name to put on every fix")
    a = p.parse_args()
    if a.seeds:
        lo, _, hi = a.seeds.partition("-")
        for seed in range(int(lo), int(hi or lo) + 1):
            day = Day(seed).build()
            with open(f"{a.dir}/day-{seed}.ndjson", "w") as f:
                f.write("\n".join(day.lines(a.trace)) + "\n")
            with open(f"{a.dir}/day-{seed}.json", "w") as f:
                json.dump(day.truth, f, indent=1)
                f.write("\n")
        return
    if a.seed is None:
        p.error("--seed or --seeds is required")
    day = Day(a.seed).build()
    text = "\n".join(day.lines(a.trace)) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.truth:
        with open(a.truth, "w") as f:
            json.dump(day.truth, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
