#!/usr/bin/env python3
"""Read a FIT file with Garmin's FIT SDK for Python and print its positioned records as
NDJSON, as gpx2fix does: the Python peer in bench/fit.sh.

    python3 bench/py_fit_sdk.py FILE > /dev/null

The SDK reads the whole file into memory and decodes every message; the listener writes
one line per record with a position.
"""

import json
import sys

from garmin_fit_sdk import Decoder, Stream


def main(path):
    out = sys.stdout
    dumps = json.dumps

    def listener(num, m):
        if num == 20 and m.get("position_lat") is not None and m.get("position_long") is not None:
            out.write(dumps({"time": m.get("timestamp"), "lat": m["position_lat"] * 180 / 2**31,
                             "lon": m["position_long"] * 180 / 2**31, "alt": m.get("enhanced_altitude"),
                             "speed": m.get("enhanced_speed")}) + "\n")

    _, errors = Decoder(Stream.from_file(path)).read(convert_datetimes_to_dates=False, mesg_listener=listener)
    if errors:
        print(errors, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
