#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import CLinux
import MotionFusion
import Testing
@testable import IIOSensors

/// Pure parts of IIOSensors: calibration maths, rate choice, selection, JSON. (Mount-matrix
/// parsing is MotionFusion's `MountMatrix`, tested there; its precedence is tested end to end.)
struct SampleTransformTests {
    let reflection = MountMatrix(rows: (Vector3(-1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)))

    @Test func accelIsScaledMountedAndNegated() {
        let t = SampleTransform(
            accelAxes: [AxisCalibration(scale: 0.5, offset: 2), AxisCalibration(scale: 0.5, offset: 0),
                        AxisCalibration(scale: 0.25, offset: 0)],
            accelMatrix: reflection, gyroAxes: [], gyroMatrix: reflection, convention: .gravity)
        // ((10 + 2) · 0.5, 4 · 0.5, −40 · 0.25) = (6, 2, −10) → M → (−6, 2, −10) → negated.
        #expect(t.accel([10, 4, -40]) == Vector3(6, -2, 10))
        var s = t
        s.convention = .specificForce
        #expect(s.accel([10, 4, -40]) == Vector3(-6, 2, -10))
    }

    @Test func gyroUsesDeterminantTimesMatrix() {
        let unit = AxisCalibration(scale: 1, offset: 0)
        let t = SampleTransform(accelAxes: [unit, unit, unit], accelMatrix: reflection,
                                gyroAxes: [unit, unit, unit], gyroMatrix: reflection, convention: .gravity)
        // M · (1, 2, 3) = (−1, 2, 3); det = −1 → (1, −2, −3).
        #expect(t.gyro([1, 2, 3]) == Vector3(1, -2, -3))
    }

    @Test func largeRawValuesDoNotOverflow() {
        let a = AxisCalibration(scale: 1e-6, offset: 0)
        #expect(a.value(Int64(Int32.max) * 4) == Double(Int64(Int32.max) * 4) * 1e-6)
    }
}

struct SamplingRateTests {
    @Test func nearestListedRateAtOrAbove() {
        let available = [800, 400, 200, 100, 50, 12.5, 6.25, 1.56]
        #expect(SamplingRate.choose(requestedHz: 30, available: available) == 50)
        #expect(SamplingRate.choose(requestedHz: 50, available: available) == 50)
        #expect(SamplingRate.choose(requestedHz: 1000, available: available) == 800)
        #expect(SamplingRate.choose(requestedHz: 30, available: []) == 30)
        #expect(SamplingRate.text(12.5) == "12.5")
        #expect(SamplingRate.text(100) == "100")
    }

    @Test func sysfsNumbersIgnoreLocaleAndWhitespace() {
        #expect(parseSysfsNumber("0.009806650\n") == 0.00980665)
        #expect(parseSysfsNumber("0,0098\n") == nil)
        #expect(parseSysfsNumberList("15.620000 31.260000 62.500000\n") == [15.62, 31.26, 62.5])
        #expect(parseSysfsNumberList("[0.1 0.1 100]") == nil)
    }
}

struct SensorSelectionTests {
    func sensor(_ id: String, _ name: String, _ kind: SensorKind, label: String = "", location: String = "",
                parent: String? = nil, grandparent: String? = nil) -> SensorInfo {
        SensorInfo(id: id, name: name, label: label, path: "/sys/devices/x/\(id)", dev: "/dev/\(id)", kind: kind,
                   channels: [], mountMatrix: .identity, mountMatrixSource: .identity, gyroMountMatrix: nil,
                   samplingFrequencyHz: nil, samplingFrequencyAvailableHz: [], buffered: false, triggers: [],
                   warnings: [], location: location, parentPath: parent, grandparentPath: grandparent)
    }

    @Test func automaticSkipsBaseAndPairsByParent() throws {
        let sensors = [
            sensor("iio:device0", "accel_base", .accel, label: "accel-base", location: "base"),
            sensor("iio:device1", "lsm6dsl_accel", .accel, parent: "/sys/devices/i2c/1-006a"),
            sensor("iio:device2", "lsm6dsl_gyro", .gyro, parent: "/sys/devices/i2c/1-006a"),
        ]
        let s = try SensorSelection.choose(from: sensors, selector: nil)
        #expect(s.accel.id == "iio:device1")
        #expect(s.gyro?.id == "iio:device2")
        #expect(s.notes.count == 1)
    }

