#!/usr/bin/env python3
"""The plain Python peer of fixfilter's benchmark: keep the fixes with hacc < 100.

    python3 bench/py_hacc_filter.py FILE.ndjson > kept.ndjson

What a user writes before reaching for a tool: json.loads each line, test hacc, json.dumps
what passes (compact, as jq -c writes it). The rule is jq's `select(.hacc < 100)`, so a fix
without hacc passes (null < 100 in jq) and a negative hacc passes too; fixfilter rejects
negative ones. Standard library only; blank lines are skipped.
"""

import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: py_hacc_filter.py FILE.ndjson")
    loads, dumps = json.loads, json.dumps
    write = sys.stdout.write
    with open(sys.argv[1], "rb") as f:
        for line in f:
            if not line.strip():
                continue
            fix = loads(line)
            hacc = fix.get("hacc")
            if hacc is None or hacc < 100:
                write(dumps(fix, separators=(",", ":")))
                write("\n")


if __name__ == "__main__":
    main()
