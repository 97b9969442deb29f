#!/usr/bin/env python3
"""Evaluates fencerule's rules under Gauss-Markov position error, with a generator of its own
(numpy; nothing from fixsim).

    steady_eval.py --fencerule PATH [--hours 20] [--walks 200] [--taus 0,10,30,60]
                   [--rules naive,confident,adaptive,steady] [--seed 1] [--json]

The error per axis is a first-order Gauss-Markov process, stationary N(0, sigma^2), exactly
discretised: x' = e^{-dt/tau} x + sigma sqrt(1 - e^{-2 dt/tau}) n (tau = 0: independent).
The reported speed is the true speed plus N(0, 0.1^2), clamped at 0 (a receiver's Doppler
speed). A 100 m fence at (51.5, -0.12); sigma = 8 m, hacc 8, one fix a second.

Scenarios (each one trace per hour or walk, all piped through one fencerule run per rule):
  standing   an hour at 90, 95, 100, 105, 110 m east of the centre: transitions per hour,
             with speed and without (the speed member left out)
  skirting   walks at 1.4 m/s along y = 95 m from x = -300 to 300: transitions per walk
  crossing   walks through the centre at 1.4 and 15 m/s: the share of walks with exactly an
             enter and an exit, and the mean lags (metres past the true edge) of both
  outliers   crossings at 1.4 m/s with 2% of fixes thrown 200 m in a random direction

Prints one line per scenario, rule and tau; --json writes the same as one JSON object.
"""
import argparse
import json
import math
import subprocess
import sys

import numpy as np

LAT0, LON0, RADIUS, SIGMA = 51.5, -0.12, 100.0, 8.0
A, F = 6378137.0, 1 / 298.257223563
E2 = F * (2 - F)
_phi = math.radians(LAT0)
_w2 = 1 - E2 * math.sin(_phi) ** 2
M_LAT = A * (1 - E2) / _w2 ** 1.5 * math.pi / 180  # metres per degree of latitude
M_LON = A / math.sqrt(_w2) * math.cos(_phi) * math.pi / 180  # per degree of longitude
START = 1767258000  # 2026-01-01T09:00:00Z


def gauss_markov(rng, n_traces, n_fixes, tau, dt=1.0):
    """(n_traces, n_fixes) errors of one axis."""
    x = np.empty((n_traces, n_fixes))
    z = rng.standard_normal((n_traces, n_fixes))
    if tau <= 0:
        return SIGMA * z
    phi = math.exp(-dt / tau)
    q = SIGMA * math.sqrt(-math.expm1(-2 * dt / tau))
    x[:, 0] = SIGMA * z[:, 0]
    for k in range(1, n_fixes):
        x[:, k] = phi * x[:, k - 1] + q * z[:, k]
    return x


def stamp(seconds):
    s = int(seconds)
    h, r = divmod(s % 86400, 3600)
    m, s2 = divmod(r, 60)
    day = 1 + s // 86400 - START // 86400
    return "2026-01-%02dT%02d:%02d:%02dZ" % (day, h, m, s2)


def fixes(rng, east, north, speed, tau, name, with_speed=True, outliers=0.0, outlier_size=200.0):
    """NDJSON lines for true tracks (n_traces, n_fixes) in metres from the fence centre."""
    n_traces, n = east.shape
    ex = east + gauss_markov(rng, n_traces, n, tau)
    ny = north + gauss_markov(rng, n_traces, n, tau)
    if outliers > 0:
        hit = rng.random((n_traces, n)) < outliers
        theta = rng.random((n_traces, n)) * 2 * math.pi
        ex = ex + np.where(hit, outlier_size * np.sin(theta), 0)
        ny = ny + np.where(hit, outlier_size * np.cos(theta), 0)
    lat = LAT0 + ny / M_LAT
    lon = LON0 + ex / M_LON
    v = np.maximum(0, speed + 0.1 * rng.standard_normal((n_traces, n)))
    times = [stamp(START + k) for k in range(n)]
    out = []
    for i in range(n_traces):
        la, lo, vv = lat[i].tolist(), lon[i].tolist(), v[i].tolist()
        trace = '"trace":"%s-%d"' % (name, i + 1)
        if with_speed:
            out.extend('{"time":"%s","lat":%r,"lon":%r,"hacc":8,"speed":%r,%s}' % (times[k], la[k], lo[k], vv[k], trace)
                       for k in range(n))
        else:
            out.extend('{"time":"%s","lat":%r,"lon":%r,"hacc":8,%s}' % (times[k], la[k], lo[k], trace) for k in range(n))
    return "\n".join(out) + "\n"


