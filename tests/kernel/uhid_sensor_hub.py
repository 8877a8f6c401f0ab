"""A HID sensor hub made through /dev/uhid: an Accelerometer 3D and a Gyrometer 3D on the HID
Sensor usage page (0x20), as x86 tablets and 2-in-1s have them, for Linux's own
hid-sensor-hub, hid-sensor-accel-3d and hid-sensor-gyro-3d drivers.

The report descriptor declares, per sensor (a Physical collection with the sensor's usage):
  feature report: Reporting State (0x0316) and Power State (0x0319) as named arrays inside
    Logical collections (values are 1 + the index of the enumerator, the drivers' convention),
    Report Interval (0x030E, u32, no unit: milliseconds), Change Sensitivity Absolute (0x030F);
  input report: X, Y, Z (accel 0x0453-0x0455, angular velocity 0x0457-0x0459), signed, BITS
    wide, with a unit exponent and no unit, which the drivers scale as
      accel: 9.80665 m/s^2 (1 g) x 10^exp per LSB    (exp -3: 0.00980665)
      gyro:  0.017453293 rad/s (1 deg/s) x 10^exp    (exp -2: 0.000174533)
    (include/linux/hid-sensor-ids.h, drivers/iio/common/hid-sensors/hid-sensor-attributes.c).

The device answers the hub's GET_REPORT / SET_REPORT requests (features, synchronous raw
reads) and, while the drivers have set Reporting State "all events" and Power State "D0",
sends input reports every report interval with the values the caller set (or cycles through a
sequence). Everything is in one thread; callers talk to it through methods that take a lock.
"""
import os
import select
import struct
import threading
import time

# struct uhid_event (include/uapi/linux/uhid.h): u32 type, then a packed union; the largest
# member is uhid_create2_req (128 + 64 + 64 + 2 + 2 + 4 * 4 + 4096 bytes).
UHID_EVENT_SIZE = 4 + 4372
UHID_DESTROY, UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE, UHID_OUTPUT = 1, 2, 3, 4, 5, 6
UHID_GET_REPORT, UHID_GET_REPORT_REPLY, UHID_CREATE2, UHID_INPUT2 = 9, 10, 11, 12
UHID_SET_REPORT, UHID_SET_REPORT_REPLY = 13, 14
UHID_FEATURE_REPORT, UHID_OUTPUT_REPORT, UHID_INPUT_REPORT = 0, 1, 2
BUS_VIRTUAL = 0x06
EIO = 5

SENSOR_PAGE = 0x20
ACCEL_3D, GYRO_3D = 0x73, 0x76
ACCEL_AXES = (0x0453, 0x0454, 0x0455)
GYRO_AXES = (0x0457, 0x0458, 0x0459)
PROP_REPORT_INTERVAL, PROP_SENSITIVITY_ABS = 0x030E, 0x030F
PROP_REPORTING_STATE, PROP_POWER_STATE = 0x0316, 0x0319
REPORTING_STATE_ENUMS = (0x0840, 0x0841)          # no events, all events
POWER_STATE_ENUMS = tuple(range(0x0850, 0x0856))   # undefined, D0 ... D4
REPORTING_ALL_EVENTS = 2                           # 1 + index of 0x0841
POWER_D0 = 2                                       # 1 + index of 0x0851

ACCEL_EXPONENT, GYRO_EXPONENT = -3, -2
# The scales the drivers derive and print (IIO_VAL_INT_PLUS_NANO: truncated to 9 decimals).
ACCEL_SCALE = 0.009806650        # m/s^2 per LSB: 9.806650000 x 10^-3
GYRO_SCALE = 0.000174532         # rad/s per LSB: 0.017453293 x 10^-2 = 0.00017453293, truncated


