#!/usr/bin/env python3
"""Rewrite the figures table of bench/README.md from the outputs of the bench/ scripts.

    python3 bench/figures.py [--since EPOCH] [--title TEXT] [--dry-run] README.md

bench/all.sh runs it after the scripts. It reads what they left in bench/out/: hyperfine's
JSON exports (medians, user and system CPU, every run's time) and the summary files (peak
memory, instruction counts, pbench's rates). Outputs older than --since (seconds since the
epoch) are ignored, so a script that failed or was left out gives no row rather than a stale
one. Ratios are given from the medians and, as "CPU", from user + system time, which a busy
machine disturbs less.

The table goes between the lines `<!-- figures: begin (bench/all.sh) -->` and
`<!-- figures: end -->` of README.md; nothing else in the file is touched. --dry-run prints
the new section instead. Standard library only.
"""

import argparse
import json
import os
import re
import sys

BEGIN = "<!-- figures: begin (bench/all.sh) -->"
END = "<!-- figures: end -->"

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "out")
since = 0.0


def fresh(name):
    path = os.path.join(out, name)
    return path if os.path.exists(path) and os.path.getmtime(path) >= since else None


def interleaved(name):
    """The CPU ratio of a run's interleaved pairs (bench/cpu_pairs.py) as the table adds it to
    a ratio, or "" where the run made none."""
    path = fresh(name)
    if path is None:
        return ""
    q = json.load(open(path))
    return f"; interleaved CPU {q['median_ratio']:.2f}x ({len(q['ratios'])} rounds)"


def results(name):
    path = fresh(name)
    if path is None:
        return None
    return {r["command"]: r for r in json.load(open(path))["results"]}


def summary(name):
    path = fresh(name)
    return open(path).read() if path else ""


def peaks(text):
    """{label: MiB} from the peak memory lines of a summary."""
    found = {}
    for m in re.finditer(r"^  (\S.*?) +([0-9.]+) MiB$", text, re.M):
        found[m.group(1)] = float(m.group(2))
    return found


def cpu(r):
    return r["user"] + r["system"]


def s(r):
    v = r["median"]
    return f"{v * 1e3:.1f} ms" if v < 0.1 else f"{v:.2f} s" if v < 100 else f"{v:.0f} s"


def ratio(a, b, digits=2):
    """a / b from the medians, and from CPU time."""
    return f"{a['median'] / b['median']:.{digits}f}x (CPU {cpu(a) / cpu(b):.{digits}f}x)"


def mib(v):
    return f"{v:.1f} MiB" if v is not None else "?"


def size_from(labels, pattern):
    """The largest count N of labels matching pattern (with one (\\d+) group), and its label."""
    best = None
    for label in labels:
        m = re.fullmatch(pattern, label)
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), label)
    return best