def run(fencerule, fences, rule, text):
    r = subprocess.run([fencerule, "--fences", fences, "--rule", rule], input=text.encode(),
                       capture_output=True, check=True)
    return [json.loads(line) for line in r.stdout.decode().splitlines()]


def per_trace(events):
    out = {}
    for e in events:
        if e["event"] in ("enter", "exit"):
            out.setdefault(e["trace"], []).append(e)
    return out


def walk(speed, y, n_walks):
    n = int(600 / speed) + 1
    t = np.arange(n, dtype=float)
    east = np.tile(-300 + speed * t, (n_walks, 1))
    north = np.full((n_walks, n), y)
    return east, north, np.full((n_walks, n), speed)


def lags(events, speed):
    enter, exit_ = [], []
    for e in events:
        t = (int(e["time"][11:13]) * 3600 + int(e["time"][14:16]) * 60 + int(e["time"][17:19])) - 9 * 3600
        x = -300 + speed * t
        (enter if e["event"] == "enter" else exit_).append(x + 100 if e["event"] == "enter" else x - 100)
    return enter, exit_


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fencerule", required=True)
    ap.add_argument("--fences", default=None)
    ap.add_argument("--hours", type=int, default=20)
    ap.add_argument("--walks", type=int, default=200)
    ap.add_argument("--taus", default="0,10,30,60")
    ap.add_argument("--rules", default="naive,confident,adaptive,steady")
    ap.add_argument("--scenarios", default="standing,nospeed,skirting,crossing,outliers")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import os
    import tempfile
    fences = args.fences
    tmp = None
    if fences is None:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        tmp.write('[{"id":"fence","lat":%r,"lon":%r,"radius":100}]\n' % (LAT0, LON0))
        tmp.close()
        fences = tmp.name
    rules = args.rules.split(",")
    scenarios = args.scenarios.split(",")
    results = {}
    rng = np.random.default_rng(args.seed)
    try:
        for tau in [float(t) for t in args.taus.split(",")]:
            T = 3600
            for scen in ("standing", "nospeed"):
                if scen not in scenarios:
                    continue
                for d in (90, 95, 100, 105, 110):
                    text = fixes(rng, np.full((args.hours, T), float(d)), np.zeros((args.hours, T)),
                                 np.zeros((args.hours, T)), tau, "h", with_speed=scen == "standing")
                    for rule in rules:
                        ev = per_trace(run(args.fencerule, fences, rule, text))
                        rate = sum(len(v) for v in ev.values()) / args.hours
                        results[f"{scen} {d} {rule} {tau:g}"] = rate
                        print(f"{scen:9} d={d:3} tau={tau:<3g} {rule:10} {rate:8.3f} transitions/hour", flush=True)
            if "skirting" in scenarios:
                e, nn, v = walk(1.4, 95.0, args.walks)
                text = fixes(rng, e, nn, v, tau, "w")
                for rule in rules:
                    ev = per_trace(run(args.fencerule, fences, rule, text))
                    rate = sum(len(x) for x in ev.values()) / args.walks
                    results[f"skirting {rule} {tau:g}"] = rate
                    print(f"skirting  95 m  tau={tau:<3g} {rule:10} {rate:8.3f} transitions/walk", flush=True)
            for scen, speed, out_p in (("crossing", 1.4, 0.0), ("crossing", 15.0, 0.0), ("outliers", 1.4, 0.02),
                                       ("outliers", 15.0, 0.02)):
                if scen not in scenarios:
                    continue
                e, nn, v = walk(speed, 0.0, args.walks)
                text = fixes(rng, e, nn, v, tau, "w", outliers=out_p)
                for rule in rules:
                    ev = per_trace(run(args.fencerule, fences, rule, text))
                    two = sum(1 for x in ev.values() if [y["event"] for y in x] == ["enter", "exit"]) / args.walks
                    clean = [y for x in ev.values() if [z["event"] for z in x] == ["enter", "exit"] for y in x]
                    en, ex = lags(clean, speed)
                    me = sum(en) / len(en) if en else float("nan")
                    mx = sum(ex) / len(ex) if ex else float("nan")
                    results[f"{scen} {speed:g} {rule} {tau:g}"] = {"two": two, "enter_lag": me, "exit_lag": mx}
                    print(f"{scen:9} {speed:4g} m/s tau={tau:<3g} {rule:10} exactly 2: {two:6.3f}  lags {me:6.1f} / {mx:6.1f} m",
                          flush=True)
    finally:
        if tmp is not None:
            os.unlink(tmp.name)
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