def _item(kind, tag, value, signed=True):
    """One short HID item: prefix (tag << 4 | type << 2 | size code), then the value, little
    endian, in the fewest bytes (1, 2 or 4) that hold it."""
    for size, code in ((0, 0), (1, 1), (2, 2), (4, 3)):
        if size == 0:
            if value == 0 and kind == 0:
                return bytes([(tag << 4) | (kind << 2)])
            continue
        lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
        if lo <= value <= hi:
            return bytes([(tag << 4) | (kind << 2) | code]) + value.to_bytes(size, "little", signed=signed)
    raise ValueError("HID item value %r does not fit 4 bytes" % value)


def main_item(tag, value):
    return _item(0, tag, value, signed=False)


def global_item(tag, value, signed=True):
    return _item(1, tag, value, signed)


def usage(u):
    return _item(2, 0, u, signed=False)


INPUT, FEATURE, COLLECTION, END_COLLECTION = 0x8, 0xB, 0xA, 0xC
USAGE_PAGE, LOGICAL_MIN, LOGICAL_MAX, UNIT_EXPONENT, UNIT = 0x0, 0x1, 0x2, 0x5, 0x6
REPORT_SIZE, REPORT_ID, REPORT_COUNT = 0x7, 0x8, 0x9
PHYSICAL, LOGICAL = 0x00, 0x02
DATA_ARRAY_ABS, DATA_VAR_ABS = 0x00, 0x02


def sensor_collection(sensor_usage, axes, feature_id, input_id, bits, exponent):
    """The descriptor bytes of one sensor: its feature report and its input report."""
    d = global_item(USAGE_PAGE, SENSOR_PAGE, signed=False) + usage(sensor_usage)
    d += main_item(COLLECTION, PHYSICAL)
    d += global_item(REPORT_ID, feature_id, signed=False)
    d += global_item(UNIT_EXPONENT, 0) + global_item(UNIT, 0)
    for prop, enums in ((PROP_REPORTING_STATE, REPORTING_STATE_ENUMS), (PROP_POWER_STATE, POWER_STATE_ENUMS)):
        d += usage(prop) + main_item(COLLECTION, LOGICAL)
        d += b"".join(usage(e) for e in enums)
        d += global_item(LOGICAL_MIN, 1) + global_item(LOGICAL_MAX, len(enums))
        d += global_item(REPORT_SIZE, 8) + global_item(REPORT_COUNT, 1)
        d += main_item(FEATURE, DATA_ARRAY_ABS) + main_item(END_COLLECTION, 0)
    d += usage(PROP_REPORT_INTERVAL) + global_item(LOGICAL_MIN, 0) + global_item(LOGICAL_MAX, 0x7FFFFFFF)
    d += global_item(REPORT_SIZE, 32) + global_item(REPORT_COUNT, 1) + main_item(FEATURE, DATA_VAR_ABS)
    d += usage(PROP_SENSITIVITY_ABS) + global_item(LOGICAL_MIN, 0) + global_item(LOGICAL_MAX, 0x7FFF)
    d += global_item(REPORT_SIZE, 16) + global_item(REPORT_COUNT, 1) + main_item(FEATURE, DATA_VAR_ABS)
    d += global_item(REPORT_ID, input_id, signed=False)
    d += global_item(UNIT_EXPONENT, exponent & 0xF, signed=False)  # 4-bit two's complement nibble
    for axis in axes:
        d += usage(axis)
        d += global_item(LOGICAL_MIN, -(1 << (bits - 1))) + global_item(LOGICAL_MAX, (1 << (bits - 1)) - 1)
        d += global_item(REPORT_SIZE, bits) + global_item(REPORT_COUNT, 1) + main_item(INPUT, DATA_VAR_ABS)
    d += main_item(END_COLLECTION, 0)
    return d


