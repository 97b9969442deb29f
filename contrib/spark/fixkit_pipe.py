#!/usr/bin/env python3
"""Run FixKit tools, unchanged, over fixes in bulk on Spark: one pipeline per partition.

    spark-submit contrib/spark/fixkit_pipe.py [options] COMMAND OUTPUT INPUT...
    spark-submit contrib/spark/fixkit_pipe.py [options] --files-from LIST COMMAND OUTPUT

COMMAND is a shell pipeline of FixKit tools reading fix records (for example
'fixfilter | fixstats'); it is run by `sh -c` through RDD.pipe, once per partition.
OUTPUT is a folder Spark writes the output lines into (part-00000, ...), or '-' for
standard output.

The input is either INPUT..., files of NDJSON fix records (what gpx2fix writes; globs,
folders and .gz as Spark's textFile reads them), or with --files-from a file listing ride
files one a line, in any format gpx2fix reads: each is turned into fixes by its own
`gpx2fix FILE` on an executor, and rides named alike in different files are then renamed as
one gpx2fix over all the files, in the list's order, would name them (`Morning Ride
(ride-2.gpx)`), so that they stay two traces.

Every tool keeps state per trace only (SPEC "Many machines"), so each trace is sent whole to
one partition (by a hash of its name) and sorted there by trace, then by time; fixes with
the same time, and fixes without a time (which come after the timed ones of their trace),
keep their input order. With --input-order each trace keeps its input order instead (when
the order matters, as for fixfilter's age rule on data that is not in time order). A line
that is not a fix object goes with the fixes without a trace, so that the tool reports it.

The tools must be on the PATH of every executor: --path DIR is put in front of it
(default: the driver's PATH is passed on).
"""

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import zlib


def parse_time(value):
    """Seconds since 1970 of an ISO 8601 time, or None."""
    if not isinstance(value, str):
        return None
    try:
        t = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)  # times without a zone are UTC (fix(5))
    return t.timestamp()


def parse(line):
    """The fix object of a line, or None."""
    try:
        fix = json.loads(line)
    except ValueError:
        return None
    return fix if isinstance(fix, dict) else None


