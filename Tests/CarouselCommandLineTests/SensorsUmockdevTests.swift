#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import MotionFusion
import Testing

/// `carouselctl sensors` and `record` against real libiio and libudev in umockdev testbeds
/// (child processes under LD_PRELOAD=libumockdev-preload.so.0). Expected values are derived by
/// hand: value = (raw + offset) · scale, then the mount matrix M, then negation (accel
/// convention `gravity`); gyro = det(M) · M · value.
@Suite(.serialized) struct SensorsUmockdevTests {
    static let header = Mock.header

    @Test func emptySystemHasNoSensors() throws {
        let bed = try Mock.testbed(nil)
        let json = try Mock.run(["sensors", "--json"], bed)
        #expect(json.status == 0)
        #expect(json.standardOutput == "[]\n")
        let text = try Mock.run(["sensors"], bed)
        #expect(text.status == 0)
        #expect(text.standardOutput.hasPrefix("No IIO motion sensors found"))
        let record = try Mock.run(["record", "--output", "-", "--duration", "1"], bed)
        #expect(record.status == 69)
        // It gives up: the last line must not say that it waits (only --hotplug does).
        #expect(record.standardError.hasSuffix("carouselctl: record: no motion sensor found (no sensor matches 'an accelerometer'); "
                                               + "'carouselctl sensors' lists what libiio finds, and --hotplug waits for one\n"),
                "stderr: \(record.standardError)")
    }

    @Test func hidSensorHubDescription() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let result = try Mock.run(["sensors", "--json"], bed)
        #expect(result.status == 0)
        let sensors = try Mock.json(result.standardOutput)
        try #require(sensors.count == 2)
        let accel = sensors[0]
        #expect(accel["name"] as? String == "accel_3d")
        #expect(accel["type"] as? String == "accel")
        #expect(accel["dev"] as? String == "/dev/iio:device0")
        #expect(accel["mount_matrix_source"] as? String == "udev")
        #expect(accel["mount_matrix"] as? [[Double]] == [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
        #expect(accel["buffered"] as? Bool == true)
        #expect(accel["triggers"] as? [String] == ["accel_3d-dev0"])
        let channels = accel["channels"] as? [[String: Any]] ?? []
        #expect(channels.map { $0["name"] as? String } == ["accel_x", "accel_y", "accel_z", "timestamp"])
        #expect(channels.map { $0["type"] as? String } == ["le:s16/32>>0", "le:s16/32>>0", "le:s16/32>>0", "le:s64/64>>0"])
        #expect(channels.first?["scale"] as? Double == 0.00980665)
        let gyro = sensors[1]
        #expect(gyro["type"] as? String == "gyro")
        #expect(gyro["mount_matrix_source"] as? String == "identity")
        #expect((gyro["channels"] as? [[String: Any]])?.first?["type"] as? String == "le:s32/32>>0")
    }

    /// The sysfs layout Linux 6.1's HID sensor drivers really produce (recorded in tests/kernel).
    @Test func kernelRecordedHidSensorHub() throws {
        let bed = try Mock.testbed("kernel-hid-sensor-hub")
        let sensors = try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput)
        try #require(sensors.count == 2)
        #expect(sensors.map { $0["name"] as? String } == ["accel_3d", "gyro_3d"])
        #expect(sensors.map { $0["triggers"] as? [String] } == [["accel_3d-dev0"], ["gyro_3d-dev1"]])
        #expect(sensors.map { $0["buffered"] as? Bool } == [true, true])
        #expect(sensors.map { $0["mount_matrix_source"] as? String } == ["identity", "identity"])
        #expect(sensors.map { ($0["warnings"] as? [String])?.isEmpty } == [true, true])
        let accel = sensors[0]["channels"] as? [[String: Any]] ?? []
        #expect(accel.map { $0["type"] as? String } == ["le:s16/32>>0", "le:s16/32>>0", "le:s16/32>>0", "le:s64/64>>0"])
        #expect(accel.first?["scale"] as? Double == 0.00980665)
        #expect((sensors[1]["channels"] as? [[String: Any]])?.first?["scale"] as? Double == 0.000174532)
        // Polled: accel −(120, −340, −1000) · 0.00980665, gyro (−250, 1300, −7) · 0.000174532.
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        var row = try Mock.nextRow(p)
        if row.2 == nil { row = try Mock.nextRow(p) }   // the gyroscope's first read may come after
        #expect(close(row.1, [-1.176798, 3.334261, 9.80665]))
        #expect(close(row.2 ?? [], [-0.043633, 0.2268916, -0.001221724]))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("reading accel_3d (iio:device0) + gyro_3d (iio:device1) in polled mode"))
    }

    @Test func scanOrderComesFromIndexAndBadUdevMatrixIsSkipped() throws {
        let bed = try Mock.testbed("bmi160")
        let sensors = try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput)
        try #require(sensors.count == 1)
        let imu = sensors[0]
        #expect(imu["type"] as? String == "imu")
        let channels = imu["channels"] as? [[String: Any]] ?? []
        #expect(channels.map { $0["name"] as? String } ==
                ["anglvel_x", "anglvel_y", "anglvel_z", "accel_x", "accel_y", "accel_z", "timestamp"])
        #expect(channels.map { $0["index"] as? Int } == [0, 1, 2, 3, 4, 5, 6])
        // udev's matrix has an all-zero row: skipped, the sysfs in_mount_matrix wins.
        #expect(imu["mount_matrix_source"] as? String == "sysfs")
        #expect(imu["mount_matrix"] as? [[Double]] == [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
        let warnings = imu["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("ACCEL_MOUNT_MATRIX") })
    }

    @Test func deviceLevelScaleAndMissingScale() throws {
        let bed = try Mock.testbed("scale-variants")
        let sensors = try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput)
        try #require(sensors.count == 2)
        let kx = sensors[0]["channels"] as? [[String: Any]] ?? []
        #expect(kx.map { $0["scale"] as? Double } == [0.01, 0.01, 0.01])
        #expect(kx.map { $0["offset"] as? Double } == [5, 0, 0])
        #expect((sensors[0]["warnings"] as? [String])?.isEmpty == true)
        let none = sensors[1]["channels"] as? [[String: Any]] ?? []
        #expect(none.map { $0["scale"] as? Double } == [1, 1, 1])
        #expect((sensors[1]["warnings"] as? [String] ?? []).filter { $0.contains("units unknown") }.count == 3)

        // Automatic choice skips the keyboard-base sensor; polled values: x = (10 + 5) · 0.01,
        // y = 20 · 0.01, z = −1000 · 0.01, identity matrix, negated.
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        let row = try Mock.nextRow(p)
        #expect(close(row.1, [-0.15, -0.2, 10]))
        #expect(row.2 == nil)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("noscale_accel (iio:device1) skipped"))
    }

    /// The warning of a gyroscope without `scale`, as `sensors` lists it and the log names it.
    static let noGyroScale =
        "no gyroscope scale (in_anglvel_x_scale, in_anglvel_scale or scale): angular rate not used, accelerometer only"

    @Test func imuGyroscopeWithoutScaleIsNotRead() throws {
        // Raw counts are not rad/s: in_anglvel_x_raw = 164 must not become 164 rad/s. The
        // accelerometer is read alone, and the listing and the log say so once.
        let bed = try Mock.testbed("bmi160", drop: ["A: in_anglvel_scale="])
        let sensors = try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput)
        try #require(sensors.count == 1)
        let warnings = sensors[0]["warnings"] as? [String] ?? []
        #expect(warnings.filter { $0.contains("anglvel") } == [Self.noGyroScale])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        let row = try Mock.nextRow(p)
        // (0, −8192, 16384) · 0.000598 = (0, −4.898816, 9.797632); M = [0 −1 0; 1 0 0; 0 0 1]
        // → (4.898816, 0, 9.797632); negated.
        #expect(close(row.1, [-4.898816, 0, -9.797632]))
        #expect(row.2 == nil)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.components(separatedBy: "bmi160 (iio:device0): " + Self.noGyroScale).count == 2)
    }

    @Test func companionGyroscopeWithoutScaleIsNotRead() throws {
        let bed = try Mock.testbed("hid-sensor-hub", drop: ["A: in_anglvel_scale="])
        let sensors = try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput)
        try #require(sensors.count == 2)
        #expect(sensors[1]["warnings"] as? [String] == [Self.noGyroScale])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "10"], testbed: bed)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        let row = try Mock.nextRow(p)
        // (−512, 256, 1000) · 0.00980665 = (−5.0210048, 2.5105024, 9.80665); M = [0 1 0; −1 0 0;
        // 0 0 1] → (2.5105024, 5.0210048, 9.80665); negated.
        #expect(close(row.1, [-2.5105024, -5.0210048, -9.80665]))
        #expect(row.2 == nil)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.components(separatedBy: "gyro_3d (iio:device1): " + Self.noGyroScale).count == 2)
    }

    @Test func polledReadWithScaleMountMatrixAndUnsupportedRate() throws {
        let bed = try Mock.testbed("mma8452")
        let dir = "/tmp/carousel-sensors-\(getpid())"
        mkdir(dir, 0o755)
        let output = dir + "/mma.csv"
        // 30 Hz is not listed: the next listed rate above it, 50 Hz, is chosen and read back.
        // A German locale must not change how "0.009576" is parsed.
        let result = try UmockdevProcess(Mock.ctl, ["record", "--output", output, "--mode", "polled", "--rate", "30",
                                                    "--duration", "0.5"], testbed: bed,
                                         environment: ["LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"])
            .waitForExit(timeoutSeconds: 30)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(bed.attribute(device: "/devices/platform/soc/3f804000.i2c/i2c-1/1-001d/iio:device0",
                              "sampling_frequency") == "50\n")
        #expect(result.standardError.contains("sampling_frequency = 50 Hz (requested 30 Hz)"))
        let text = try #require(readTextFile(output))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == Self.header)
        try #require(lines.count >= 3)
        // raw (100, −200, 1024) · 0.009576 = (0.9576, −1.9152, 9.805824); M = diag(−1, 1, −1)
        // → (−0.9576, −1.9152, −9.805824); negated → (0.9576, 1.9152, 9.805824).
        let row = try #require(Mock.row(lines[1]))
        #expect(close(row.1, [0.9576, 1.9152, 9.805824]))
        // Rows come from a 50 Hz timerfd: the median gap is 20 ms give or take scheduling.
        let times = lines.dropFirst().compactMap { Mock.row($0)?.0 }
        try #require(times.count >= 5)
        let gaps = zip(times.dropFirst(), times).map { Double($0 - $1) / 1e6 }.sorted()
        #expect(gaps[gaps.count / 2] > 15 && gaps[gaps.count / 2] < 40, "gaps \(gaps)")
        #expect(gaps.allSatisfy { $0 > 0 })
        // The recording was renamed into place: nothing partial is left.
        #expect(Mock.files(in: dir) == ["mma.csv"])
        unlink(output)
        rmdir(dir)
    }

    @Test func bufferedHIDHubJunkHighHalfAnd32BitGyroWithTimestamps() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let p = try Mock.record(["--rate", "1"], bed, ready: "in buffered mode")
        // Gyro scan: s32 x, y, z at 0, 4, 8; timestamp at 16 (8-byte aligned); 24 bytes.
        let gyro = Scan.le(1000, bytes: 4) + Scan.le(2000, bytes: 4) + Scan.le(-3000, bytes: 4)
            + [0, 0, 0, 0] + Scan.le(4_000_000_000, bytes: 8)
        try bed.stream(gyro, to: "/dev/iio:device1")
        // Accel scans: s16 in the low half of 32-bit words, junk 0xBEEF above.
        var accel: [UInt8] = []
        for (k, raw) in [(0, [100, -200, 1000]), (1, [-300, 0, 500])] {
            accel += Scan.le16in32(Int64(raw[0])) + Scan.le16in32(Int64(raw[1])) + Scan.le16in32(Int64(raw[2]))
                + [0, 0, 0, 0] + Scan.le(5_000_000_000 + Int64(k) * 10_000_000, bytes: 8)
        }
        try bed.stream(accel, to: "/dev/iio:device0")
        let first = try Mock.nextRow(p)
        let second = try Mock.nextRow(p)
        // The helper for other suites inverts the fixture's pipeline: a tilted device in, the same
        // specific force out (to within one count, 0.0098 m/s²).
        try bed.stream(UmockdevScan.hidAccel3D(specificForce: Vector3(-3, 1.5, 9), timestampNanoseconds: 5_020_000_000),
                       to: "/dev/iio:device0")
        let third = try Mock.nextRow(p)
        #expect(close(third.1, [-3, 1.5, 9], 0.005))
        // current_timestamp_clock was switched to monotonic, so timestamps pass unchanged.
        #expect(first.0 == 5_000_000_000)
        #expect(second.0 == 5_010_000_000)
        // (100, −200, 1000) · 0.00980665 = (0.980665, −1.96133, 9.80665); M = [0 1 0; −1 0 0; 0 0 1]
        // → (−1.96133, −0.980665, 9.80665); negated.
        #expect(close(first.1, [1.96133, 0.980665, -9.80665]))
        // (−300, 0, 500) → (−2.941995, 0, 4.903325) → M → (0, 2.941995, 4.903325) → negated.
        #expect(close(second.1, [0, -2.941995, -4.903325]))
        // Gyro (1000, 2000, −3000) · 1.745e−6 with the accelerometer's M (det +1):
        // (0.001745, 0.00349, −0.005235) → (0.00349, −0.001745, −0.005235).
        let g = try #require(first.2)
        #expect(close(g, [0.00349, -0.001745, -0.005235], 1e-12))
        #expect(bed.attribute(device: Mock.hidAccelPath,
                              "trigger/current_trigger")?.hasPrefix("accel_3d-dev0") == true)
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func bufferedLittleEndian12BitIn16() throws {
        let bed = try Mock.testbed("bmc150-accel")
        let p = try Mock.record(["--rate", "1"], bed, ready: "in buffered mode")
        let scan = Scan.le(Scan.s12(-100), bytes: 2) + Scan.le(Scan.s12(50), bytes: 2) + Scan.le(Scan.s12(1000), bytes: 2)
            + [0, 0] + Scan.le(7_000_000_000, bytes: 8)
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        #expect(row.0 == 7_000_000_000)
        // (−100, 50, 1000) · 0.009582 = (−0.9582, 0.4791, 9.582); M = diag(1, −1, −1)
        // → (−0.9582, −0.4791, −9.582); negated.
        #expect(close(row.1, [0.9582, 0.4791, 9.582]))
        #expect(row.2 == nil)  // accelerometer only: empty gyro fields
        // The data-ready trigger, not the any-motion one; the lowest listed rate ≥ 1 Hz.
        let dev = Mock.bmc150Path
        #expect(bed.attribute(device: dev, "trigger/current_trigger")?.hasPrefix("bmc150_accel-dev0") == true)
        #expect(bed.attribute(device: dev, "sampling_frequency") == "7.81\n")
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func bufferTimestampsWithoutClockAttributeAreConvertedFromRealtime() throws {
        // Kernels before 4.10 have no current_timestamp_clock and stamp with CLOCK_REALTIME;
        // taking those stamps as monotonic would mix clocks (docs/SENSORS.md "Timestamps").
        let bed = try Mock.testbed("bmc150-accel", drop: ["A: current_timestamp_clock"])
        let p = try Mock.record(["--rate", "1"], bed, ready: "in buffered mode")
        func now(_ id: clockid_t) -> Int64 {
            var ts = timespec()
            clock_gettime(id, &ts)
            return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        }
        // A sample stamped "now" on CLOCK_REALTIME must come out as "now" on CLOCK_MONOTONIC.
        let scan = Scan.le(Scan.s12(0), bytes: 2) + Scan.le(Scan.s12(0), bytes: 2) + Scan.le(Scan.s12(100), bytes: 2)
            + [0, 0] + Scan.le(now(CLOCK_REALTIME), bytes: 8)
        let monotonicAtSend = now(CLOCK_MONOTONIC)
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        #expect(abs(row.0 - monotonicAtSend) < 1_000_000_000, "\(row.0) vs monotonic \(monotonicAtSend)")
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func bufferedBigEndian12BitIn16() throws {
        let bed = try Mock.testbed("mma8452")
        let p = try Mock.record(["--rate", "1"], bed, ready: "in buffered mode")
        let scan = Scan.be(Scan.s12(-2048), bytes: 2) + Scan.be(Scan.s12(2047), bytes: 2) + Scan.be(Scan.s12(-1), bytes: 2)
            + [0, 0] + Scan.le(8_000_000_000, bytes: 8)
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        #expect(row.0 == 8_000_000_000)
        // (−2048, 2047, −1) · 0.009576 = (−19.611648, 19.602072, −0.009576); M = diag(−1, 1, −1)
        // → (19.611648, 19.602072, 0.009576); negated.
        #expect(close(row.1, [-19.611648, -19.602072, -0.009576]))
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func bufferedIMUWithGyroFirstInScanOrder() throws {
        let bed = try Mock.testbed("bmi160")
        let p = try Mock.record(["--rate", "1"], bed, ready: "in buffered mode")
        // Joined from typed parts: the one long `+` chain took Swift 6.0.3 too long to type-check.
        let parts: [[UInt8]] = [Scan.le(100, bytes: 2), Scan.le(-50, bytes: 2), Scan.le(0, bytes: 2),
                                Scan.le(1000, bytes: 2), Scan.le(-2000, bytes: 2), Scan.le(16000, bytes: 2),
                                [0, 0, 0, 0], Scan.le(9_000_000_000, bytes: 8)]
        let scan = parts.flatMap { $0 }
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        #expect(row.0 == 9_000_000_000)
        // accel (1000, −2000, 16000) · 0.000598 = (0.598, −1.196, 9.568); M = [0 −1 0; 1 0 0; 0 0 1]
        // → (1.196, 0.598, 9.568); negated.
        #expect(close(row.1, [-1.196, -0.598, -9.568]))
        // gyro (100, −50, 0) · 0.001065 = (0.1065, −0.05325, 0) → M (det +1) → (0.05325, 0.1065, 0).
        let g = try #require(row.2)
        #expect(close(g, [0.05325, 0.1065, 0], 1e-12))
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func bufferThatCannotOpenFallsBackToPolling() throws {
        // The BMC150 without its /dev node: iio_device_create_buffer fails (ENOENT), as it
        // would with EBUSY when iio-sensor-proxy holds the device; the reader polls instead.
        let bed = try Mock.testbed("bmc150-accel", drop: ["N: "])
        let p = try Mock.record(["--rate", "20"], bed, ready: "buffer unavailable")
        // Polled in_accel_*_raw = (−16, 32, 1024) · 0.009582 = (−0.153312, 0.306624, 9.811968);
        // M = diag(1, −1, −1) → (−0.153312, −0.306624, −9.811968); negated.
        let row = try Mock.nextRow(p)
        #expect(close(row.1, [0.153312, 0.306624, 9.811968]))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("errno 2"))
        #expect(result.standardError.contains("reading in polled mode"))
    }

    @Test func unreachableRemoteContextIsUnavailable() throws {
        // Any libiio URI is accepted; a remote iiod that is not there is a clear error, exit 69.
        let result = try UmockdevProcess(Mock.ctl, ["sensors", "--uri", "ip:127.0.0.1"], testbed: nil)
            .waitForExit(timeoutSeconds: 30)
        #expect(result.status == 69)
        #expect(result.standardError.contains("ip:127.0.0.1: iio_create_context failed"))
    }

    @Test func bufferThatNeverFillsIsPolledAtOnce() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        // 20 Hz and not one scan from the buffer: polled after the first-sample wait (1 s),
        // without going stale or re-enabling the buffer first (a trigger that never fires).
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "20"], testbed: bed)
        try p.waitForStandardError(containing: "in buffered mode", timeoutSeconds: 20)
        try p.waitForStandardError(containing: "but no sample came in", timeoutSeconds: 20)
        // Polled rows come from in_accel_*_raw = (−512, 256, 1000):
        // · 0.00980665 = (−5.0210048, 2.5105024, 9.80665) → M → (2.5105024, 5.0210048, 9.80665) → negated.
        let line = try p.waitForLine(timeoutSeconds: 20) { $0.first?.isNumber == true || $0.first == "-" }
        let row = try #require(Mock.row(line))
        #expect(close(row.1, [-2.5105024, -5.0210048, -9.80665]))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        let lines = result.standardError.split(separator: "\n")
        let said = lines.filter { $0.contains("but no sample came in") }
        #expect(said.count == 1, "\(lines)")
        // Laid out for a terminal, with its level as a word, never journald's "<4>" prefix.
        #expect(said.first?.hasPrefix("carouselctl: record: warning: accel_3d (iio:device0): buffer enabled with trigger ") == true, "\(said)")
        #expect(said.first?.hasSuffix("ms (a trigger that never fires, e.g. no interrupt line); reading in polled mode") == true, "\(said)")
        #expect(!result.standardError.contains("stale"), "\(lines)")
        #expect(!result.standardError.contains("re-enabling"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("<") }, "\(lines)")
    }

    @Test func bufferThatGoesSilentGoesStaleThenPolled() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        // 20 Hz: one scan, then 5 periods = 250 ms without one → stale, re-enable, then polled.
        let p = try Mock.record(["--rate", "20"], bed, ready: "in buffered mode")
        try bed.stream(Scan.le16in32(100) + Scan.le16in32(0) + Scan.le16in32(0) + [0, 0, 0, 0] + Scan.le(1_000_000_000, bytes: 8),
                       to: "/dev/iio:device0")
        _ = try Mock.nextRow(p)
        try p.waitForStandardError(containing: "stale; re-enabling the buffer", timeoutSeconds: 20)
        try p.waitForStandardError(containing: "falling back to polled mode", timeoutSeconds: 20)
        let line = try p.waitForLine(timeoutSeconds: 20) { ($0.first?.isNumber == true || $0.first == "-") && !$0.hasPrefix("1000000000,") }
        let row = try #require(Mock.row(line))
        #expect(close(row.1, [-2.5105024, -5.0210048, -9.80665]))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("sensor status: stale"))
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("carouselctl: record: warning: ") && $0.hasSuffix("(5 periods): stale; re-enabling the buffer") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("carouselctl: record: warning: ") && $0.hasSuffix("falling back to polled mode") })
        #expect(!lines.contains { $0.hasPrefix("<") }, "\(lines)")
    }

    /// After a resume the reader, frozen while devices suspended and resumed, finds its buffer
    /// silent for far more than 5 periods: stale, re-enabled. A HID sensor powers up again only
    /// after the thaw, so the re-enabled buffer gets the first-sample allowance (1 s) before it
    /// is given up for polling, not another 5 periods: with those, carouseld fell back to polled
    /// mode on every resume (the system suite's suspend_and_resume).
    @Test func aReenabledBufferThatDeliversWithinASecondStaysBuffered() throws {
        // 50 Hz: 5 periods are 100 ms. The re-enabled buffer delivers 300 ms later: three
        // windows of 5 periods, within 1 s.
        try reenabledBufferStaysBuffered(frozenMicroseconds: 0, deliversAfterMicroseconds: 300_000)
    }

    /// The daemon frozen for 2.5 s (SIGSTOP, as user space is while devices suspend) finds its
    /// buffer silent far past the watchdog's window: a system sleep. The re-enabled buffer then
    /// gets 5 s, not 1 s, to deliver (a HID sensor hub powers up after the thaw; the system
    /// suite's uhid hub took over 1 s, and carouseld fell back to polled mode for good).
    @Test func aBufferReenabledAfterASleepGetsFiveSeconds() throws {
        // 1.5 s after the re-enable: past the 1 s a buffer gets after a short silence.
        try reenabledBufferStaysBuffered(frozenMicroseconds: 2_500_000, deliversAfterMicroseconds: 1_500_000)
    }

    /// A 50 Hz recording of the HID hub's accelerometer: one scan, then silence (the recorder
    /// stopped with SIGSTOP for `frozenMicroseconds` when not 0), the buffer re-enabled, and a
    /// scan `deliversAfterMicroseconds` later, which must be read from the buffer (its own
    /// timestamp) with no fallback to polling.
    private func reenabledBufferStaysBuffered(frozenMicroseconds: UInt32, deliversAfterMicroseconds: UInt32) throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        func scan(_ x: Int64, _ ts: Int64) -> [UInt8] {
            Scan.le16in32(x) + Scan.le16in32(0) + Scan.le16in32(0) + [0, 0, 0, 0] + Scan.le(ts, bytes: 8)
        }
        let p = try Mock.record(["--rate", "50"], bed, ready: "in buffered mode")
        try bed.stream(scan(100, 1_000_000_000), to: "/dev/iio:device0")
        let first = try Mock.nextRow(p)
        if frozenMicroseconds > 0 {
            p.signal(SIGSTOP)
            usleep(frozenMicroseconds)
            p.signal(SIGCONT)
        }
        try p.waitForStandardError(containing: "stale; re-enabling the buffer", timeoutSeconds: 20)
        usleep(deliversAfterMicroseconds)
        try bed.stream(scan(200, 2_000_000_000), to: "/dev/iio:device0")
        // The scan's own timestamp: read from the buffer, not from sysfs by polling.
        let line = try p.waitForLine(timeoutSeconds: 10) { $0.hasPrefix("2000000000,") }
        let row = try #require(Mock.row(line))
        #expect(row.0 == 2_000_000_000 && row.1 != first.1, "\(line)")
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(!result.standardError.contains("falling back to polled mode"), "\(result.standardError)")
    }

    @Test func hotplugRemoveAndReaddWhileStreaming() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let accelPath = Mock.hidAccelPath
        let p = try Mock.record(["--rate", "1", "--hotplug"], bed, ready: "in buffered mode")
        func sample(_ x: Int64, _ ts: Int64) -> [UInt8] {
            Scan.le16in32(x) + Scan.le16in32(0) + Scan.le16in32(0) + [0, 0, 0, 0] + Scan.le(ts, bytes: 8)
        }
        try bed.stream(sample(100, 1_000_000_000), to: "/dev/iio:device0")
        let before = try Mock.nextRow(p)
        #expect(before.0 == 1_000_000_000)

        bed.unplug(device: accelPath)
        try p.waitForStandardError(containing: "sensor status: absent", timeoutSeconds: 20)

        try bed.plug(description: Mock.block("hid-sensor-hub", endingWith: "/iio:device0"))
        try p.waitForStandardError(containing: "sensor status: ok", timeoutSeconds: 20)
        // The re-added accelerometer streams again. x = 200 · 0.00980665 = 1.96133 → M puts it on
        // −y → negated: +1.96133 on y.
        try bed.stream(sample(200, 2_000_000_000), to: "/dev/iio:device0")
        let after = try #require(Mock.row(try p.waitForLine(timeoutSeconds: 20) { $0.hasPrefix("2000000000,") }))
        #expect(close(after.1, [0, 1.96133, 0]))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("accel_3d (iio:device0) removed"))
    }

    @Test func gyroscopeRemovalLeavesAccelerometerOnly() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let gyroPath = Mock.hidGyroPath
        let p = try Mock.record(["--rate", "1"], bed, ready: "+ gyro_3d (iio:device1) in buffered mode")
        bed.unplug(device: gyroPath)
        try p.waitForStandardError(containing: "reading accel_3d (iio:device0) in buffered mode", timeoutSeconds: 20)
        let scan = Scan.le16in32(0) + Scan.le16in32(0) + Scan.le16in32(1000) + [0, 0, 0, 0] + Scan.le(3_000_000_000, bytes: 8)
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        #expect(row.0 == 3_000_000_000)
        #expect(close(row.1, [0, 0, -9.80665]))
        #expect(row.2 == nil)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardError.contains("gyro_3d (iio:device1) removed"))
    }

    @Test func sensorPluggedInAfterStartIsPickedUp() throws {
        let bed = try Mock.testbed(nil)
        let p = try Mock.record(["--rate", "1", "--hotplug"], bed, ready: "waiting for a sensor")
        try bed.plug(description: readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? "")
        try p.waitForStandardError(containing: "in buffered mode", timeoutSeconds: 20)
        let scan = Scan.le(Scan.s12(0), bytes: 2) + Scan.le(Scan.s12(0), bytes: 2) + Scan.le(Scan.s12(-1000), bytes: 2)
            + [0, 0] + Scan.le(6_000_000_000, bytes: 8)
        try bed.stream(scan, to: "/dev/iio:device0")
        let row = try Mock.nextRow(p)
        // z: −1000 · 0.009582 = −9.582 → M (z ↦ −z) → 9.582 → negated.
        #expect(close(row.1, [0, 0, -9.582]))
        #expect(try Mock.stop(p).status == 0)
    }

    /// A sensor hub's devices appear in sysfs together and come through udev one event at a
    /// time. The gyroscope's event must not open the accelerometer, whose udev rules may not
    /// have run (the system suite saw it read polled for good: "no permission to open
    /// /dev/iio:device1 (errno 13)"); the accelerometer's own event opens both, buffered.
    @Test func hubsSecondDeviceWaitsForItsOwnEvent() throws {
        let bed = try Mock.testbed(nil)
        let p = try Mock.record(["--rate", "1", "--hotplug"], bed, ready: "waiting for a sensor")
        try bed.add(file: TestPaths.fixture("umockdev/hid-sensor-hub.umockdev"))
        bed.uevent("add", device: Mock.hidGyroPath)
        try p.waitForStandardError(containing: "waiting for the udev event of accel_3d (iio:device0)", timeoutSeconds: 20)
        let waiting = p.standardErrorSoFar
        #expect(!waiting.contains("reading accel_3d"), "\(waiting)")
        bed.uevent("add", device: Mock.hidAccelPath)
        try p.waitForStandardError(containing: "reading accel_3d (iio:device0) + gyro_3d (iio:device1) in buffered mode", timeoutSeconds: 20)
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func removalEndsRecordingCleanlyWithoutHotplug() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let accelPath = Mock.hidAccelPath
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "1"], testbed: bed)
        try p.waitForStandardError(containing: "in buffered mode", timeoutSeconds: 20)
        bed.unplug(device: accelPath)
        let result = try p.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 0)
        #expect(result.standardError.contains("sensor status: absent"))
        #expect(result.standardOutput.hasPrefix(Self.header))
    }
}
