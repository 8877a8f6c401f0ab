import CarouselProtocol
import CarouselTestSupport
import IIOSensors
import Testing
@testable import CarouselDaemon
@testable import CarouselService

/// A sensor that cannot deliver is explained to every watcher and logged without flooding.
struct SensorErrorReportingTests {
    /// The error is already known when the client watches (no change will come to send a
    /// SENSOR): the current SENSOR follows the first STATE.
    @Test func aWatcherOfASensorInErrorGetsTheReason() throws {
        var h = CoreHarness()
        h.core.sensorChanged(status: .error, name: "gone.csv", message: "gone.csv: cannot read (errno 2)", now: h.now)
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        let got = h.read(c).map { $0["class"]?.stringValue ?? "?" }
        #expect(got == ["WATCH", "LAYOUT", "STATE", "SENSOR"])
    }

    @Test func theSensorLineCarriesStatusNameAndMessage() throws {
        var h = CoreHarness()
        h.core.sensorChanged(status: .stale, name: "demo.csv", message: "end of recording: no sample for 50 ms", now: h.now)
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        let last = try #require(h.read(c).last)
        #expect(try last == WireJSONParser.parse(
            #"{"class":"SENSOR","status":"stale","name":"demo.csv","message":"end of recording: no sample for 50 ms"}"#))
    }

    /// Every watcher gets the current SENSOR after its first STATE, whatever the status: a
    /// SENSOR goes out only on a change, so the second watcher of a replaying sensor got none
    /// and could not learn the sensor's name.
    @Test func everyNewWatcherGetsTheCurrentSensor() throws {
        var h = CoreHarness()
        h.core.sensorChanged(status: .replay, name: "demo.csv", message: nil, now: h.now)
        let first = h.connect(), second = h.connect()
        _ = h.read(first)
        _ = h.read(second)
        let sensor = try WireJSONParser.parse(#"{"class":"SENSOR","status":"replay","name":"demo.csv"}"#)
        for c in [first, second] {
            h.send(#"{"cmd":"watch"}"#, from: c)
            let got = h.read(c)
            #expect(got.map { $0["class"]?.stringValue ?? "?" } == ["WATCH", "LAYOUT", "STATE", "SENSOR"])
            #expect(got.last == sensor)
        }
    }
}

/// `RepeatedLogLimiter` on a scripted clock: the first line, then one per 10 s with the count.
struct RepeatedLogLimiterTests {
    @Test func identicalLinesAreHeldBackAndCounted() {
        let clock = ScriptedClock()
        let limiter = RepeatedLogLimiter(intervalSeconds: 10, clock: clock)
        let line = "sensor gone.csv: gone.csv: cannot read (errno 2)"
        #expect(limiter.admit(.error, line) == line)
        // Retried 30 times a second for 9.9 s: all held back.
        for _ in 0..<297 {
            clock.advance(milliseconds: 33)
            #expect(limiter.admit(.error, line) == nil)
        }
        clock.advance(milliseconds: 199)  // 10.000 s after the first
        #expect(limiter.admit(.error, line) == line + " (suppressed 297 similar messages)")
        // Another line (or another level of the same text) is its own run.
        #expect(limiter.admit(.warning, line) == line)
        #expect(limiter.admit(.error, "another") == "another")
        clock.advance(milliseconds: 1_000)
        #expect(limiter.admit(.error, line) == nil)
        clock.advance(milliseconds: 9_000)
        #expect(limiter.admit(.error, line) == line + " (suppressed 1 similar message)")
        // Quiet for the interval: written again with nothing to report.
        clock.advance(milliseconds: 10_000)
        #expect(limiter.admit(.error, line) == line)
    }

    @Test func theLimitedSinkKeepsTheLevelPrefix() {
        let clock = ScriptedClock()
        let box = LineBox()
        let logger = Logger(threshold: .info, format: .journal, sink: { box.append($0) })
        let sink = logger.limited(by: RepeatedLogLimiter(intervalSeconds: 10, clock: clock))
        sink(.warning, "w")
        sink(.warning, "w")
        clock.advance(milliseconds: 10_000)
        sink(.warning, "w")
        sink(.debug, "below the threshold")
        #expect(box.lines == ["<4>w\n", "<4>w (suppressed 1 similar message)\n"])
    }
}

/// Collects a logger's lines (the sink must be Sendable; tests run it on one thread).
final class LineBox: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}