class Sensor:
    """One sensor of the hub: its report ids, feature state and current raw values."""

    def __init__(self, name, sensor_usage, axes, feature_id, input_id, bits, exponent, interval_ms):
        self.name, self.usage, self.axes = name, sensor_usage, axes
        self.feature_id, self.input_id, self.bits, self.exponent = feature_id, input_id, bits, exponent
        self.reporting_state, self.power_state = 1, 1   # no events, undefined
        self.interval_ms, self.sensitivity = interval_ms, 0
        self.values = (0, 0, 0)
        self.sequence, self.sequence_index, self.repeat = None, 0, True
        self.next_due = None
        self.sent = 0
        self.last_sent = None
        self.changes = []   # CLOCK_MONOTONIC ns just before each periodic report whose values changed

    def descriptor(self):
        return sensor_collection(self.usage, self.axes, self.feature_id, self.input_id, self.bits, self.exponent)

    def feature_report(self):
        return struct.pack("<BBBIH", self.feature_id, self.reporting_state, self.power_state,
                           self.interval_ms, self.sensitivity)

    def set_feature(self, data):
        if len(data) >= 9 and data[0] == self.feature_id:
            _, self.reporting_state, self.power_state, self.interval_ms, self.sensitivity = struct.unpack("<BBBIH", data[:9])
            return True
        return False

    def input_report(self, values=None):
        fmt = "<Bhhh" if self.bits == 16 else "<Biii"
        return struct.pack(fmt, self.input_id, *(values if values is not None else self.values))

    def streaming(self):
        return self.reporting_state == REPORTING_ALL_EVENTS and self.power_state == POWER_D0