    @Test func imuPreferredAndLabelPairing() throws {
        let sensors = [
            sensor("iio:device0", "a", .accel, label: "accel-display"),
            sensor("iio:device1", "g", .gyro, label: "gyro-display"),
        ]
        #expect(try SensorSelection.choose(from: sensors, selector: "accel-display").gyro?.id == "iio:device1")
        let withIMU = sensors + [sensor("iio:device3", "bmi160", .imu)]
        #expect(try SensorSelection.choose(from: withIMU, selector: nil).accel.id == "iio:device3")
        #expect(throws: SensorError.notFound("nope")) { try SensorSelection.choose(from: sensors, selector: "nope") }
    }

    @Test func emptyJSONIsEmptyArray() {
        #expect(SensorInfo.jsonArray([]) == "[]")
        #expect(jsonNumber(-0.0) == "0")
        #expect(jsonString("a\"b\n") == "\"a\\\"b\\n\"")
    }
}

@Suite(.serialized) struct RecorderReplayTests {
    @Test func recorderRoundTripsThroughReplay() throws {
        let path = "/tmp/carousel-replay-\(getpid()).csv"
        let recorded = [
            IMUSample(timestampNanoseconds: 1_000_000_000, accel: Vector3(0.1, -0.2, 9.81), gyro: Vector3(0.01, 0, -0.02)),
            IMUSample(timestampNanoseconds: 1_010_000_000, accel: Vector3(0.2, -0.1, 9.8), gyro: nil),
        ]
        let recorder = try Recorder(path: path)
        try recorder.append(recorded)
        // Not under its final name until finished.
        #expect(access(path, F_OK) != 0)
        try recorder.finish()
        #expect(readTextFile(path)?.hasPrefix("timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n") == true)

        let replay = try ReplaySource(path: path, asFastAsPossible: true)
        try replay.start()
        var out: [IMUSample] = []
        try replay.readAvailable(into: &out)
        #expect(out.count == 2)
        #expect(out.map(\.accel) == recorded.map(\.accel))
        #expect(out.map(\.gyro) == recorded.map(\.gyro))
        // Mapped onto the monotonic clock, 10 ms apart as recorded.
        #expect(out[1].timestampNanoseconds - out[0].timestampNanoseconds == 10_000_000)
        #expect(replay.status == .replay)
        #expect(replay.finished)
        unlink(path)
    }

    func writeRecording(_ rows: [String]) -> String {
        let path = "/tmp/carousel-replay-rt-\(getpid())-\(rows.count).csv"
        let text = (["timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"] + rows).joined(separator: "\n") + "\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        return path
    }

