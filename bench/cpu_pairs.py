#!/usr/bin/env python3
"""CPU time of two commands run in turn, round after round, and the ratio in each round.

    python3 bench/cpu_pairs.py [--rounds N] [--out FILE.json] -- A ARG... -- B ARG...

Standard library only. Each round runs A and B once each, one after the other (A first in
odd rounds, B first in even ones), with standard output to /dev/null, and takes each one's
CPU time (user + system, from wait4's resource usage: the command and its children). On a
shared machine whose speed drifts over seconds, the two runs of a round see nearly the same
machine, so the median of the rounds' ratios B/A is steadier than a ratio of two means taken
minutes apart (hyperfine runs all of one command's runs, then the other's).

Prints one line: the median ratio, its range over the rounds, and each command's median CPU
time. With --out, writes {"a": [s...], "b": [s...], "ratios": [...], "median_ratio": r}.
A command that fails stops the script with its exit status.
"""

import json
import os
import statistics
import subprocess
import sys


USAGE = "usage: python3 bench/cpu_pairs.py [--rounds N] [--out FILE.json] -- A ARG... -- B ARG..."


def cpu_seconds(argv):
    """Runs argv with standard output to /dev/null; its user + system CPU time in seconds."""
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(argv, stdout=null)
        _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"cpu_pairs.py: {' '.join(argv)} failed (exit status {code})")
    return usage.ru_utime + usage.ru_stime


def main():
    args = sys.argv[1:]
    rounds, out = 5, None
    while args and args[0] != "--":
        if args[0] == "--rounds" and len(args) > 1:
            rounds = int(args[1])
            args = args[2:]
        elif args[0] == "--out" and len(args) > 1:
            out = args[1]
            args = args[2:]
        else:
            sys.exit(USAGE)
    if args.count("--") != 2 or args[0] != "--" or rounds < 1:
        sys.exit(USAGE)
    split = args.index("--", 1)
    a, b = args[1:split], args[split + 1:]
    if not a or not b:
        sys.exit("cpu_pairs.py: both commands are needed")
    times = {"a": [], "b": []}
    for r in range(rounds):
        order = (("a", a), ("b", b)) if r % 2 == 0 else (("b", b), ("a", a))
        for key, argv in order:
            times[key].append(cpu_seconds(argv))
    # A run too short for the clock's resolution counts a microsecond.
    ratios = [tb / max(ta, 1e-6) for ta, tb in zip(times["a"], times["b"])]
    median = statistics.median(ratios)
    print(f"median ratio {median:.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}x); "
          f"CPU medians {statistics.median(times['a']):.3f} s and {statistics.median(times['b']):.3f} s")
    if out:
        with open(out, "w") as f:
            json.dump({**times, "ratios": ratios, "median_ratio": median}, f)


if __name__ == "__main__":
    main()
