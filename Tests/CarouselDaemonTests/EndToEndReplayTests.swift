import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing

/// A recording replayed by the real daemon in real time: what only wall time can check. The
/// pipeline's numbers (fusion, tilt mapping, paging, INDEX) are checked byte for byte on a
/// scripted clock by `GoldenReplayTests`; here the replay's timerfd paces the samples on
/// CLOCK_MONOTONIC at `replay_speed`, and the end of a recording without `replay_loop`
/// reaches a watcher as `SENSOR stale`, after which tilt no longer drives the carousel.
@Suite(.serialized) struct EndToEndReplayTests {
    /// `steadyRollRecording()` (2 s at 100 Hz, rolled 20°) at 4× speed: 0.5 s of samples, then
    /// stale 5 periods (5 · 10 ms / 4 = 12.5 ms, raised to the 25 ms of the 5 ms wake-up floor)
    /// after the last one.
    @Test func aRecordingPlaysInRealTimeThenGoesStaleAndTiltStopsDriving() throws {
        let daemon = try E2EDaemon.steadyRoll("replay-end", scrolling: true, overrides: [
            "sensor": ["replay_loop": "no", "replay_speed": "4"],
        ])
        let c = try daemon.client()
        let started = clinux_monotonic_ns()
        try c.send(#"{"cmd":"watch","max_rate_hz":30}"#)
        #expect(try c.readJSON()["class"] == .string("WATCH"))
        #expect(try c.readJSON()["class"] == .string("LAYOUT"))
        #expect(try c.readJSON().isState)

        var states: [WireJSON] = []
        var stale: (line: WireJSON, at: Int64)?
        while stale == nil, clinux_monotonic_ns() - started < 5_000_000_000 {
            guard let line = try c.readLine(timeoutSeconds: 0.5), let v = try? WireJSONParser.parse(line) else { continue }
            if v.isState { states.append(v) }
            if v["class"] == .string("SENSOR"), v["status"] == .string("stale") { stale = (v, clinux_monotonic_ns()) }
        }
        let end = try #require(stale, "no SENSOR stale within 5 s of the recording's end")
        #expect(end.line["message"]?.stringValue?.hasPrefix("end of recording: no sample for ") == true)
        // Paced, not dumped: the last sample is due 2 s / 4 = 0.5 s after the start.
        let elapsed = Double(end.at - started) / 1e9
        #expect(elapsed >= 0.5 && elapsed < 3, "stale after \(elapsed) s")
        // While it played, the 20° roll drove the carousel.
        let rolls = states.compactMap { $0["tilt"]?["roll_deg"]?.doubleValue }
        #expect(rolls.contains { abs(abs($0) - 20) < 0.5 })
        #expect(states.contains { $0["phase"] == .string("tilting") })

        // After stale: no estimate, and the carousel settles on an item instead of scrolling on.
        var last: WireJSON?
        let settleBy = clinux_monotonic_ns() + 3_000_000_000
        while clinux_monotonic_ns() < settleBy {
            guard let line = try c.readLine(timeoutSeconds: 0.5), let v = try? WireJSONParser.parse(line), v.isState else {
                if last?["phase"] == .string("idle") { break }
                continue
            }
            last = v
        }
        let rest = try #require(last, "no STATE after the sensor went stale")
        #expect(rest["sensor"] == .string("stale"))
        #expect(rest["tilt"]?["roll_deg"] == .null)
        #expect(rest["phase"] == .string("idle"))
        #expect(rest["velocity"] == .number(0))
        let position = try #require(rest["position"]?.doubleValue)
        #expect(position == position.rounded())  // centered on an item
        #expect(try daemon.stop() == 0)
    }
}