    @Test func realTimePacingWithSpeedFactor() throws {
        // 100 ms apart as recorded; at speed 10 they come due 10 ms apart (pacing), but carry
        // the recorded 100 ms spacing (time base of the estimator: docs/SENSORS.md).
        let path = writeRecording(["0,0,0,9.8,,,", "100000000,0,0,9.7,,,", "200000000,0,0,9.6,,,"])
        defer { unlink(path) }
        let replay = try ReplaySource(path: path, speed: 10)
        let started = clinux_monotonic_ns()
        try replay.start()
        var out: [IMUSample] = []
        try replay.readAvailable(into: &out)
        #expect(out.count == 1)  // only the first is due at start
        let fd = try #require(replay.pollDescriptor)
        while out.count < 3 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            try #require(poll(&p, 1, 2000) == 1, "the replay timerfd never fired")
            try replay.readAvailable(into: &out)
        }
        let released = clinux_monotonic_ns() - started
        #expect(out.map(\.accel.z) == [9.8, 9.7, 9.6])
        #expect(out[1].timestampNanoseconds - out[0].timestampNanoseconds == 100_000_000)
        #expect(out[2].timestampNanoseconds - out[0].timestampNanoseconds == 200_000_000)
        // Released after 20 ms of wall time (not the 200 ms of real time): at least 20 ms, and
        // well under 200 ms even on a loaded machine.
        #expect(released >= 20_000_000 && released < 150_000_000)
        #expect(replay.sampleRateHz == 100)
        #expect(replay.finished)
    }

    @Test func loopKeepsTimeIncreasing() throws {
        let path = writeRecording(["1000,1,0,0,,,", "11000,2,0,0,,,"])
        defer { unlink(path) }
        let replay = try ReplaySource(path: path, loop: true, asFastAsPossible: true)
        try replay.start()
        var out: [IMUSample] = []
        try replay.readAvailable(into: &out)
        try replay.readAvailable(into: &out)
        #expect(out.map(\.accel.x) == [1, 2, 1, 2])
        // One median interval (10 µs) after the last sample, the next pass starts.
        let t = out.map { $0.timestampNanoseconds - out[0].timestampNanoseconds }
        #expect(t == [0, 10_000, 20_000, 30_000])
        #expect(!replay.finished)
    }

    @Test func badRecordingNamesFileAndLine() {
        let path = "/tmp/carousel-replay-bad-\(getpid()).csv"
        let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n1,0,0,9.8,,,\n2,zz,0,9.8,,,\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        do {
            _ = try ReplaySource(path: path)
            Issue.record("expected an error")
        } catch {
            if case let .recording(file, line, _) = error {
                #expect(file == path)
                #expect(line == 3)
            } else {
                Issue.record("unexpected \(error)")
            }
        }
        unlink(path)
    }

    /// Timestamps a replay cannot pace: two rows 9e18 ns apart made the daemon trap converting
    /// the release time to Int64 (and ±9e18 trapped already in the interval's subtraction, in
    /// `--check-config`); a last row before the first made every later loop pass due at once.
    @Test func timestampsThatCannotBePacedAreRefused() throws {
        let thirtyDays: Int64 = 30 * 86_400 * 1_000_000_000
        let cases: [([Int64], String?)] = [
            ([0, 9_000_000_000_000_000_000], "the timestamps span from 0 to 9000000000000000000 ns, more than the 30 days a replay may last"),
            ([-9_000_000_000_000_000_000, 9_000_000_000_000_000_000],
             "the timestamps span from -9000000000000000000 to 9000000000000000000 ns, more than the 30 days a replay may last"),
            ([0, thirtyDays + 1], "the timestamps span from 0 to 2592000000000001 ns, more than the 30 days a replay may last"),
            ([1_000_000_000, 2_000_000_000, 1_500_000_000],
             "sample 3's timestamp 1500000000 ns is before sample 2's 2000000000 ns: timestamps must not decrease"),
            ([0, thirtyDays], nil),
            ([-5, -5, 7], nil),
        ]
        for (k, (timestamps, reason)) in cases.enumerated() {
            let path = "/tmp/carousel-replay-timeline-\(getpid())-\(k).csv"
            let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
                + timestamps.map { "\($0),0,0,9.8,0,0,0\n" }.joined()
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
            close(fd)
            defer { unlink(path) }
            do {
                _ = try ReplaySource(path: path, speed: 0.01, loop: true)
                #expect(reason == nil, "\(timestamps) was accepted")
            } catch {
                #expect(error == .recording(file: path, line: 0, reason: reason ?? "-"), "\(timestamps)")
            }
        }
    }

    /// A looped recording with every row at one instant: each 10 ms pass releases all of its
    /// rows, so after a second 101 passes of 1000 rows are due. One call releases at most
    /// `maximumBatch` (10,000) of them, the rest waiting for the next wake-up, not all 101,000
    /// at once, nor more with every second the daemon falls behind.
    @Test func aDenseLoopedRecordingIsReleasedInBoundedBatches() throws {
        let path = "/tmp/carousel-replay-dense-\(getpid()).csv"
        let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
            + String(repeating: "5,0,0,9.8,0,0,0\n", count: 1000)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        defer { unlink(path) }
        let clock = ScriptedClock()
        let replay = try ReplaySource(path: path, loop: true, clock: clock)
        try replay.start()
        clock.advance(milliseconds: 1000)
        var out: [IMUSample] = []
        try replay.readAvailable(into: &out)
        #expect(out.count == 10_000)
        // The next call goes on where this one stopped: the 11th pass, 10 · 10 ms after the first.
        try replay.readAvailable(into: &out)
        #expect(out.count == 20_000)
        #expect(out[10_000].timestampNanoseconds - out[0].timestampNanoseconds == 100_000_000)
    }
}

