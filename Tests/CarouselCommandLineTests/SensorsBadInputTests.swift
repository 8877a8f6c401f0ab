#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import Foundation
import Testing

/// `carouselctl sensors` and `record` fed absurd sysfs text, broken scan elements and bad output
/// paths through umockdev testbeds: a clear warning or error, the right exit code, a skipped
/// sample rather than a crash, and never a made-up number.
@Suite(.serialized) struct SensorsBadInputTests {
    static let header = Mock.header
    static let polledPath = "/devices/platform/i2c-2/2-000e/iio:device0"

    /// A polled accelerometer at `polledPath` with the given extra attribute lines.
    static func polled(_ lines: [String]) throws -> UmockdevTestbed {
        let bed = try UmockdevTestbed()
        try bed.add(description: (["P: \(polledPath)", "E: DEVNAME=/dev/iio:device0", "E: SUBSYSTEM=iio"] + lines
                                  + ["", "P: /devices/platform/i2c-2/2-000e", "E: SUBSYSTEM=i2c", "A: name=X:00\\n"])
                                    .joined(separator: "\n"))
        return bed
    }

    static func bmc150(drop: [String] = [], replace: [String: String] = [:]) throws -> UmockdevTestbed {
        try Mock.testbed("bmc150-accel", drop: drop, replace: replace)
    }