def sort_key(line, position, input_order):
    """(group, order): group is what keeps a trace together, order sorts within it.

    Both are tuples of comparable parts only (None never meets a string)."""
    fix = parse(line)
    trace = fix.get("trace") if fix is not None else None
    group = (0, "") if not isinstance(trace, str) else (1, trace)
    if input_order:
        return group, (position,)
    t = parse_time(fix.get("time")) if fix is not None else None
    return group, ((0, t) if t is not None else (1, 0.0), position)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", help="the pipeline of tools, e.g. 'fixfilter | fixstats'")
    ap.add_argument("output", help="the output folder (must not exist), or - for standard output")
    ap.add_argument("inputs", nargs="*", help="NDJSON fix files (globs, folders, .gz)")
    ap.add_argument("--files-from", metavar="LIST", help="a file naming ride files, one a line, read by gpx2fix")
    ap.add_argument("--partitions", type=int, default=0, help="partitions (default: Spark's default parallelism)")
    ap.add_argument("--master", help="the Spark master (default: spark-submit's, else local[*])")
    ap.add_argument("--path", action="append", default=[], metavar="DIR",
                    help="a folder put in front of the tools' PATH (repeatable)")
    ap.add_argument("--input-order", action="store_true",
                    help="keep each trace's input order instead of sorting it by time")
    ap.add_argument("--no-check", action="store_true",
                    help="accept a pipeline's non-zero exit status (default: the job fails)")
    args = ap.parse_args()
    if bool(args.inputs) == bool(args.files_from):
        ap.error("give either NDJSON INPUT files or --files-from LIST, not both or neither")

    from pyspark import StorageLevel
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("fixkit_pipe")
    if args.master:  # else spark-submit's --master; python3 with pyspark starts local[*]
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    partitions = args.partitions if args.partitions > 0 else sc.defaultParallelism
    env = {"PATH": os.pathsep.join(args.path + [os.environ.get("PATH", os.defpath)])}
    for name in ("LANG", "LC_ALL", "TMPDIR", "HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    input_order = args.input_order

    if args.files_from:
        with open(args.files_from, encoding="utf-8") as f:
            paths = [p.rstrip("\n") for p in f if p.strip()]

        def convert(numbered):
            # One gpx2fix a file, as `parallel gpx2fix {}` runs it; its messages go to the
            # executor's standard error.
            number, path = numbered
            r = subprocess.run(["gpx2fix", "--", path], env=env, stdout=subprocess.PIPE, check=False)
            if r.returncode not in (0, 1):
                raise RuntimeError(f"gpx2fix {path} exited with status {r.returncode}")
            for position, line in enumerate(r.stdout.decode("utf-8").splitlines()):
                fix = parse(line)
                trace = fix.get("trace") if fix is not None else None
                yield (number, position, trace if isinstance(trace, str) else None), line

        fixes = sc.parallelize(list(enumerate(paths)), max(1, min(len(paths), partitions))).flatMap(convert)
        fixes = fixes.persist(StorageLevel.MEMORY_AND_DISK)
        # Each gpx2fix saw one file, so two rides named alike in different files have one
        # trace; the tools would take them for one. Rename them as one gpx2fix over all the
        # files in the list's order does (TraceNames): from one small record per recording.
        firsts = fixes.map(lambda kv: ((kv[0][0], kv[0][2]), kv[0][1])).reduceByKey(min).collect()
        renames = sc.broadcast(one_run_names(sorted(firsts, key=lambda r: (r[0][0], r[1])), paths))

        def rename(kv):
            (number, position, trace), line = kv
            new = renames.value.get((number, trace))
            if new is not None:
                line = with_trace(line, trace, new)
            return sort_key(line, (number, position), input_order), line

        keyed = fixes.map(rename)
    else:
        lines = sc.textFile(",".join(args.inputs))
        # (input partition, line in it) is the input order: textFile's partitions follow the
        # files and the bytes in them, and numbering them costs no extra pass, as zipWithIndex
        # would.
        def number(index, part):
            for position, line in enumerate(part):
                yield sort_key(line, (index, position), input_order), line

        keyed = lines.mapPartitionsWithIndex(number)

    # The key is (trace, order): partition by the trace, sort by both.
    sorted_lines = keyed.repartitionAndSortWithinPartitions(
        partitions, partitionFunc=lambda key: hash_group(key[0]), keyfunc=lambda key: key).values()
    out = sorted_lines.pipe("sh -c " + shlex.quote(args.command), env=env, checkCode=not args.no_check)
    if args.output == "-":
        for line in out.toLocalIterator():
            sys.stdout.write(line + "\n")
    else:
        out.saveAsTextFile(args.output)
    spark.stop()


def one_run_names(recordings, paths):
    """{(file number, trace): new name} for the recordings whose name an earlier file took.

    `recordings` are ((file number, trace), first position), in the order of the files and
    of the recordings in each. The rule is gpx2fix's (SPEC: Two recordings never share a
    trace): the first keeps its name, a later one gets its file's name appended, then a
    number, the first free from 2. The names equal one run's as long as no file has two
    recordings of one name (gpx2fix has renamed the second within its file already)."""
    used, renames = set(), {}
    for (number, trace), _ in recordings:
        if trace is None:
            continue
        name = trace
        if name in used:
            file = os.path.basename(paths[number])
            if file.endswith(".gz"):
                file = file[:-3]
            stem = f"{trace} ({file}, " if file != trace else f"{trace} ("
            name = f"{trace} ({file})" if file != trace else None
            if name is None or name in used:
                k = 2
                while f"{stem}{k})" in used:
                    k += 1
                name = f"{stem}{k})"
            renames[(number, trace)] = name
        used.add(name)
    return renames


def with_trace(line, old, new):
    """The line with its "trace" member, written as the tool wrote it, changed to `new`."""
    decoder = json.JSONDecoder()
    start = 0
    while (at := line.find('"trace":', start)) >= 0:
        value = at + len('"trace":')
        try:
            decoded, end = decoder.raw_decode(line, value)
        except ValueError:
            decoded, end = None, value
        if decoded == old:
            return line[:value] + json.dumps(new, ensure_ascii=False) + line[end:]
        start = end
    return line


def hash_group(group):
    """A hash of a trace that is the same in every Python worker (no PYTHONHASHSEED)."""
    return zlib.crc32(json.dumps(group).encode("utf-8"))


if __name__ == "__main__":
    main()