class SensorHub:
    """The uhid device. `bits` is the width of the X/Y/Z input fields (16 or 32); `gyro=False`
    leaves the Gyrometer 3D out; `product` is the USB-style product id (vendor 0x1209).

    start() creates it (the kernel's drivers bind within a second or so), destroy() unplugs
    it. set_values(sensor, (x, y, z)) sets raw values sent from then on; set_sequence cycles
    through a list, one entry per report; send(sensor, values) writes one input report now and
    returns the CLOCK_MONOTONIC time (ns) just before the write. With `paused` the hub answers
    requests but sends no periodic reports (a test then sends each report itself)."""

    def __init__(self, bits=16, interval_ms=20, name="carouseld test sensor hub", log=None, gyro=True, product=0x0001):
        self.accel = Sensor("accel_3d", ACCEL_3D, ACCEL_AXES, 1, 2, bits, ACCEL_EXPONENT, interval_ms)
        self.gyro = Sensor("gyro_3d", GYRO_3D, GYRO_AXES, 3, 4, bits, GYRO_EXPONENT, interval_ms)
        # Without `gyro` the hub has the accelerometer only (a convertible's keyboard base).
        self.sensors = (self.accel, self.gyro) if gyro else (self.accel,)
        # The HID device is named BUS:VENDOR:PRODUCT.SEQ (0006:1209:0001.0003): a udev rule
        # can tell two hubs apart by `product`.
        self.product = product
        self.name, self.log = name, log or (lambda msg: None)
        self.lock = threading.Lock()
        self.fd, self.thread, self.stopping = None, None, False
        self.paused = False
        self.events = []          # (type name, detail) in arrival order, for tests and logs
        self.feature_writes = []  # (sensor name, reporting_state, power_state, interval_ms)
        self.wake_r, self.wake_w = os.pipe()

    def descriptor(self):
        return b"".join(s.descriptor() for s in self.sensors)

    def start(self):
        for s in self.sensors:   # a new device: powered off, not reporting, as the kernel expects
            s.reporting_state, s.power_state, s.next_due = 1, 1, None
        self.fd = os.open("/dev/uhid", os.O_RDWR | os.O_CLOEXEC)
        rd = self.descriptor()
        req = struct.pack("<128s64s64sHHIIII", self.name.encode(), b"carouseld-test/uhid", b"",
                          len(rd), BUS_VIRTUAL, 0x1209, self.product, 1, 0) + rd.ljust(4096, b"\0")
        self._write(UHID_CREATE2, req)
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="uhid", daemon=True)
        self.thread.start()

    def destroy(self):
        if self.fd is None:
            return
        self.stopping = True
        os.write(self.wake_w, b"x")
        self.thread.join(5)
        with self.lock:
            self._write(UHID_DESTROY, b"")
            os.close(self.fd)
            self.fd = None

    def set_values(self, sensor, values):
        with self.lock:
            sensor.values, sensor.sequence = tuple(values), None

    def set_sequence(self, sensor, sequence, repeat=True):
        """Values for the next periodic reports, one each: cycled (`repeat`), or the last one
        held once the sequence has been sent (a motion that ends)."""
        with self.lock:
            sensor.sequence, sensor.sequence_index = [tuple(v) for v in sequence], 0
            sensor.repeat = repeat

    def send(self, sensor, values):
        with self.lock:
            sensor.values = tuple(values)
            t = time.monotonic_ns()
            self._input(sensor.input_report())
            sensor.sent += 1
        return t

    def _write(self, event_type, payload):
        os.write(self.fd, struct.pack("<I", event_type) + payload.ljust(UHID_EVENT_SIZE - 4, b"\0"))

    def _input(self, report):
        self._write(UHID_INPUT2, struct.pack("<H", len(report)) + report)

    def _sensor_by_report(self, rnum):
        for s in self.sensors:
            if rnum in (s.feature_id, s.input_id):
                return s
        return None

    def _handle(self, ev):
        etype = struct.unpack_from("<I", ev)[0]
        if etype == UHID_GET_REPORT:
            rid, rnum, rtype = struct.unpack_from("<IBB", ev, 4)
            s = self._sensor_by_report(rnum)
            data, err = b"", EIO
            if s and rtype == UHID_FEATURE_REPORT and rnum == s.feature_id:
                data, err = s.feature_report(), 0
            elif s and rtype == UHID_INPUT_REPORT and rnum == s.input_id:
                data, err = s.input_report(), 0
            self._write(UHID_GET_REPORT_REPLY, struct.pack("<IHH", rid, err, len(data)) + data)
            self.events.append(("get_report", (rnum, rtype)))
        elif etype == UHID_SET_REPORT:
            rid, rnum, rtype, size = struct.unpack_from("<IBBH", ev, 4)
            data = bytes(ev[12:12 + size])
            s = self._sensor_by_report(rnum)
            ok = rtype == UHID_FEATURE_REPORT and s is not None and s.set_feature(data)
            self._write(UHID_SET_REPORT_REPLY, struct.pack("<IH", rid, 0 if ok else EIO))
            if ok:
                self.feature_writes.append((s.name, s.reporting_state, s.power_state, s.interval_ms))
                self.log("%s feature: reporting %d power %d interval %d ms" % (s.name, s.reporting_state, s.power_state, s.interval_ms))
                if s.streaming() and s.next_due is None:
                    s.next_due = time.monotonic()
        else:
            names = {UHID_START: "start", UHID_STOP: "stop", UHID_OPEN: "open", UHID_CLOSE: "close", UHID_OUTPUT: "output"}
            self.events.append((names.get(etype, str(etype)), None))

    def _run(self):
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        while not self.stopping:
            now = time.monotonic()
            with self.lock:
                due = [s.next_due for s in self.sensors if s.streaming() and s.next_due is not None and not self.paused]
            timeout = max(0, min(due) - now) * 1000 if due else 200
            for fd, _ in poller.poll(timeout):
                if fd == self.wake_r:
                    os.read(self.wake_r, 64)
                    continue
                ev = os.read(self.fd, UHID_EVENT_SIZE)
                with self.lock:
                    self._handle(ev)
            now = time.monotonic()
            with self.lock:
                for s in self.sensors:
                    if not s.streaming():
                        s.next_due = None
                        continue
                    if self.paused or s.next_due is None or now < s.next_due:
                        continue
                    if s.sequence:
                        i = s.sequence_index % len(s.sequence) if s.repeat else min(s.sequence_index, len(s.sequence) - 1)
                        s.values = s.sequence[i]
                        s.sequence_index += 1
                    if s.values != s.last_sent:
                        s.changes.append((time.monotonic_ns(), s.values))
                        s.last_sent = s.values
                    self._input(s.input_report())
                    s.sent += 1
                    period = max(s.interval_ms, 1) / 1000.0
                    s.next_due += period
                    if s.next_due < now:           # fell behind (TCG): no burst to catch up
                        s.next_due = now + period
