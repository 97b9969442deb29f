#!/usr/bin/env python3
"""Makes the seeded shop layouts that FenceBudgetTests reads (checked in beside this script).

    python3 make_shops.py shops-500.json            # 500 shops, radius 50-150 m, 10 km square
    python3 make_shops.py --count 400 --size 400 --rmin 5 --rmax 12 --seed 2 mall-400.json

Shops are placed uniformly in a square of --size metres centred on --origin (east/north in a
local frame with the WGS 84 radii of curvature there, the same frame fixsim's --route uses),
with radii uniform in [--rmin, --rmax]. Coordinates are rounded to 1e-7 degrees (1 cm) and
radii to 0.1 m so the file reads the same on every platform. Python's random.Random(seed) is
stable across Python versions for an integer seed, so re-running reproduces the file.
"""
import argparse, json, math, random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--count", type=int, default=500)
p.add_argument("--size", type=float, default=10000)
p.add_argument("--rmin", type=float, default=50)
p.add_argument("--rmax", type=float, default=150)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--origin", default="51.5,-0.12")
p.add_argument("--prefix", default="shop-")
a = p.parse_args()

lat0, lon0 = (float(x) for x in a.origin.split(","))
A, F = 6378137.0, 1 / 298.257223563
E2 = F * (2 - F)
phi = math.radians(lat0)
w2 = 1 - E2 * math.sin(phi) ** 2
n = A / math.sqrt(w2)
m = n * (1 - E2) / w2
per_lat = m * math.pi / 180
per_lon = n * math.cos(phi) * math.pi / 180

rnd = random.Random(a.seed)
shops = []
for k in range(a.count):
    east = rnd.uniform(-a.size / 2, a.size / 2)
    north = rnd.uniform(-a.size / 2, a.size / 2)
    r = rnd.uniform(a.rmin, a.rmax)
    shops.append({"id": f"{a.prefix}{k + 1}", "lat": round(lat0 + north / per_lat, 7),
                  "lon": round(lon0 + east / per_lon, 7), "radius": round(r, 1)})
with open(a.out, "w") as f:
    f.write("[\n" + ",\n".join(json.dumps(s) for s in shops) + "\n]\n")