    @Test func rawValuesThatAreNotIntegersAreSkippedNotFatal() throws {
        // 1e30 does not fit Int64 and "abc" is no number: both rows are skipped, the recording goes on.
        let bed = try Self.polled(["A: name=t\\n", "A: in_accel_x_raw=1e30\\n", "A: in_accel_y_raw=abc\\n",
                                   "A: in_accel_z_raw=-1000\\n", "A: in_accel_scale=0.01\\n"])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        try p.waitForStandardError(containing: "sample skipped: in_accel_x_raw: bad value '1e30' (1 skipped so far)", timeoutSeconds: 20)
        // The device comes to its senses: the next reads give rows again.
        bed.setAttribute(device: Self.polledPath, "in_accel_x_raw", "100\n")
        bed.setAttribute(device: Self.polledPath, "in_accel_y_raw", "-2147483648\n")
        // (100, −2147483648, −1000) · 0.01 = (1, −21474836.48, −10), identity, negated.
        let row = try Mock.nextRow(p)
        #expect(close(row.1, [-1, 21_474_836.48, 10], 1e-6))
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("nan") && !result.standardOutput.contains("inf"))
    }

    @Test func polledDeviceWithOnlyBadValuesGoesStaleThenRecovers() throws {
        // Every read skipped is no sample at all: after 5 periods (100 ms at 50 Hz) the status
        // says stale, and the first good value brings it back to ok.
        let bed = try Self.polled(["A: name=t\\n", "A: in_accel_x_raw=abc\\n", "A: in_accel_y_raw=0\\n",
                                   "A: in_accel_z_raw=0\\n", "A: in_accel_scale=0.5\\n"])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        try p.waitForStandardError(containing: "sensor status: stale (no valid sample for", timeoutSeconds: 20)
        bed.setAttribute(device: Self.polledPath, "in_accel_x_raw", "3\n")
        try p.waitForStandardError(containing: "sensor status: ok", timeoutSeconds: 20)
        // (3 · 0.5, 0, 0), identity, negated.
        let row = Mock.row(try p.waitForLine(timeoutSeconds: 20) { Mock.row($0) != nil })
        #expect(close(try #require(row).1, [-1.5, 0, 0]))
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func overflowingScaleSkipsSamplesInsteadOfWritingInfinity() throws {
        // 2147483647 · 1e300 is not a Double: no row, a warning, a clean exit.
        let bed = try Self.polled(["A: name=t\\n", "A: in_accel_x_raw=2147483647\\n", "A: in_accel_y_raw=0\\n",
                                   "A: in_accel_z_raw=0\\n", "A: in_accel_scale=1e300\\n"])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "50"], testbed: bed)
        try p.waitForStandardError(containing: "sample skipped: (raw + offset) · scale is not finite", timeoutSeconds: 20)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        #expect(result.standardOutput == Self.header + "\n")
    }

    @Test func absurdAttributesAreWarningsInSensorsJSON() throws {
        let bed = try Self.polled([
            "A: name=we\\\\ird\\n", "A: label=accel \"display\" ☃\\tx\\n",
            "A: in_accel_x_raw=1\\n", "A: in_accel_y_raw=2\\n", "A: in_accel_z_raw=3\\n",
            "A: in_accel_scale=0x10\\n",                       // hex: not what a kernel writes
            "A: in_accel_x_offset=nan\\n",
            "A: sampling_frequency=1e300\\n",
            "A: sampling_frequency_available=0 12.5 1e300\\n",
            "A: in_accel_mount_matrix=1, 1, 0; 1, 1, 0; 0, 0, 1\\n", // singular
        ])
        let result = try Mock.run(["sensors", "--json"], bed)
        #expect(result.status == 0)
        let s = try #require(try Mock.json(result.standardOutput).first)
        #expect(s["name"] as? String == "we\\ird")
        #expect(s["label"] as? String == "accel \"display\" ☃\tx")
        let channels = s["channels"] as? [[String: Any]] ?? []
        #expect(channels.map { $0["scale"] as? Double } == [1, 1, 1])
        #expect(channels.map { $0["offset"] as? Double } == [0, 0, 0])
        #expect(s["sampling_frequency_hz"] is NSNull)
        #expect(s["sampling_frequency_available_hz"] as? [Double] == [12.5])
        #expect(s["mount_matrix_source"] as? String == "identity")
        let warnings = s["warnings"] as? [String] ?? []
        #expect(warnings.filter { $0 == "in_accel_scale: bad value '0x10', ignored" }.count == 1)
        #expect(warnings.contains("in_accel_x_offset: bad value 'nan', ignored"))
        #expect(warnings.contains("sampling_frequency: '1e300' is not a rate in Hz; ignored"))
        #expect(warnings.contains("sampling_frequency_available: rates outside 0 < f ≤ 1 MHz in '0 12.5 1e300' ignored"))
        #expect(warnings.contains { $0.hasPrefix("in_accel_mount_matrix: mount matrix '1, 1, 0; 1, 1, 0; 0, 0, 1' is singular") })

        // The text form carries the same warnings, one per line.
        let text = try Mock.run(["sensors"], bed)
        #expect(text.standardOutput.contains("  warning: in_accel_scale: bad value '0x10', ignored\n"))
    }

    @Test func aDeviceNameWithControlCharactersStaysOneLogLineAndForgesNone() throws {
        // A driver's name holding an escape sequence and a newline followed by a fake warning.
        let bed = try Self.polled(["A: name=evil\\033[31m\\nwarning: forged\\n", "A: in_accel_x_raw=1\\n",
                                   "A: in_accel_y_raw=2\\n", "A: in_accel_z_raw=3\\n", "A: in_accel_scale=nan\\n"])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--mode", "polled", "--rate", "50"], testbed: bed)
        try p.waitForStandardError(containing: "in polled mode", timeoutSeconds: 20)
        let result = try Mock.stop(p)
        #expect(result.status == 0)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.contains("carouselctl: record: warning: evil\\x1b[31m\\nwarning: forged (iio:device0): in_accel_scale: bad value 'nan', ignored"),
                "\(lines)")
        #expect(lines.contains("carouselctl: record: info: reading evil\\x1b[31m\\nwarning: forged (iio:device0) in polled mode at 50 Hz"))
        #expect(!lines.contains { $0.hasPrefix("warning: forged") })
        #expect(!result.standardError.contains("\u{1B}"))
    }

    @Test func mountMatricesThatAreNoRotationAreRefusedWithTheirSource() throws {
        // udev's ACCEL_MOUNT_MATRIX with huge entries (every value would be infinite), then sysfs
        // in_accel_mount_matrix in hex (a hex float to Double(_:)), then in_mount_matrix, which wins.
        let bed = try Self.polled(["E: ACCEL_MOUNT_MATRIX=1e308, 0, 0; 0, 1e308, 0; 0, 0, 1e308",
                                   "A: name=t\\n", "A: in_accel_x_raw=1\\n", "A: in_accel_y_raw=2\\n", "A: in_accel_z_raw=4\\n",
                                   "A: in_accel_scale=0.5\\n",
                                   "A: in_accel_mount_matrix=0x1, 0, 0; 0, 1, 0; 0, 0, 1\\n",
                                   "A: in_mount_matrix=0, 1, 0; 1, 0, 0; 0, 0, 1\\n"])
        let s = try #require(try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput).first)
        #expect(s["mount_matrix_source"] as? String == "sysfs")
        #expect(s["mount_matrix"] as? [[Double]] == [[0, 1, 0], [1, 0, 0], [0, 0, 1]])
        #expect(s["warnings"] as? [String] == [
            "udev ACCEL_MOUNT_MATRIX: mount matrix '1e308, 0, 0; 0, 1e308, 0; 0, 0, 1e308': entry 1e308 is outside -1…1, so this is no rotation; ignored",
            "in_accel_mount_matrix: mount matrix '0x1, 0, 0; 0, 1, 0; 0, 0, 1': '0x1' is not a decimal number; ignored",
        ])
        // Rows use the matrix that won: (1, 2, 4) · 0.5 = (0.5, 1, 2) → swap x, y → (1, 0.5, 2) → negated.
        let p = try Mock.record(["--mode", "polled", "--rate", "50"], bed, ready: "in polled mode")
        #expect(close(try Mock.nextRow(p).1, [-1, -0.5, -2]))
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func aTreeLibiioRefusesNamesTheMalformedAttribute() throws {
        // libiio's local backend fails for every device when one has an index strtol cannot
        // read or a name of 1024 bytes or more: the error names the device and the attribute.
        let badIndex = try Self.bmc150(replace: ["A: scan_elements/in_accel_x_index=": "A: scan_elements/in_accel_x_index=abc\\n"])
        let r1 = try Mock.run(["sensors"], badIndex)
        #expect(r1.status == 69)
        #expect(r1.standardError == "carouselctl: sensors: local: iio_create_context failed (errno 22: Invalid argument): "
                + "libiio refuses every local IIO device when one has a malformed attribute; "
                + "iio:device0: scan_elements/in_accel_x_index 'abc' is not an integer\n")
        let longName = try Self.polled(["A: name=" + String(repeating: "N", count: 1030) + "\\n", "A: in_accel_x_raw=1\\n",
                                        "A: in_accel_y_raw=2\\n", "A: in_accel_z_raw=3\\n"])
        let r2 = try Mock.run(["sensors", "--json"], longName)
        #expect(r2.status == 69)
        // 1030 bytes and the newline.
        #expect(r2.standardError.hasSuffix("when one has a malformed attribute; iio:device0: name is 1031 bytes, libiio reads at most 1023\n"))
    }

    @Test func scanElementsThatCannotBeDecodedMeanPolling() throws {
        let cases: [(UmockdevTestbed, String)] = [
            // libiio 0.24 would let iio_channel_convert write past the 2-byte sample.
            (try Self.bmc150(replace: ["A: scan_elements/in_accel_x_type=": "A: scan_elements/in_accel_x_type=le:s99/16>>4\\n"]),
             "scan_elements/in_accel_x_type 'le:s99/16>>4': 99 value bits do not fit in 16"),
            (try Self.bmc150(replace: ["A: scan_elements/in_accel_y_type=": "A: scan_elements/in_accel_y_type=le:s12/16>>40\\n"]),
             "scan_elements/in_accel_y_type 'le:s12/16>>40': shift 40 + 12 bits exceed 16"),
            (try Self.bmc150(replace: ["A: scan_elements/in_accel_x_type=": "A: scan_elements/in_accel_x_type=xx\\n"]),
             "scan_elements/in_accel_x_type 'xx': storage size 0 bits is not 8, 16, 32 or 64"),
            (try Self.bmc150(drop: ["A: scan_elements/in_accel_z_type="]),
             "scan_elements/in_accel_z_type missing or unreadable"),
            // Two axes on one index would both be read from the same bytes.
            (try Self.bmc150(replace: ["A: scan_elements/in_accel_y_index=": "A: scan_elements/in_accel_y_index=0\\n"]),
             "share index 0"),
            (try Self.bmc150(drop: ["A: scan_elements/in_accel_z"]),
             "accel_z is not a scan element"),
        ]
        for (bed, expected) in cases {
            let s = try #require(try Mock.json(try Mock.run(["sensors", "--json"], bed).standardOutput).first)
            #expect(s["buffered"] as? Bool == false, "\(expected)")
            let warnings = s["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains(expected) && $0.hasSuffix("buffered mode disabled, values are polled") },
                    "\(warnings)")
        }
        // Recording still works, polled: in_accel_*_raw (−16, 32, 1024) · 0.009582 → M = diag(1, −1, −1)
        // → (−0.153312, −0.306624, −9.811968) → negated.
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "20"], testbed: cases[0].0)
        try p.waitForStandardError(containing: "in polled mode", timeoutSeconds: 20)
        #expect(try p.readLine(timeoutSeconds: 20) == Self.header)
        let row = try Mock.nextRow(p)
        #expect(close(row.1, [0.153312, 0.306624, 9.811968]))
        #expect(try Mock.stop(p).status == 0)
    }

    @Test func twoAxisDeviceIsNotedNotListed() throws {
        let bed = try Self.bmc150(drop: ["A: in_accel_z_raw", "A: scan_elements/in_accel_z"])
        let result = try Mock.run(["sensors", "--json"], bed)
        #expect(result.status == 0)
        #expect(result.standardOutput == "[]\n")
        #expect(result.standardError.contains("bmc150_accel (iio:device0): no accel_z channel; not a 3-axis sensor, skipped"))
    }

    @Test func outputIntoADirectoryFailsBeforeRecording() throws {
        let bed = try Mock.testbed("scale-variants")
        let dir = "/tmp/carousel-outdir-\(getpid())"
        mkdir(dir, 0o755)
        defer { rmdir(dir) }
        // --duration 60: an error only at the final rename would take a minute.
        let result = try Mock.run(["record", "--output", dir, "--duration", "60"], bed, timeout: 15)
        #expect(result.status == 74)
        #expect(result.standardError.contains("\(dir): open failed (errno 21: Is a directory)"))
        #expect(!Mock.files(in: "/tmp").contains { $0.hasPrefix("carousel-outdir-\(getpid()).partial") })
    }

    @Test func unknownSensorIsUnavailable() throws {
        let bed = try Mock.testbed("scale-variants")
        let result = try Mock.run(["record", "--output", "-", "--sensor", "nothing \"here\"", "--duration", "1"], bed)
        #expect(result.status == 69)
        #expect(result.standardError.contains("no sensor matches 'nothing \"here\"'"))
    }

    @Test func deviceGoneWithoutUeventIsRemovedNotStale() throws {
        // The sysfs tree goes but no remove uevent comes (a lost netlink message): the silence
        // check finds it gone after 5 periods (250 ms at 20 Hz) and ends the recording cleanly.
        let bed = try Mock.testbed("hid-sensor-hub")
        let p = try Mock.record(["--rate", "20"], bed, ready: "in buffered mode")
        bed.remove(device: Mock.hidAccelPath)
        let result = try p.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 0)
        #expect(result.standardError.contains("accel_3d (iio:device0) removed"))
        #expect(result.standardError.contains("sensor status: absent"))
        #expect(!result.standardError.contains("re-enabling"))
    }

    @Test func polledDeviceGoneWithoutUeventIsRemoved() throws {
        let bed = try Mock.testbed("scale-variants")
        let p = try Mock.record(["--mode", "polled", "--rate", "50"], bed, ready: "in polled mode")
        _ = try Mock.nextRow(p)
        bed.remove(device: "/devices/platform/i2c-2/2-000e/iio:device0")
        let result = try p.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 0)
        #expect(result.standardError.contains("kxcjk1013 (iio:device0) removed"))
    }

    @Test func descriptorsStayFlatAcrossHotplugCycles() throws {
        let bed = try Mock.testbed("hid-sensor-hub")
        let accelPath = Mock.hidAccelPath
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "1", "--hotplug"], testbed: bed)
        try p.waitForStandardError(containing: "in buffered mode", timeoutSeconds: 20)
        func descriptors() -> Int { Mock.files(in: "/proc/\(p.pid)/fd").count }
        let before = descriptors()
        try #require(before > 3)
        for cycle in 1...3 {
            bed.unplug(device: accelPath)
            try p.waitForStandardError(containing: "sensor status: absent", occurrences: cycle, timeoutSeconds: 20)
            try bed.plug(description: Mock.block("hid-sensor-hub", endingWith: "/iio:device0"))
            try p.waitForStandardError(containing: "sensor status: ok", occurrences: cycle, timeoutSeconds: 20)
        }
        // Buffers, timerfds, the udev monitor and libiio contexts of three open/close cycles: all released.
        #expect(descriptors() == before)
        #expect(try Mock.stop(p).status == 0)
    }
}
