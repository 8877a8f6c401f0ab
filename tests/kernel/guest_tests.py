#!/usr/bin/env python3
"""The tests that tests/kernel/run runs inside the guest (root, Debian's kernel, udev running):
carouseld and carouselctl, built on the host, against Linux's own IIO drivers.

  guest_tests.py [TEST...]      all tests, or the named ones; prints one line per test
                                ("ok NAME: details" / "FAIL NAME: reason") and writes
                                results.json (name, ok, seconds, details) to $KERNEL_TEST_OUT.

Every expected value is computed here from what was injected (raw HID values, the scale the
HID sensor drivers derive from the descriptor's unit exponent), never read back from carouseld.
"""
import contextlib
import csv
import glob
import io
import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uhid_sensor_hub as uhid  # noqa: E402

BIN = os.environ.get("CAROUSEL_BIN", "")
OUT = os.environ.get("KERNEL_TEST_OUT", "/tmp")
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = "/run/kernel-test/work"
TESTS = []


class Failure(Exception):
    pass


def test(fn):
    TESTS.append(fn)
    return fn


def check(cond, message):
    if not cond:
        raise Failure(message)


def log(msg):
    print("    " + msg, flush=True)


def run(cmd, timeout=60, check_status=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check_status and p.returncode != 0:
        raise Failure("%s exited %d: %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout).strip()[-600:]))
    return p


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = predicate()
        if v:
            return v
        time.sleep(0.05)
    raise Failure("timed out after %g s waiting for %s" % (timeout, what))


def iio_devices():
    """{name: iio:deviceN} for the IIO devices present now."""
    found = {}
    for d in glob.glob("/sys/bus/iio/devices/iio:device*"):
        try:
            found[open(d + "/name").read().strip()] = os.path.basename(d)
        except OSError:
            pass
    return found


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


@contextlib.contextmanager
def sensor_hub(bits=16, interval_ms=20, accel=(0, 0, -1000), gyro=(0, 0, 0)):
    """A uhid sensor hub whose accel_3d and gyro_3d IIO devices exist (udev done) inside the
    block, unplugged after it."""
    hub = uhid.SensorHub(bits=bits, interval_ms=interval_ms)
    hub.set_values(hub.accel, accel)
    hub.set_values(hub.gyro, gyro)
    hub.start()
    try:
        wait_for(lambda: {"accel_3d", "gyro_3d"} <= set(iio_devices()), 20, "accel_3d and gyro_3d")
        run(["udevadm", "settle", "--timeout=20"])
        yield hub
    finally:
        hub.destroy()
        wait_for(lambda: not ({"accel_3d", "gyro_3d"} & set(iio_devices())), 20, "the hub's IIO devices to go")
        subprocess.run(["udevadm", "settle", "--timeout=20"])


def carouselctl(*args, timeout=60, check_status=True, user=None):
    cmd = [BIN + "/carouselctl", *args]
    if user:
        cmd = ["setpriv", "--reuid", user, "--regid", user, "--init-groups", "--"] + cmd
    return run(cmd, timeout=timeout, check_status=check_status)


def record(*args, duration=2.0, user=None, check_status=True):
    """carouselctl record to a CSV; returns (rows as float tuples, stderr)."""
    path = os.path.join(WORK, "record-%d.csv" % time.monotonic_ns())
    p = carouselctl("record", "--output", path, "--duration", str(duration), *args, timeout=60 + duration,
                    user=user, check_status=check_status)
    if p.returncode != 0:
        return None, p.stderr
    rows = list(csv.reader(open(path)))
    check(rows and rows[0][:4] == ["timestamp_ns", "accel_x", "accel_y", "accel_z"], "CSV header: %r" % rows[:1])
    return [tuple(float(v) if v else None for v in r) for r in rows[1:]], p.stderr


# --- Expected values -------------------------------------------------------------------------

def accel_expected(raw):
    """m/s^2 carouseld records for raw accel (x, y, z): scale, then the gravity convention's
    negation (identity mount matrix)."""
    return tuple(-v * uhid.ACCEL_SCALE for v in raw)


def gyro_expected(raw):
    return tuple(v * uhid.GYRO_SCALE for v in raw)


def gravity_raw(roll_deg, pitch_deg, g_lsb=1000):
    """Raw accel (LSB, 1 g = 1000) of the gravity vector for an attitude: the specific force's
    direction is u = (-sin roll, cos roll sin pitch, cos roll cos pitch) (docs/FUSION.md), the
    sensor reports gravity = -u."""
    r, p = math.radians(roll_deg), math.radians(pitch_deg)
    u = (-math.sin(r), math.cos(r) * math.sin(p), math.cos(r) * math.cos(p))
    return tuple(int(round(-c * g_lsb)) for c in u)


def close(a, b, tol):
    return a is not None and b is not None and all(abs(x - y) <= tol for x, y in zip(a, b))


# --- The daemon and its watchers ------------------------------------------------------------

class Daemon:
    """carouseld in the foreground with a private socket and configuration."""

    def __init__(self, name="d", sensor_extra="", user=None):
        self.dir = os.path.join(WORK, "daemon-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.socket = os.path.join(self.dir, "carouseld.sock")
        self.config = os.path.join(self.dir, "carouseld.conf")
        with open(self.config, "w") as f:
            f.write("[sensor]\nsample_rate_hz = 50\n%s\n[server]\nsocket = %s\nsocket_mode = 0666\nidle_timeout_s = 0\n"
                    "[calibration]\nfile = %s/calibration.conf\n" % (sensor_extra, self.socket, self.dir))
        if user:
            shutil.chown(self.dir, user, user)
        self.log_path = os.path.join(self.dir, "carouseld.log")
        cmd = [BIN + "/carouseld", "--foreground", "--config", self.config]
        if user:
            cmd = ["setpriv", "--reuid", user, "--regid", user, "--init-groups", "--"] + cmd
        self.proc = subprocess.Popen(cmd, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT)
        wait_for(lambda: os.path.exists(self.socket) or self.proc.poll() is not None, 30, "carouseld's socket")
        check(self.proc.poll() is None, "carouseld exited %s: %s" % (self.proc.returncode, self.log()))

    def log(self):
        return open(self.log_path).read()[-2000:]

    def status(self):
        p = carouselctl("status", "--json", "--socket", self.socket)
        return json.loads(p.stdout)

    def open_fds(self):
        return len(os.listdir("/proc/%d/fd" % self.proc.pid))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Watcher:
    """A `watch` client: every message with its CLOCK_MONOTONIC arrival time (ns)."""

    def __init__(self, socket_path, max_rate_hz=60):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(socket_path)
        self.sock.sendall(json.dumps({"cmd": "watch", "max_rate_hz": max_rate_hz}).encode() + b"\n")
        self.messages, self.lock = [], threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            t = time.monotonic_ns()
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                with self.lock:
                    self.messages.append((t, json.loads(line)))
                    self.lock.notify_all()

    def wait(self, predicate, timeout, what, start=0):
        """The first message at or after index `start` for which predicate(m) holds: (index, t, m)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            i = start
            while True:
                while i < len(self.messages):
                    t, m = self.messages[i]
                    if predicate(m):
                        return i, t, m
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    last = [m for _, m in self.messages[-3:]]
                    raise Failure("watcher: no %s within %g s; last: %s" % (what, timeout, last))
                self.lock.wait(left)

    def close(self):
        self.sock.close()


def sensor_is(status):
    return lambda m: m.get("class") == "SENSOR" and m.get("status") == status


# --- Tests -----------------------------------------------------------------------------------

def sensors_listing(bits):
    with sensor_hub(bits=bits):
        devs = iio_devices()
        listing = json.loads(carouselctl("sensors", "--json").stdout)
        by_name = {s["name"]: s for s in listing}
        check(set(by_name) == {"accel_3d", "gyro_3d"}, "sensors listed: %s" % sorted(by_name))
        stype = "le:s%d/32>>0" % bits
        for name, kind, axes, scale in (("accel_3d", "accel", "accel", uhid.ACCEL_SCALE),
                                        ("gyro_3d", "gyro", "anglvel", uhid.GYRO_SCALE)):
            s = by_name[name]
            check(s["type"] == kind, "%s type %s" % (name, s["type"]))
            check(s["path"].endswith("/" + devs[name]) and s["dev"] == "/dev/" + devs[name], "%s path %s dev %s" % (name, s["path"], s["dev"]))
            chans = [(c["name"], c["index"], c["type"]) for c in s["channels"]]
            want = [(axes + "_x", 0, stype), (axes + "_y", 1, stype), (axes + "_z", 2, stype), ("timestamp", 3, "le:s64/64>>0")]
            check(chans == want, "%s channels %s, expected %s" % (name, chans, want))
            for c in s["channels"][:3]:
                # The kernel prints IIO_VAL_INT_PLUS_NANO: the scale truncated to 9 decimals.
                check(abs(c["scale"] - math.floor(scale * 1e9) / 1e9) < 1e-12, "%s %s scale %r, expected %.9f" % (name, c["name"], c["scale"], scale))
                check(c["offset"] == 0, "%s offset %r" % (name, c["offset"]))
            check(s["mount_matrix_source"] == "identity" and s["mount_matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                  "%s mount matrix %s (%s)" % (name, s["mount_matrix"], s["mount_matrix_source"]))
            check(s["buffered"] and s["triggers"] == ["%s-%s" % (name, devs[name].replace("iio:device", "dev"))],
                  "%s buffered %s triggers %s" % (name, s["buffered"], s["triggers"]))
            check(s["warnings"] == [], "%s warnings %s" % (name, s["warnings"]))
        # The pairing: carouselctl record reads the accelerometer with the gyroscope beside it.
        rows, err = record("--duration", "0.5", duration=0.5)
        pair = "reading accel_3d (%s) + gyro_3d (%s)" % (devs["accel_3d"], devs["gyro_3d"])
        check(pair in err, "pairing not found: %s" % err.strip()[-400:])
        text = carouselctl("sensors").stdout
        return "%s %s; %s; text form %d lines" % (devs["accel_3d"], devs["gyro_3d"], stype, len(text.splitlines()))


@test
def sensors_listing_16bit():
    return sensors_listing(16)


@test
def sensors_listing_32bit():
    return sensors_listing(32)


def injected_sequences(bits):
    """Accel and gyro raw sequences with negative values on every axis; 32-bit fields get values
    beyond 16 bits, which a 16-bit reading would wrap."""
    big = 70000 if bits == 32 else 0
    accel = [(120, -340, -1000), (-517, 250, -830), (0, -1000, 3), (-1, 1, -999 - big), (300 + big, -700, -640)]
    gyro = [(-250, 1300, -7), (4000, -3999, 1), (-32768 if bits == 16 else -200000, 32767, 0)]
    return accel, gyro


def record_test(bits, mode):
    accel_seq, gyro_seq = injected_sequences(bits)
    with sensor_hub(bits=bits, interval_ms=20) as hub:
        if mode == "buffered":
            hub.set_sequence(hub.accel, accel_seq)
            hub.set_sequence(hub.gyro, gyro_seq)
        else:
            # Polled reads fetch one axis at a time: constant values, so that no read straddles
            # two reports.
            accel_seq, gyro_seq = accel_seq[1:2], gyro_seq[2:3]
            hub.set_values(hub.accel, accel_seq[0])
            hub.set_values(hub.gyro, gyro_seq[0])
        rows, err = record("--mode", mode, "--rate", "50", duration=3 if mode == "buffered" else 4)
    check(("in %s mode" % mode) in err, "mode line missing: %s" % err.strip()[-300:])
    check(len(rows) >= (20 if mode == "buffered" else 3), "only %d samples" % len(rows))
    a_lsb, g_lsb = uhid.ACCEL_SCALE * 1.000001, uhid.GYRO_SCALE * 1.000001
    want_a = [accel_expected(v) for v in accel_seq]
    want_g = [gyro_expected(v) for v in gyro_seq]
    seen_a, seen_g = set(), set()
    for r in rows:
        a, g = r[1:4], r[4:7]
        ia = [i for i, w in enumerate(want_a) if close(a, w, a_lsb)]
        check(ia, "sample %s matches no injected accel %s" % (a, want_a))
        seen_a.add(ia[0])
        if g[0] is not None:
            ig = [i for i, w in enumerate(want_g) if close(g, w, g_lsb)]
            check(ig, "sample gyro %s matches no injected gyro %s" % (g, want_g))
            seen_g.add(ig[0])
    check(seen_a == set(range(len(want_a))), "accel values seen %s of %d" % (sorted(seen_a), len(want_a)))
    check(seen_g == set(range(len(want_g))), "gyro values seen %s of %d" % (sorted(seen_g), len(want_g)))
    ts = [r[0] for r in rows]
    check(all(b > a for a, b in zip(ts, ts[1:])), "timestamps not strictly increasing: %s" %
          [(a, b) for a, b in zip(ts, ts[1:]) if b <= a][:3])
    span = (ts[-1] - ts[0]) / 1e9
    return "%d samples over %.2f s (%.1f Hz), %d accel / %d gyro vectors all matched within 1 LSB" % (
        len(rows), span, (len(rows) - 1) / span if span else 0, len(want_a), len(want_g))


@test
def record_buffered_16bit():
    return record_test(16, "buffered")


@test
def record_buffered_32bit():
    return record_test(32, "buffered")


@test
def record_polled_16bit():
    return record_test(16, "polled")


@test
def record_polled_32bit():
    return record_test(32, "polled")


def tilt_test(bits, roll, pitch, mode="auto"):
    raw = gravity_raw(roll, pitch)
    with sensor_hub(bits=bits, accel=raw) as hub:
        d = Daemon("tilt%d" % bits, sensor_extra="always_on = yes\nmode = %s" % mode)
        try:
            def settled():
                st = d.status()["state"]
                t = st.get("tilt") or {}
                if t.get("roll_deg") is None:
                    return None
                if abs(t["roll_deg"] - roll) <= 0.5 and abs(t["pitch_deg"] - pitch) <= 0.5:
                    return t
                settled.last = t
                return None
            settled.last = None
            try:
                t = wait_for(settled, 30, "tilt roll %g pitch %g" % (roll, pitch))
            except Failure:
                raise Failure("tilt %s, injected roll %g pitch %g (raw %s); log: %s" % (settled.last, roll, pitch, raw, d.log()[-500:]))
            sensor = d.status()["status"].get("sensor")
        finally:
            d.stop()
    return "injected roll %g° pitch %g° (raw %s): published roll %.2f° pitch %.2f°; sensor %s" % (
        roll, pitch, raw, t["roll_deg"], t["pitch_deg"], json.dumps(sensor)[:200])


@test
def tilt_16bit():
    return tilt_test(16, 20.0, -35.0)


@test
def tilt_32bit():
    return tilt_test(32, -12.5, 28.0)


# --- Main ------------------------------------------------------------------------------------

def main(argv):
    os.makedirs(WORK, exist_ok=True)
    for m in ("uhid", "hid-sensor-hub", "hid-sensor-accel-3d", "hid-sensor-gyro-3d"):
        run(["modprobe", m])
    check_bin = os.path.exists(BIN + "/carouseld") and os.path.exists(BIN + "/carouselctl")
    if not check_bin:
        print("FAIL setup: no carouseld/carouselctl in CAROUSEL_BIN=%r" % BIN)
        return 1
    selected = [t for t in TESTS if not argv or t.__name__ in argv]
    unknown = set(argv) - {t.__name__ for t in TESTS}
    if unknown:
        print("FAIL setup: no such test: %s" % " ".join(sorted(unknown)))
        return 1
    results = []
    for t in selected:
        start = time.monotonic()
        try:
            details, ok = t(), True
        except Failure as e:
            details, ok = str(e), False
        except Exception as e:  # a bug in the test is a failure too, with its type
            details, ok = "%s: %s" % (type(e).__name__, e), False
        seconds = time.monotonic() - start
        print("%s %s (%.1f s): %s" % ("ok" if ok else "FAIL", t.__name__, seconds, details), flush=True)
        results.append({"name": t.__name__, "ok": ok, "seconds": round(seconds, 1), "details": details})
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
