import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A sensor that delivers again after a silence (after a resume: the daemon was frozen while
/// devices suspended and resumed, and the buffer was silent meanwhile) through umockdev (the
/// bmc150 fixture, buffered at 62.5 Hz, streamed through its PTY). Watchers get `SENSOR ok`
/// before the first STATE that the new samples move, and that STATE says `sensor: ok`: the
/// system suite's suspend_and_resume found the first STATE with the new tilt saying `stale`.
@Suite(.serialized) struct SensorDeliversAgainTests {
    @Test func aSensorThatDeliversAgainIsOkBeforeTheStateItsSamplesMove() throws {
        let bed = try UmockdevTestbed()
        let fixture = readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? ""
        try bed.add(description: fixture)
        let d = try UmockdevDaemon("delivers-again", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "50", "mode": "buffered"],
            "filter": ["method": "accel", "lowpass_hz": "0"],
            "tilt": ["enabled": "yes", "mode": "position"],
        ])
        defer { d.kill() }
        _ = try d.client()
        let w = try CountingWatcher(socketPath: d.socketPath)
        var timestamp: Int64 = 1_000_000_000
        func roll(_ state: WireJSON?) -> Double? { state?["tilt"]?["roll_deg"]?.doubleValue }
        /// Streams scans at `rollDegrees`, one each 16 ms, until the watcher's last STATE holds it.
        func stream(rollDegrees: Double, _ what: String) throws {
            let deadline = clinux_monotonic_ns() + 20_000_000_000
            while !(w.lastState?["sensor"] == .string("ok") && abs((roll(w.lastState) ?? 99) - rollDegrees) < 1) {
                guard clinux_monotonic_ns() < deadline else {
                    throw TestSupportError("\(what) not seen within 20 s: \(w.report(since: 0))")
                }
                try bed.stream(EndToEndUmockdevTests.scan(rollDegrees: rollDegrees, timestampNanoseconds: timestamp), to: "/dev/iio:device0")
                timestamp += 16_000_000
                try w.drain(timeoutSeconds: 0.016)
            }
        }
        try stream(rollDegrees: 0, "a level STATE with the sensor ok")
        // Silent for 5 periods (80 ms): stale, and the buffer re-enabled with a second to deliver.
        let stales = w.sensorStatuses.count
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while !w.sensorStatuses.dropFirst(stales).contains("stale") {
            guard clinux_monotonic_ns() < deadline else { throw TestSupportError("no SENSOR stale: \(w.report(since: 0))") }
            try w.drain(timeoutSeconds: 0.05)
        }
        // Past the STATE rate limit (1/60 s) since the STATE that came with the stale, as after a
        // resume: the first STATE the new samples move then goes out at once.
        try w.drain(timeoutSeconds: 0.1)
        let mark = w.linesRead
        timestamp += 1_000_000_000
        try stream(rollDegrees: -20, "a STATE at −20° with the sensor ok")
        // From the stale on, in the order the watcher got them: the first STATE whose roll moved
        // (by the new samples) says ok, and a SENSOR ok came before it.
        let lines = try w.client.transcript.dropFirst(mark).map { try WireJSONParser.parse($0) }
        let moved = try #require(lines.firstIndex { $0["class"] == .string("STATE") && abs((roll($0) ?? 0)) >= 1 },
                                 "no STATE with a new roll: \(w.report(since: mark))")
        #expect(lines[moved]["sensor"] == .string("ok"), "\(w.report(since: mark))")
        #expect(lines[..<moved].contains { $0["class"] == .string("SENSOR") && $0["status"] == .string("ok") },
                "\(w.report(since: mark))")
        #expect(!lines[moved...].contains { $0["class"] == .string("STATE") && $0["sensor"] != .string("ok") },
                "\(w.report(since: mark))")
    }
}
