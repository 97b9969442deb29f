#!/usr/bin/env python3
"""An independent reference reader for FIT activity files, for checking gpx2fix.

    python3 fit_oracle.py FILE [--reader auto|sdk|fitdecode]  >  fixes.ndjson

The FIT decoding is done by Garmin's own FIT SDK for Python (`garmin-fit-sdk` on PyPI), or
by `fitdecode` where the SDK cannot read a file (it refuses compressed-timestamp headers, and
a file whose header promises more bytes than there are, or whose CRC is wrong, gives no
messages at all); `--reader auto` (the default) tries the SDK and falls back on fitdecode
when the SDK reports an error.  Only the mapping to fix records is done here, from
gpx2fix's rules (SPEC.md "gpx2fix", `fit`), not from the Swift source:

* one fix per `record` message with both position_lat and position_long: degrees =
  semicircles x 180 / 2^31; lat outside [-90, 90] or lon outside [-180, 180] gives none;
* time = timestamp, seconds since 1989-12-31T00:00:00Z, when it is at least 0x10000000
  (smaller values are device time, not UTC: no time);
* alt = enhanced_altitude, else altitude (the decoder applies scale 5, offset 500);
* speed = enhanced_speed, else speed (scale 1000), m/s;
* hacc = gps_accuracy, metres;
* seg from 0, one more at the first fix after an `event` message with event `timer` and
  event_type stop, stop_all, stop_disable or stop_disable_all, or after a new chained file
  (a `file_id` message after fixes);
* trace = the file's name.

Standard error says which reader was used, and the decoder's error if there was one.
Exit 0, or 2 for bad usage or when neither decoder is installed.
"""

import datetime
import json
import os
import sys

FIT_EPOCH = datetime.datetime(1989, 12, 31, tzinfo=datetime.timezone.utc)
STOPS = {"stop", "stop_all", "stop_disable", "stop_disable_all"}
STOP_NUMBERS = {1, 4, 8, 9}


class Mapper:
    def __init__(self, trace):
        self.trace = trace
        self.fixes = []
        self.seg = 0
        self.seg_has_fix = False
        self.pending = False

    def new_file(self):
        if self.seg_has_fix:
            self.pending = True

    def event(self, event, event_type):
        timer = event in ("timer", 0)
        stop = event_type in STOPS or event_type in STOP_NUMBERS
        if timer and stop and self.seg_has_fix:
            self.pending = True

    def record(self, get):
        lat, lon = get("position_lat"), get("position_long")
        if lat is None or lon is None:
            return
        lat = lat * 180 / 2**31
        lon = lon * 180 / 2**31
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            return
        fix = {}
        ts = get("timestamp")
        if ts is not None and ts >= 0x10000000:
            t = FIT_EPOCH + datetime.timedelta(seconds=ts)
            fix["time"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
        fix["lat"], fix["lon"] = lat, lon
        alt = get("enhanced_altitude")
        if alt is None:
            alt = get("altitude")
        if alt is not None:
            fix["alt"] = alt
        hacc = get("gps_accuracy")
        if hacc is not None:
            fix["hacc"] = hacc
        speed = get("enhanced_speed")
        if speed is None:
            speed = get("speed")
        if speed is not None:
            fix["speed"] = speed
        if self.pending:
            self.seg += 1
            self.pending = False
        fix["trace"] = self.trace
        fix["seg"] = self.seg
        self.seg_has_fix = True
        self.fixes.append(fix)


def first(v):
    return v[0] if isinstance(v, (list, tuple)) and v else v


def read_sdk(path, mapper):
    from garmin_fit_sdk import Decoder, Stream

    def listener(num, mesg):
        if num == 0:
            mapper.new_file()
        elif num == 20:
            mapper.record(lambda k: first(mesg.get(k)))
        elif num == 21:
            mapper.event(mesg.get("event"), mesg.get("event_type"))

    decoder = Decoder(Stream.from_file(path))
    _, errors = decoder.read(convert_datetimes_to_dates=False, mesg_listener=listener)
    return [str(e) for e in errors]


def read_fitdecode(path, mapper):
    import fitdecode

    def raw(frame, name):
        # A field may come twice: as itself and expanded from another's components
        # (altitude -> enhanced_altitude); the first valid one is taken.
        for f in frame.fields:
            if f.name == name:
                v = first(f.raw_value if name == "timestamp" else f.value)
                if v is not None:
                    return v
        return None

    try:
        with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.DISABLED) as reader:
            for frame in reader:
                if not isinstance(frame, fitdecode.FitDataMessage):
                    continue
                if frame.global_mesg_num == 0:
                    mapper.new_file()
                elif frame.global_mesg_num == 20:
                    mapper.record(lambda k: raw(frame, k))
                elif frame.global_mesg_num == 21:
                    mapper.event(raw(frame, "event"), raw(frame, "event_type"))
    except Exception as e:  # the frames before the error are kept, as gpx2fix keeps them
        return [f"{type(e).__name__}: {e}"]
    return []


def main(argv):
    args = argv[1:]
    reader = "auto"
    if "--reader" in args:
        i = args.index("--reader")
        reader = args[i + 1]
        del args[i : i + 2]
    if len(args) != 1 or reader not in ("auto", "sdk", "fitdecode"):
        print("usage: fit_oracle.py FILE [--reader auto|sdk|fitdecode]", file=sys.stderr)
        return 2
    path = args[0]
    trace = os.path.basename(path)
    used, errors = reader, []
    if reader in ("auto", "sdk"):
        mapper = Mapper(trace)
        try:
            errors = read_sdk(path, mapper)
            used = "sdk"
        except ImportError:
            if reader == "sdk":
                print("fit_oracle: garmin-fit-sdk is not installed", file=sys.stderr)
                return 2
            errors = ["not installed"]
    if reader == "fitdecode" or (reader == "auto" and errors):
        if errors:
            print(f"fit_oracle: {trace}: sdk: {errors[0]}", file=sys.stderr)
        mapper = Mapper(trace)
        try:
            errors = read_fitdecode(path, mapper)
        except ImportError:
            print("fit_oracle: fitdecode is not installed", file=sys.stderr)
            return 2
        used = "fitdecode"
    print(f"fit_oracle: {trace}: read by {used}" + (f"; {errors[0]}" if errors else ""), file=sys.stderr)
    out = sys.stdout
    for fix in mapper.fixes:
        out.write(json.dumps(fix, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
