#!/usr/bin/env python3
"""Make data/demo-recording.csv, the bundled demo recording, from x-io's Fusion example data.

Cuts a stretch of ../shared/datasets/xio-fusion-example/sensor_data.csv (MIT, x-io
Technologies) and converts it to carouseld's native recording CSV (docs/CLI.md "record"):

    timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z

- timestamp_ns: nanoseconds from the first sample of the excerpt (the source's seconds column,
  shifted so the excerpt starts at 0);
- accel_*: m/s², the source's g times standard gravity 9.80665; the source reads +1 g on the axis
  that points up (specific force), the convention of the pipeline, so no sign change;
- gyro_*: rad/s, the source's deg/s times pi/180;
- the magnetometer columns are dropped. Axes are not changed.

The default stretch, 26 s to 48 s, holds still, then tilts the board about its y axis (the
accelerometer's x component swings to about -0.89 g and +0.89 g: docs/FUSION.md "1. Conventions" roll of about +60°
then -60°, the angle that drives a horizontal carousel), then holds still again. Python 3
standard library only.

Usage: scripts/make-demo-recording.py [--source CSV] [--start S] [--end S] [--output CSV]
"""

import argparse
import csv
import math
import os
import sys

STANDARD_GRAVITY = 9.80665  # m/s² per g (CGPM 1901)
HEADER = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"
MAX_BYTES = 300 * 1024


def number(value):
    """Seven significant digits, about the resolution of the source columns."""
    text = "%.7g" % value
    return "0" if text in ("-0", "0") else text


def convert(source, start, end):
    lines = [HEADER]
    first = None
    with open(source, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        if not header[0].startswith("Time"):
            raise SystemExit("%s: unexpected header %r" % (source, header))
        for row in reader:
            t = float(row[0])
            if t < start or t > end:
                continue
            gx, gy, gz, ax, ay, az = (float(v) for v in row[1:7])
            if first is None:
                first = t
            timestamp_ns = round((t - first) * 1e9)
            accel = [number(v * STANDARD_GRAVITY) for v in (ax, ay, az)]
            gyro = [number(math.radians(v)) for v in (gx, gy, gz)]
            lines.append(",".join([str(timestamp_ns)] + accel + gyro))
    return "\n".join(lines) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=os.path.join(
        root, "..", "shared", "datasets", "xio-fusion-example", "sensor_data.csv"))
    parser.add_argument("--start", type=float, default=26.0, help="first second to keep")
    parser.add_argument("--end", type=float, default=48.0, help="last second to keep")
    parser.add_argument("--output", default=os.path.join(root, "data", "demo-recording.csv"))
    args = parser.parse_args()
    text = convert(args.source, args.start, args.end)
    if len(text.encode()) > MAX_BYTES:
        raise SystemExit("excerpt is %d bytes, over the %d-byte budget" % (len(text.encode()), MAX_BYTES))
    with open(args.output, "w", newline="") as handle:
        handle.write(text)
    print("%s: %d samples, %d bytes" % (args.output, text.count("\n") - 1, len(text.encode())), file=sys.stderr)


if __name__ == "__main__":
    main()
