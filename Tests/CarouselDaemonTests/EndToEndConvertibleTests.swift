import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A convertible's two HID sensor hubs through umockdev (docs/SENSORS.md "Selection and
/// pairing"): the base's (`accel_3d` only, udev `ACCEL_LOCATION=base`) is `iio:device0`, the
/// display's `accel_3d` + `gyro_3d` are `iio:device1` and `iio:device2`. The daemon reads the
/// display's pair; with the display hub unplugged, the base's accelerometer; with it plugged
/// back, the display's pair again, and each move is a SENSOR message naming the devices.
@Suite(.serialized) struct EndToEndConvertibleTests {
    static let hub = "/sys/devices/platform/i2c-ITE8350:00/0018:048D:8350.0001"
    static let displayHub = "/sys/devices/platform/i2c-ITE8351:00/0018:048D:8351.0002"
    static let baseAccel = hub + "/HID-SENSOR-200073.3.auto/iio:device0"
    static let displayAccel = displayHub + "/HID-SENSOR-200073.5.auto/iio:device1"
    static let displayGyro = displayHub + "/HID-SENSOR-200076.6.auto/iio:device2"

    /// The fixture's device blocks (blank-line separated).
    static func blocks(_ text: String) -> [String] {
        text.split(separator: "\n\n").map(String.init).filter { $0.contains("P: ") }
    }

    /// The base hub: the fixture without its gyroscope, the accelerometer marked as in the base.
    static func baseDescription(_ fixture: String) -> String {
        blocks(fixture).filter { !$0.contains("HID-SENSOR-200076") }
            .map { $0.contains("P: /devices/platform/i2c-ITE8350:00/0018:048D:8350.0001/HID-SENSOR-200073.3.auto/iio:device0\n")
                ? $0 + "\nE: ACCEL_LOCATION=base" : $0 }
            .joined(separator: "\n\n")
    }

    /// The display hub: the whole fixture moved to another HID device, its devices renamed (each
    /// name is a link in its bus's directory, so two hubs' must differ).
    static func displayDescription(_ fixture: String) -> String {
        var text = blocks(fixture).joined(separator: "\n\n")
        for (old, new) in [("iio:device1", "iio:device2"), ("iio:device0", "iio:device1"), ("trigger1", "trigger3"),
                           ("trigger0", "trigger2"), ("gyro_3d-dev1", "gyro_3d-dev2"), ("accel_3d-dev0", "accel_3d-dev1"),
                           ("ITE8350:00", "ITE8351:00"), ("8350.0001", "8351.0002"),
                           ("200073.3.auto", "200073.5.auto"), ("200076.4.auto", "200076.6.auto")] {
            text = text.split(separator: old, omittingEmptySubsequences: false).joined(separator: new)
        }
        return text
    }

    /// A SENSOR ok naming these devices.
    static func reads(_ path: String, _ gyroPath: String?) -> (WireJSON) -> Bool {
        { m in
            m["class"] == .string("SENSOR") && m["status"] == .string("ok") && m["path"] == .string(path)
                && m["gyro_path"] == gyroPath.map { WireJSON.string($0) }
        }
    }

    @Test func theDisplayIsReadAgainWhenItsHubIsPluggedBack() throws {
        let fixture = (readTextFile(TestPaths.fixture("umockdev/hid-sensor-hub.umockdev")) ?? "")
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        try #require(fixture.contains("iio:device1"), "fixture hid-sensor-hub.umockdev not found or changed")
        let bed = try UmockdevTestbed()
        try bed.add(description: Self.baseDescription(fixture))
        let display = Self.displayDescription(fixture)
        try bed.add(description: display)
        let d = try UmockdevDaemon("convertible", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "50", "mode": "polled", "always_on": "yes"],
        ])
        defer { d.kill() }
        let daemon = d.process
        let c = try d.client()
        try c.send(#"{"cmd":"watch"}"#)
        func expectSensor(_ path: String, _ gyro: String?, _ when: String) throws {
            do {
                _ = try c.readUntil(timeoutSeconds: 20, Self.reads(path, gyro))
            } catch {
                let log = String(daemon.standardErrorSoFar.suffix(1500))
                Issue.record("\(when): no SENSOR ok naming \(path) + \(gyro ?? "no gyroscope") within 20 s (\(error)); daemon log: \(log)")
                throw error
            }
        }
        try expectSensor(Self.displayAccel, Self.displayGyro, "at start")
        bed.unplug(device: Self.displayAccel)
        bed.unplug(device: Self.displayGyro)
        try expectSensor(Self.baseAccel, nil, "display hub unplugged")
        let iioBlocks = Self.blocks(display).filter { $0.contains("/iio:device1\n") || $0.contains("/iio:device2\n") }
        #expect(iioBlocks.count == 2)
        try bed.plug(description: iioBlocks.joined(separator: "\n\n"))
        try expectSensor(Self.displayAccel, Self.displayGyro, "display hub plugged back")
        daemon.signal(SIGTERM)
        let result = try daemon.waitForExit(timeoutSeconds: 10)
        #expect(result.status == 0)
        let log = result.standardError
        #expect(log.contains("accel_3d (iio:device0) skipped: its label/location says keyboard base"), "daemon log: \(log)")
        // The accelerometer's add comes first: the display's accelerometer alone, then its pair.
        #expect(log.contains("iio:device1 add: the selection rule now chooses accel_3d (iio:device1) instead of accel_3d (iio:device0)"),
                "daemon log: \(log)")
        #expect(log.contains("iio:device2 add: the selection rule now chooses accel_3d (iio:device1) + gyro_3d (iio:device2)"),
                "daemon log: \(log)")
    }
}
