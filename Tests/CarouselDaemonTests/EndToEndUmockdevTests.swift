import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// (b) A mocked buffered accelerometer (umockdev, bmc150 fixture) streaming through its PTY:
/// tilting it moves the carousel to another item; unplugging it makes the sensor `absent`,
/// plugging it back makes it `ok` again.
@Suite(.serialized) struct EndToEndUmockdevTests {
    static let accelPath = "/devices/pci0000:00/0000:00:16.1/i2c_designware.1/i2c-1/i2c-BSBA0150:00/iio:device0"

    /// One bmc150 scan (`le:s12/16>>4` x, y, z, padding, `le:s64` timestamp) for the device at
    /// `rollDegrees` (face up, rotated about y; docs/FUSION.md "1. Conventions": u = (−sin roll, 0, cos roll)).
    /// The fixture's mount matrix is diag(1, −1, −1) and IIOSensors reports −M·(raw · 0.009582),
    /// so raw = (−a.x, a.y, a.z) / 0.009582.
    static func scan(rollDegrees: Double, timestampNanoseconds: Int64) -> [UInt8] {
        let g = 9.80665, scale = 0.009582
        let r = rollDegrees * Double.pi / 180
        let a = (x: -sin(r) * g, y: 0.0, z: cos(r) * g)
        let raw = [(-a.x / scale).rounded(), (a.y / scale).rounded(), (a.z / scale).rounded()].map { Int64($0) }
        return raw.flatMap { UmockdevScan.le(UmockdevScan.leftAligned12($0), bytes: 2) } + [0, 0]
            + UmockdevScan.le(timestampNanoseconds, bytes: 8)
    }

    @Test func tiltingTheMockedAccelerometerChangesTheIndexAndHotplugIsReported() throws {
        let bed = try UmockdevTestbed()
        let fixture = readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? ""
        try bed.add(description: fixture)
        // 1 Hz asks for the fixture's slowest rate, 7.81 Hz: the stale window (5 periods, 0.64 s)
        // stays well above the 0.1 s at which the test streams scans.
        let d = try UmockdevDaemon("umockdev", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "1", "mode": "buffered"],
            "filter": ["method": "accel", "lowpass_hz": "0"],
            "tilt": ["enabled": "yes"],
        ], verbose: true)
        defer { d.kill() }
        let daemon = d.process
        let c = try d.client()
        try c.send(#"{"cmd":"watch","max_rate_hz":20}"#)
        _ = try c.readUntil(timeoutSeconds: 20) { $0["class"] == .string("SENSOR") && $0["status"] == .string("ok") }

        var timestamp: Int64 = 1_000_000_000
        /// Streams scans at `roll` every 0.1 s (waiting on the socket in between) until a line
        /// satisfies `predicate`.
        func hold(roll: Double, timeoutSeconds: Double = 10, until predicate: (WireJSON) -> Bool) throws -> [WireJSON] {
            var seen: [WireJSON] = []
            let end = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
            while clinux_monotonic_ns() < end {
                try bed.stream(Self.scan(rollDegrees: roll, timestampNanoseconds: timestamp), to: "/dev/iio:device0")
                timestamp += 100_000_000
                let tick = clinux_monotonic_ns() + 100_000_000
                while clinux_monotonic_ns() < tick {
                    guard let line = try? c.readLine(timeoutSeconds: 0.1), let v = try? WireJSONParser.parse(line) else { continue }
                    seen.append(v)
                    if predicate(v) { return seen }
                }
            }
            throw TestSupportError("condition not met while holding roll \(roll)°; last: \(seen.suffix(2)); log: \(daemon.standardErrorSoFar.suffix(600))")
        }

        // Level: roll 0 within 0.1°.
        let level = try hold(roll: 0) { $0.isState && abs($0["tilt"]?["roll_deg"]?.doubleValue ?? 99) < 0.1 }
        #expect(level.last?["sensor"] == .string("ok"))
        #expect(level.last?["index"] == .number(0))
        // Left edge down by 20°: the offset grows (docs/ENGINE.md "Tilt") until item 1 is nearest.
        let tilted = try hold(roll: -20) { $0.isState && ($0["index"]?.doubleValue ?? 0) >= 1 }
        let moving = try #require(tilted.last)
        #expect(moving["phase"] == .string("tilting"))
        #expect(abs((moving["tilt"]?["roll_deg"]?.doubleValue ?? 0) + 20) < 0.5)
        #expect((moving["velocity"]?.doubleValue ?? 0) > 0)
        // Level again: it snaps to a centered item and announces it.
        let rest = try hold(roll: 0) { $0["class"] == .string("INDEX") }
        let index = try #require(rest.last?["index"]?.doubleValue)
        #expect(index >= 1)
        #expect(rest.last?["previous"] == .number(0))
        let state = try #require(rest.last { $0.isState })
        #expect(state["phase"] == .string("idle"))
        #expect(state["offset"]?.doubleValue == index * 260)

        // Unplug: SENSOR absent, and the STATE says so.
        bed.unplug(device: Self.accelPath)
        let gone = try c.readUntil(timeoutSeconds: 20) { $0["class"] == .string("SENSOR") && $0["status"] == .string("absent") }
        #expect(gone.last?["status"] == .string("absent"))
        let absentState = try c.readUntil(timeoutSeconds: 5) { $0.isState }
        #expect(absentState.last?["sensor"] == .string("absent"))
        // Plug it back: ok again.
        let block = fixture.split(separator: "\n\n").map(String.init).first { $0.contains("P: \(Self.accelPath)\n") } ?? ""
        try bed.plug(description: block)
        _ = try c.readUntil(timeoutSeconds: 20) { $0["class"] == .string("SENSOR") && $0["status"] == .string("ok") }

        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit(timeoutSeconds: 10).status == 0)
    }
    /// A bmi160 whose `in_anglvel_scale` is missing: the daemon reads the accelerometer alone and
    /// says why once in its log and in the SENSOR message a watcher gets (docs/SENSORS.md "Values").
    @Test func aGyroscopeWithoutScaleIsSaidInTheSensorMessage() throws {
        let bed = try UmockdevTestbed()
        let fixture = (readTextFile(TestPaths.fixture("umockdev/bmi160.umockdev")) ?? "")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("A: in_anglvel_scale=") }.joined(separator: "\n")
        try bed.add(description: fixture)
        let d = try UmockdevDaemon("umockdev-gyro", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "50", "mode": "polled"],
        ], verbose: true)
        defer { d.kill() }
        let c = try d.client()
        try c.send(#"{"cmd":"watch"}"#)
        let lines = try c.readUntil(timeoutSeconds: 20) { $0["class"] == .string("SENSOR") && $0["status"] == .string("ok") }
        let said = "bmi160 (iio:device0): no gyroscope scale (in_anglvel_x_scale, in_anglvel_scale or scale): "
            + "angular rate not used, accelerometer only"
        #expect(lines.last?["message"] == .string(said))
        d.process.signal(SIGTERM)
        let result = try d.process.waitForExit(timeoutSeconds: 10)
        #expect(result.status == 0)
        #expect(result.standardError.split(separator: "\n").filter { $0.contains(said) }.count == 1,
                "daemon log: \(result.standardError)")
    }
}