struct BufferFailureMessageTests {
    @Test func ebusyNamesTheLikelyHolder() {
        let source = IIOSensorSource(configuration: IIOSourceConfiguration())
        let info = SensorInfo(id: "iio:device0", name: "accel_3d", label: "", path: "/sys/x", dev: "/dev/iio:device0",
                              kind: .accel, channels: [], mountMatrix: .identity, mountMatrixSource: .identity,
                              gyroMountMatrix: nil, samplingFrequencyHz: nil, samplingFrequencyAvailableHz: [],
                              buffered: true, triggers: [], warnings: [], location: "", parentPath: nil, grandparentPath: nil)
        let busy = source.bufferFailureMessage(info, .io(device: "accel_3d (iio:device0)", what: "iio_device_create_buffer", errno: EBUSY))
        // Nothing on this machine holds /dev/iio:device0 (there is none), so no holder is named.
        #expect(busy == "accel_3d (iio:device0): buffer busy (iio_device_create_buffer: EBUSY): the buffer of iio:device0 "
                + "(/dev/iio:device0) is held by another process (not visible in /proc to this user)")
        let other = source.bufferFailureMessage(info, .io(device: "accel_3d (iio:device0)", what: "iio_device_create_buffer", errno: ENOENT))
        #expect(other.contains("buffer unavailable") && other.contains("errno 2"))
        let denied = source.bufferFailureMessage(info, .io(device: "accel_3d (iio:device0)", what: "iio_device_create_buffer", errno: EACCES))
        #expect(denied == "accel_3d (iio:device0): buffer unavailable: no permission to open /dev/iio:device0 (errno 13: "
                + "Permission denied); the udev rule 60-carouseld.rules gives it to group carouseld")
    }

    /// EPERM on a node the group may open comes from the device filter (a systemd unit's
    /// DevicePolicy=/DeviceAllow=), not from the node's mode: the message names the filter.
    @Test func epermNamesTheDeviceFilterNotTheUdevRule() {
        let source = IIOSensorSource(configuration: IIOSourceConfiguration())
        let info = SensorInfo(id: "iio:device1", name: "accel_3d", label: "", path: "/sys/x", dev: "/dev/iio:device1",
                              kind: .accel, channels: [], mountMatrix: .identity, mountMatrixSource: .identity,
                              gyroMountMatrix: nil, samplingFrequencyHz: nil, samplingFrequencyAvailableHz: [],
                              buffered: true, triggers: [], warnings: [], location: "", parentPath: nil, grandparentPath: nil)
        let refused = source.bufferFailureMessage(info, .io(device: "accel_3d (iio:device1)", what: "iio_device_create_buffer", errno: EPERM))
        #expect(refused == "accel_3d (iio:device1): buffer unavailable: the device filter refused /dev/iio:device1 (errno 1: "
                + "Operation not permitted): a systemd unit's DevicePolicy=/DeviceAllow= (carouseld.service allows "
                + "char-iio, resolved when the service starts: restart it if the IIO core was loaded later)")
    }

    @Test func holdersAreFoundThroughProc() throws {
        // This process holds a file open: seen when it is not excluded, not seen when it is
        // (the default: carouseld never reports itself).
        var template = Array("/tmp/carouseld-holders-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        // Close-on-exec: a program another test spawns meanwhile must not inherit it and hold it too.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = String(cString: template)
        defer { close(fd); unlink(path) }
        let comm = (try? String(contentsOfProcFile: "/proc/self/comm")) ?? ""
        #expect(DeviceHolders.holders(of: path, excluding: 0) == ["\(comm) (pid \(getpid()))"])
        #expect(DeviceHolders.holders(of: path) == [])
        #expect(DeviceHolders.holders(of: "") == [])
    }
}

private extension String {
    /// A /proc text file's first line.
    init(contentsOfProcFile path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw SensorError.notFound(path) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &buffer, buffer.count)
        self = String(decoding: buffer[0..<Swift.max(n, 0)], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }
}