def rows():
    found = []

    r, text = results("gpx2fix.json"), summary("summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"gpx2fix \((\d+) points\)") or (0, "")
        g, x, b = r["gpx2fix"], r["xmllint --stream"], r.get("gpsbabel")
        peer = f"xmllint --stream {s(x)}" + (f"; GPSBabel {s(b)}, {mib(p.get(f'gpsbabel ({n} points)'))}" if b else "")
        rat = f"{ratio(g, x)} xmllint" + interleaved("gpx2fix-pairs.json") + (f"; GPSBabel {ratio(b, g, 1)} slower" if b else "")
        found.append((f"GPX, {n:,} points", f"gpx2fix {s(g)}, {mib(p.get(label))}", peer, rat,
                      "≤ 1.3x (issue 11: ≤ 1x); ≥ 5x; < 32 MiB"))

    r, text = results("nmea.json"), summary("nmea-summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"gpx2fix \((\d+) epochs\)") or (0, "")
        g, b, u = r["gpx2fix"], r.get("gpsbabel"), r.get("gpsbabel TZ=UTC")
        peer = f"GPSBabel {s(b)}; with TZ=UTC {s(u)}" if b else "GPSBabel not installed"
        rat = f"{ratio(b, g, 1)}; TZ=UTC {ratio(u, g, 1)}" + interleaved("nmea-pairs.json") if b else ""
        found.append((f"NMEA, {n:,} epochs", f"gpx2fix {s(g)}, {mib(p.get(label))}", peer, rat,
                      "≥ 25x; ≥ 20x with TZ=UTC (issue 11)"))

    r, text = results("fit.json"), summary("fit-summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"gpx2fix \((\d+) records\)") or (0, "")
        g, b = r["gpx2fix"], r.get("gpsbabel")
        sdk = (results("fit-sdk.json") or {}).get("garmin-fit-sdk")
        peer = "; ".join(x for x in (f"GPSBabel {s(b)}" if b else "", f"garmin-fit-sdk {s(sdk)}" if sdk else "") if x)
        rat = "; ".join(x for x in (f"GPSBabel {ratio(b, g, 1)}" if b else "", f"SDK {ratio(sdk, g, 0)}" if sdk else "") if x)
        rat += interleaved("fit-pairs.json")
        found.append((f"FIT, {n:,} records", f"gpx2fix {s(g)}, {mib(p.get(label))}", peer, rat, "≥ 10x GPSBabel"))

    r, text = results("takeout.json"), summary("takeout-summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"gpx2fix \((\d+) MiB\)") or (0, "")
        g, j = r["gpx2fix"], r["jq"]
        found.append((f"Takeout Records.json, {n:,} MiB", f"gpx2fix {s(g)}, {mib(p.get(label))}", f"jq {s(j)}",
                      f"jq {ratio(j, g, 1)} slower", "≥ 5x jq"))

    r, text = results("fixfilter.json"), summary("fixfilter-summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"fixfilter \((\d+) fixes\)") or (0, "")
        f, py, jq = r["fixfilter"], r["python"], r.get("jq")
        peer = f"Python json loop {s(py)}" + (f"; jq {s(jq)}" if jq else "")
        rat = f"Python {ratio(py, f, 1)}" + (f"; jq {ratio(jq, f, 1)}" if jq else "")
        found.append((f"fixfilter, {n:,} fixes",
                      f"{s(f)} ({n / f['median'] / 1e6:.2f} M fixes/s), {mib(p.get(label))}", peer, rat,
                      "≥ 10x, aim 20x"))
        if "fixfilter, no cacc" in r:
            f, k, py = r["fixfilter, no cacc"], r["fixfilter --course keep, no cacc"], r["python, no cacc"]
            found.append((f"fixfilter, {n:,} fixes with a course and no cacc", f"{s(f)}; --course keep {s(k)}",
                          f"Python json loop {s(py)}",
                          f"Python {ratio(py, f, 1)}; / keep {ratio(f, k)}" + interleaved("fixfilter-nocacc-pairs.json"),
                          "≥ 20x; ≤ 1.2x keep"))

    r, text = results("fencerule.json"), summary("fencerule-summary.txt")
    if r:
        p = peaks(text)
        n, _ = size_from(p, r"1 fences, (\d+) fixes") or (0, "")
        one, big = r["1 fences"], r["1000000 fences"]
        found.append((f"fencerule, {n:,} fixes (8 m noise), fences over 1000 km",
                      f"1 fence {s(one)}; 1M fences {s(big)}, {mib(p.get(f'1000000 fences, {n} fixes'))}", "",
                      ratio(big, one) + interleaved("fencerule-pairs.json"), "≤ 2x"))
    r = results("fencerule-noisy.json")
    if r:
        p = peaks(text)
        one, big = r["noisy, 1 fence"], r["noisy, 1000000 fences"]
        m = next((v for k, v in p.items() if k.startswith("noisy, 1000000 fences")), None)
        # The CPU ratio from the interleaved pairs (bench/cpu_pairs.py), where the run made them.
        paired = interleaved("fencerule-noisy-pairs.json")
        found.append((f"fencerule, {n:,} fixes, hacc 2-150 m, 1M fences over 100 km",
                      f"1 fence {s(one)}; 1M fences {s(big)}, {mib(m)}", "", ratio(big, one) + paired,
                      "≤ 2x (CPU)"))
    r = results("fencerule-limit.json")
    if r:
        k = re.search(r"--limit 20: ([0-9,]+) fixes", text)
        for walk, what in (("london", "in London with a fix at 0,0 every 1,000"), ("walk", "hundreds of km from most")):
            free, limited = r[f"{walk}, no limit"], r[f"{walk}, --limit 20"]
            found.append((f"fencerule --limit 20, {k.group(1) if k else '?'} fixes {what}, 1,020 fences over 3000 km",
                          f"--limit 20 {s(limited)}; none {s(free)}", "",
                          ratio(limited, free) + interleaved(f"fencerule-limit-{walk}-pairs.json"), "≤ 2x"))
    r = results("fencerule-trace.json")
    if r:
        k = re.search(r"1M fences: ([0-9,]+) fence entries printed \(([0-9.]+) a fix\); --trace adds [0-9.]+ s CPU, (\d+) ns",
                      text)
        found.append(("fencerule --trace, noisy fixes, 1M fences",
                      f"--trace {s(r['1M fences, --trace'])}; none {s(r['1M fences'])}", "",
                      f"{ratio(r['1M fences, --trace'], r['1M fences'])}; "
                      + (f"{k.group(3)} ns a printed entry ({k.group(2)} a fix)" if k else "?"),
                      "what the entries cost"))

    text = summary("pbench-summary.txt")
    if text:
        rates = re.findall(r"^  p / simpson400 = ([0-9.]+)x", text, re.M)
        p_ns = re.findall(r"^  p +[0-9]+ evals/s +\( *([0-9.]+ [nµ]s) each\)", text, re.M)
        if len(rates) >= 2:
            found.append(("P(inside), `pbench`", f"{p_ns[0] if p_ns else '?'} a call (realistic grid)",
                          "Simpson-400", f"{rates[0]}x realistic grid, {rates[1]}x near the edge", "≥ 50x"))

    r, text = results("visits.json"), summary("visits-summary.txt")
    if r:
        p = peaks(text)
        v, f = r["visits, month"], r["fixfilter, month"]
        m = re.search(r"^month: .*?: (\d+) days, (\d+) fixes", text, re.M)
        days, fixes = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        pm = next((val for k, val in p.items() if k.startswith("visits, month")), None)
        found.append((f"visits, {days} days at 1 Hz ({fixes / 1e6:.2f} M fixes)",
                      f"{s(v)} ({fixes / v['median'] / 1e6:.2f} M fixes/s), {mib(pm)}", f"fixfilter {s(f)}",
                      f"{ratio(v, f)} fixfilter" + interleaved("visits-pairs.json"), "≤ 1.5x fixfilter"))

    r, text = results("fixplot.json"), summary("fixplot-summary.txt")
    if r:
        p = peaks(text)
        n, label = size_from(p, r"fixplot, trips \((\d+) fixes\)") or (0, "")
        t, b = r["fixplot, trips"], r["fixplot, block"]
        found.append((f"fixplot, {n:,} fixes", f"trips {s(t)}, {mib(p.get(label))}; block {s(b)}, "
                      f"{mib(p.get(f'fixplot, block ({n} fixes)'))}", "", "", "under 3 s"))

    path = fresh("padding.json")
    if path:
        pad = json.load(open(path))
        w = pad["worst"]
        floors = ", ".join(f"{v['floor']['median']:.2f} s" for v in pad["inputs"].values())
        found.append((f"gpx2fix on {pad['mb']} MB of NULs, of blank lines, of one endless line: every --format and recognition",
                      f"slowest {w['seconds'][0]:.2f} s ({w['seconds'][1]}); most memory {w['peak_mib'][0]:.1f} MiB ({w['peak_mib'][1]})",
                      f"cat \\| wc -c {floors}", f"{w['ratio'][0]:.2f}x (CPU {w['cpu_ratio'][0]:.2f}x) cat",
                      "< 3x cat, < 16 MiB"))

    r = results("startup.json")
    if r:
        g, x = r["gpx2fix"], r["xmllint --stream"]
        runs = len(g["times"])
        found.append((f"start-up, one-point GPX ({runs} runs)", f"gpx2fix {s(g)}", f"xmllint --stream {s(x)}",
                      ratio(g, x), "≤ 1.5x"))

    r = results("bulk.json")
    if r:
        m = re.search(r"^input: +(\d+ rides of \d+ points)", summary("bulk-summary.txt"), re.M)
        one = r["one process"]
        par = next((v for k, v in r.items() if k.startswith("parallel")), None)
        loop = r.get("gpsbabel loop")
        peer = "; ".join(x for x in (f"parallel {s(par)}" if par else "", f"GPSBabel loop {s(loop)}" if loop else "") if x)
        rat = "; ".join(x for x in (f"parallel {ratio(par, one, 1)}" if par else "",
                                     f"GPSBabel loop {ratio(loop, one, 1)}" if loop else "") if x)
        found.append((f"bulk, {m.group(1) if m else 'rides'}", f"one process {s(one)}", peer,
                      rat + (" slower" if rat else ""), ""))
    return found


def guarded_rows():
    """rows(), but a script whose outputs lack a command (cut short, or an optional peer
    missing) loses only its own row: rows() is re-run with that script's outputs hidden."""
    hidden = set()
    while True:
        try:
            return rows_hiding(hidden)
        except KeyError as e:
            name = current[0]
            if name is None or name in hidden:
                raise
            print(f"figures.py: {name} lacks {e}; its row is left out", file=sys.stderr)
            hidden.add(name)


current = [None]


def rows_hiding(hidden):
    global results, summary
    real_results, real_summary = results, summary

    def hiding_results(name):
        current[0] = name
        return None if name in hidden else real_results(name)

    def hiding_summary(name):
        return real_summary(name)

    results, summary = hiding_results, hiding_summary
    try:
        return rows()
    finally:
        results, summary = real_results, real_summary


def table(title):
    lines = [f"## Latest figures ({title})", "",
             "Written by `bench/all.sh` (`bench/figures.py` reads `bench/out/`); do not edit by hand.",
             "Ratios from the medians, and in brackets from user + system CPU time, which a shared",
             "machine disturbs less. Each script's section below has its full output.", "",
             "| benchmark | FixKit | peers (same run) | ratio | target |",
             "|:--|--:|:--|:--|:--|"]
    lines += ["| " + " | ".join(row) + " |" for row in guarded_rows()]
    return "\n".join(lines)


def main():
    global since
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readme", help="bench/README.md")
    ap.add_argument("--since", type=float, default=0.0, help="ignore outputs older than this (seconds since the epoch)")
    ap.add_argument("--title", default="bench/all.sh", help="what the heading says in brackets")
    ap.add_argument("--dry-run", action="store_true", help="print the section instead of writing README.md")
    args = ap.parse_args()
    since = args.since
    section = table(args.title)
    if args.dry_run:
        print(section)
        return
    text = open(args.readme).read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        sys.exit(f"figures.py: {args.readme} must hold one '{BEGIN}' line and, after it, one '{END}' line")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(args.readme + ".tmp", "w") as f:
        f.write(head + BEGIN + "\n" + section + "\n" + END + tail)
    os.replace(args.readme + ".tmp", args.readme)


if __name__ == "__main__":
    main()
