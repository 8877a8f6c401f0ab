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
    static let header = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"
    static let polledPath = "/devices/platform/i2c-2/2-000e/iio:device0"
    static let bmc150Path = "/devices/pci0000:00/0000:00:16.1/i2c_designware.1/i2c-1/i2c-BSBA0150:00/iio:device0"

    /// A polled accelerometer at `polledPath` with the given extra attribute lines.
    static func polled(_ lines: [String]) throws -> UmockdevTestbed {
        let bed = try UmockdevTestbed()
        try bed.add(description: (["P: \(polledPath)", "E: DEVNAME=/dev/iio:device0", "E: SUBSYSTEM=iio"] + lines
                                  + ["", "P: /devices/platform/i2c-2/2-000e", "E: SUBSYSTEM=i2c", "A: name=X:00\\n"])
                                    .joined(separator: "\n"))
        return bed
    }

    /// The BMC150 fixture with lines edited: `drop` removes lines with that prefix, `replace`
    /// swaps whole lines.
    static func bmc150(drop: [String] = [], replace: [String: String] = [:]) throws -> UmockdevTestbed {
        let text = readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { line in !drop.contains { line.hasPrefix($0) } }
            .map { line in replace.first { line.hasPrefix($0.key) }?.value ?? line }
        let bed = try UmockdevTestbed()
        try bed.add(description: lines.joined(separator: "\n"))
        return bed
    }

    @Test func rawValuesThatAreNotIntegersAreSkippedNotFatal() throws {
        // 1e30 used to trap in Int64(Double); "abc" ended the recording with exit 74.
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
        p.signal(SIGTERM)
        let result = try p.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("nan") && !result.standardOutput.contains("inf"))
    }

    @Test func overflowingScaleSkipsSamplesInsteadOfWritingInfinity() throws {
        // 2147483647 · 1e300 is not a Double: no row, a warning, a clean exit.
        let bed = try Self.polled(["A: name=t\\n", "A: in_accel_x_raw=2147483647\\n", "A: in_accel_y_raw=0\\n",
                                   "A: in_accel_z_raw=0\\n", "A: in_accel_scale=1e300\\n"])
        let p = try UmockdevProcess(Mock.ctl, ["record", "--output", "-", "--rate", "50"], testbed: bed)
        try p.waitForStandardError(containing: "sample skipped: (raw + offset) · scale is not finite", timeoutSeconds: 20)
        p.signal(SIGTERM)
        let result = try p.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 0)
        #expect(result.standardOutput == Self.header + "\n")
    }

    @Test func unknownSensorIsUnavailable() throws {
        let bed = try Mock.testbed("scale-variants")
        let result = try Mock.run(["record", "--output", "-", "--sensor", "nothing \"here\"", "--duration", "1"], bed)
        #expect(result.status == 69)
        #expect(result.standardError.contains("no sensor matches 'nothing \"here\"'"))
    }

}
