#!/usr/bin/env python3
"""Scores `visits` against make_day.py's known stays (Python standard library only).

    score_visits.py --visits PATH/TO/visits [--seeds 1-200] [-- VISITS OPTIONS...]

For each seed: generate the day, run `visits` on it, match its visits to the truth (same
place: centre within 150 m and overlapping in time, one to one, largest overlap first), and
count stays missed, visits invented, and matched visits outside the tolerances (centre 25 m,
arrival and departure 3 minutes, open ends null exactly when the truth's are). Prints the
totals, the worst errors with their seeds, and a comparison of centre estimators computed from
the same fixes: the weighted median (as StayDetector; weights 1/hacc^2) and the accuracy-
weighted mean, over (a) the fixes `visits` would hold (inside its window and within radius +
hacc of its centre) and (b) every fix in the true stay's window.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_day  # noqa: E402

CENTRE_TOL = 25.0
TIME_TOL = 180.0


def parse_time(text):
    if text is None:
        return None
    import calendar
    main, _, frac = text.rstrip("Z").partition(".")
    t = calendar.timegm(__import__("time").strptime(main, "%Y-%m-%dT%H:%M:%S"))
    return t + (int(frac) / 10 ** len(frac) if frac else 0)


def wmedian(values, weights):
    order = sorted(range(len(values)), key=lambda k: values[k])
    total = sum(weights)
    run = 0.0
    for k in order:
        run += weights[k]
        if run >= total / 2:
            return values[k]
    return values[order[-1]]


def centres(fixes):
    """Weighted median and weighted mean (weights 1/hacc^2) of [(t, lat, lon, hacc)]."""
    w = [1 / max(1, f[3] ** 2) for f in fixes]
    lon0 = fixes[0][2]
    lons = [((f[2] - lon0 + 180) % 360) - 180 for f in fixes]
    lats = [f[1] for f in fixes]
    med = (wmedian(lats, w), make_day.wrap_lon(lon0 + wmedian(lons, w)))
    tw = sum(w)
    mean = (sum(a * b for a, b in zip(lats, w)) / tw, make_day.wrap_lon(lon0 + sum(a * b for a, b in zip(lons, w)) / tw))
    return med, mean


def match(truth, found):
    pairs = []
    for i, t in enumerate(truth):
        ta = parse_time(t["arrival"]) if t["arrival"] else -math.inf
        td = parse_time(t["departure"]) if t["departure"] else math.inf
        for j, v in enumerate(found):
            va = parse_time(v["arrival"]) if v["arrival"] else -math.inf
            vd = parse_time(v["departure"]) if v["departure"] else math.inf
            overlap = min(td, vd) - max(ta, va)
            d = make_day.distance(t["lat"], t["lon"], v["lat"], v["lon"])
            if overlap > 0 and d <= 150:
                pairs.append((overlap, i, j))
    pairs.sort(reverse=True)
    ti, fj, out = set(), set(), []
    for overlap, i, j in pairs:
        if i in ti or j in fj:
            continue
        ti.add(i)
        fj.add(j)
        out.append((i, j))
    return out, [i for i in range(len(truth)) if i not in ti], [j for j in range(len(found)) if j not in fj]


def time_error(truth, found):
    """Seconds between two optional times; inf when one is null and the other is not."""
    if truth is None and found is None:
        return 0.0
    if truth is None or found is None:
        return math.inf
    return abs(parse_time(found) - parse_time(truth))


def run_day(seed, binary, options, radius, fixes_out=None):
    day = make_day.Day(seed).build()
    text = "\n".join(day.lines()) + "\n"
    res = subprocess.run([binary, *options], input=text.encode(), capture_output=True)
    if res.returncode != 0:
        raise SystemExit(f"seed {seed}: visits exit {res.returncode}: {res.stderr.decode()}")
    found = [json.loads(line) for line in res.stdout.decode().splitlines() if line.strip()]
    truth = day.truth["visits"]
    pairs, missed, invented = match(truth, found)
    fixes = [(t, *day.geo(e, n), h) for t, e, n, h in day.fixes]
    fixes = [(t, round(lat, 7), round(lon, 7), round(h, 1)) for t, lat, lon, h in fixes]
    rows = []
    for i, j in pairs:
        t, v = truth[i], found[j]
        va = parse_time(v["arrival"]) if v["arrival"] else -math.inf
        vd = parse_time(v["departure"]) if v["departure"] else math.inf
        held = [f for f in fixes if va <= f[0] <= vd
                and make_day.distance(v["lat"], v["lon"], f[1], f[2]) <= radius + f[3]]
        ta = parse_time(t["arrival"]) if t["arrival"] else -math.inf
        td = parse_time(t["departure"]) if t["departure"] else math.inf
        window = [f for f in fixes if ta <= f[0] <= td]
        (hm, hw), (wm, ww) = centres(held), centres(window)
        err = lambda c: make_day.distance(t["lat"], t["lon"], c[0], c[1])  # noqa: E731
        rows.append({
            "seed": seed, "place": t["place"],
            "centre": make_day.distance(t["lat"], t["lon"], v["lat"], v["lon"]),
            "arrival": time_error(t["arrival"], v["arrival"]),
            "departure": time_error(t["departure"], v["departure"]),
            "arr_signed": (parse_time(v["arrival"]) - parse_time(t["arrival"])) if t["arrival"] and v["arrival"] else None,
            "dep_signed": (parse_time(v["departure"]) - parse_time(t["departure"])) if t["departure"] and v["departure"] else None,
            "median_held": err(hm), "mean_held": err(hw), "median_window": err(wm), "mean_window": err(ww),
        })
    return {
        "seed": seed, "truth": len(truth), "found": len(found), "rows": rows,
        "missed": [(seed, truth[i]["place"]) for i in missed],
        "invented": [(seed, found[j]) for j in invented],
    }


def summarise(results, verbose=True):
    rows = [r for res in results for r in res["rows"]]
    missed = [m for res in results for m in res["missed"]]
    invented = [v for res in results for v in res["invented"]]
    bad_centre = [r for r in rows if r["centre"] > CENTRE_TOL]
    bad_arr = [r for r in rows if r["arrival"] > TIME_TOL]
    bad_dep = [r for r in rows if r["departure"] > TIME_TOL]
    days_ok = sum(1 for res in results if not res["missed"] and not res["invented"]
                  and all(r["centre"] <= CENTRE_TOL and r["arrival"] <= TIME_TOL and r["departure"] <= TIME_TOL for r in res["rows"]))
    truth = sum(res["truth"] for res in results)

    def q(xs, p):
        xs = sorted(x for x in xs if math.isfinite(x))
        return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")

    out = {
        "days": len(results), "days_all_ok": days_ok, "stays": truth, "missed": len(missed), "invented": len(invented),
        "centre_over_25m": len(bad_centre), "arrival_over_3min": len(bad_arr), "departure_over_3min": len(bad_dep),
        "centre_m": {"median": q([r["centre"] for r in rows], 0.5), "p95": q([r["centre"] for r in rows], 0.95),
                     "max": max((r["centre"] for r in rows), default=0)},
        "arrival_s": {"median": q([r["arrival"] for r in rows], 0.5), "p95": q([r["arrival"] for r in rows], 0.95),
                      "max_finite": q([r["arrival"] for r in rows], 1.0),
                      "null_mismatch": sum(1 for r in rows if math.isinf(r["arrival"]))},
        "departure_s": {"median": q([r["departure"] for r in rows], 0.5), "p95": q([r["departure"] for r in rows], 0.95),
                        "max_finite": q([r["departure"] for r in rows], 1.0),
                        "null_mismatch": sum(1 for r in rows if math.isinf(r["departure"]))},
        "signed_bias_s": {"arrival_median": statistics.median([r["arr_signed"] for r in rows if r["arr_signed"] is not None] or [0]),
                          "departure_median": statistics.median([r["dep_signed"] for r in rows if r["dep_signed"] is not None] or [0])},
        "estimators_m": {k: {"mean": statistics.fmean(r[k] for r in rows), "p95": q([r[k] for r in rows], 0.95),
                             "max": max(r[k] for r in rows), "over_25": sum(1 for r in rows if r[k] > 25)}
                         for k in ("median_held", "mean_held", "median_window", "mean_window")} if rows else {},
    }
    if verbose:
        out["missed_list"] = missed[:20]
        out["invented_list"] = [(s, v) for s, v in invented[:20]]
        worst = lambda k: sorted(rows, key=lambda r: -r[k] if math.isfinite(r[k]) else -1e18)[:5]  # noqa: E731
        out["worst_centre"] = [(r["seed"], r["place"], round(r["centre"], 1)) for r in worst("centre")]
        out["worst_arrival"] = [(r["seed"], r["place"], r["arrival"]) for r in sorted(rows, key=lambda r: -r["arrival"])[:8]]
        out["worst_departure"] = [(r["seed"], r["place"], r["departure"]) for r in sorted(rows, key=lambda r: -r["departure"])[:8]]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--visits", required=True)
    p.add_argument("--seeds", default="1-200")
    p.add_argument("--brief", action="store_true")
    p.add_argument("options", nargs="*")
    a = p.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    radius = 50.0
    if "--radius" in a.options:
        radius = float(a.options[a.options.index("--radius") + 1])
    results = [run_day(s, a.visits, a.options, radius) for s in seeds]
    print(json.dumps(summarise(results, not a.brief), indent=1, default=str))


if __name__ == "__main__":
    main()