struct TimestampClockTests {
    func now(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    @Test func readTimeStampsNeverStepBack() {
        // Three scans at 10 ms, read at t = 1000 ms after a refill whose newest was 950 ms.
        #expect(BufferedDeviceReader.readTimeStamps(count: 3, now: 1_000_000_000, period: 10_000_000, after: 950_000_000)
            == [980_000_000, 990_000_000, 1_000_000_000])
        // Five scans 10 ms apart read 20 ms after the last refill (the driver ran faster than its
        // sampling_frequency, as a HID hub under load does): the three that would fall at or
        // before 980 ms follow it 1 ns apart.
        #expect(BufferedDeviceReader.readTimeStamps(count: 5, now: 1_000_000_000, period: 10_000_000, after: 980_000_000)
            == [980_000_001, 980_000_002, 980_000_003, 990_000_000, 1_000_000_000])
        // The first refill has nothing before it.
        #expect(BufferedDeviceReader.readTimeStamps(count: 2, now: 100, period: 10, after: .min) == [90, 100])
    }

    @Test func kernelClockNames() {
        // No attribute: a kernel before 4.10, which stamps with CLOCK_REALTIME.
        #expect(TimestampClock(attribute: nil) == .posix(CLOCK_REALTIME))
        #expect(TimestampClock(attribute: "monotonic\n")?.isMonotonic == true)
        // Linux 6.1 (Debian's, hid-sensor-accel-3d in tests/kernel) prints the NUL too.
        #expect(TimestampClock(attribute: "monotonic\n\0")?.isMonotonic == true)
        #expect(TimestampClock(attribute: "boottime\n\0") == .posix(CLOCK_BOOTTIME))
        #expect(TimestampClock(attribute: "realtime\n") == .posix(CLOCK_REALTIME))
        #expect(TimestampClock(attribute: "boottime\n") == .posix(CLOCK_BOOTTIME))
        #expect(TimestampClock(attribute: "tai") == .posix(CLOCK_TAI))
        #expect(TimestampClock(attribute: "monotonic_raw") == .posix(CLOCK_MONOTONIC_RAW))
        #expect(TimestampClock(attribute: "sundial\n") == nil)
        #expect(TimestampClock(attribute: "") == nil)
    }

    @Test func offsetsBringStampsOntoMonotonic() {
        #expect(TimestampClock.posix(CLOCK_MONOTONIC).offsetToMonotonic() == 0)
        // realtime − monotonic, measured independently; the two reads are microseconds apart.
        let expected = now(CLOCK_REALTIME) - now(CLOCK_MONOTONIC)
        #expect(abs(TimestampClock.posix(CLOCK_REALTIME).offsetToMonotonic() - expected) < 50_000_000)
        let boot = now(CLOCK_BOOTTIME) - now(CLOCK_MONOTONIC)
        #expect(abs(TimestampClock.posix(CLOCK_BOOTTIME).offsetToMonotonic() - boot) < 50_000_000)
    }
}

/// Precedence of scale, offset and mount matrix, against attribute files held in a dictionary.
struct AttributePrecedenceTests {
    struct Files: DeviceAttributes {
        var files: [String: String]
        func read(_ file: String) -> String? { files[file] }
        func write(_ file: String, _ value: String) throws(SensorError) {}
    }

    @Test func perAxisOverSharedOverDevice() {
        let attributes = Files(files: ["in_accel_x_scale": "0.5\n", "in_accel_scale": "0.25\n", "scale": "2\n",
                                       "in_accel_y_offset": "-3\n", "offset": "7\n"])
        let x = SensorDiscovery.calibration(of: "accel_x", attributes: attributes)
        #expect(x.0 == 0.5 && x.1 == 7 && x.2.isEmpty)
        let y = SensorDiscovery.calibration(of: "accel_y", attributes: attributes)
        #expect(y.0 == 0.25 && y.1 == -3)
        // A bad per-axis value falls through to the shared one, with a warning.
        let bad = Files(files: ["in_accel_z_scale": "0x10\n", "in_accel_scale": "0.25\n"])
        let z = SensorDiscovery.calibration(of: "accel_z", attributes: bad)
        #expect(z.0 == 0.25 && z.2 == ["in_accel_z_scale: bad value '0x10', ignored"])
    }

    @Test func zeroScaleIsKeptButSaysSo() {
        let c = SensorDiscovery.calibration(of: "anglvel_y", attributes: Files(files: ["in_anglvel_scale": "0.000\n"]))
        #expect(c.0 == 0)
        #expect(c.2 == ["in_anglvel_scale is 0: every anglvel value reads 0"])
    }

    @Test func mountMatrixByTypeThenDirectionThenAll() {
        let files = ["in_accel_mount_matrix", "in_mount_matrix", "mount_matrix"]
        let rows = ["in_accel_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, 1\n",
                    "in_mount_matrix": "-1, 0, 0; 0, 1, 0; 0, 0, 1\n",
                    "mount_matrix": "1, 0, 0; 0, -1, 0; 0, 0, 1\n"]
        func pick(_ keep: [String]) -> (MountMatrix, MountMatrixSource, [String]) {
            SensorDiscovery.mountMatrix(property: "ACCEL_MOUNT_MATRIX", files: files, udev: nil,
                                        attributes: Files(files: rows.filter { keep.contains($0.key) }))
        }
        #expect(pick(files).0 == (try? MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, 1")))
        // bmc150, bmi160, mpu6050 expose only in_mount_matrix (shared by direction).
        #expect(pick(["in_mount_matrix", "mount_matrix"]).0 == (try? MountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, 1")))
        #expect(pick(["in_mount_matrix", "mount_matrix"]).1 == .sysfs)
        #expect(pick(["mount_matrix"]).0 == (try? MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 0, 0, 1")))
        #expect(pick([]).1 == .identity)
    }
}
