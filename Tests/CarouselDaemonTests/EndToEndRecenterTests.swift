import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `recenter_tilt` survives a reload that does not touch the tilt pipeline's settings, and a
/// reload that does (`[filter]`) starts a fresh pipeline (and so drops the recenter).
@Suite(.serialized) struct EndToEndRecenterTests {
    /// Sends `poll` and returns the STATE's roll, degrees.
    func polledRoll(_ c: SocketClient) throws -> Double {
        try c.send(#"{"cmd":"poll"}"#)
        let state = try #require(try c.readUntil { $0.isState }.last)
        return try #require(state["tilt"]?["roll_deg"]?.number)
    }

    /// Waits until `count` SAMPLE lines have arrived (the pipeline has processed them).
    func waitForSamples(_ c: SocketClient, _ count: Int) throws {
        for _ in 0..<count { _ = try c.readUntil { $0["class"] == .string("SAMPLE") } }
    }

    @Test func recenterSurvivesAReloadThatKeepsThePipelineSettings() throws {
        // A device held still at 20° of roll (E2EDaemon.steadyRollRecording), tilt not driving.
        let daemon = try E2EDaemon.steadyRoll("recenter-reload", scrolling: false)
        let recording = try #require(daemon.ownedFiles.first)
        let c = try daemon.client()
        try c.send(#"{"cmd":"samples","enable":true}"#)
        try waitForSamples(c, 20)
        // Accelerometer-only estimate of a steady 20° roll (the low-pass starts in its steady state).
        #expect(abs(abs(try polledRoll(c)) - 20) < 0.5)
        try c.send(#"{"cmd":"recenter_tilt"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("recenter_tilt"))
        try waitForSamples(c, 5)
        #expect(abs(try polledRoll(c)) < 0.5)

        // A reload with the same settings: the pipeline, and so the recenter, are kept.
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        try waitForSamples(c, 20)
        #expect(abs(try polledRoll(c)) < 0.5)

        // A reload that changes [filter]: a new pipeline, the device's 20° shows again.
        var changed = E2EDaemon.steadyRollSensor(recording)
        changed["filter"]?["lowpass_hz"] = "4"
        try TestTemp.write(E2EDaemon.configText(socketPath: daemon.socketPath, overrides: changed), to: daemon.configPath)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        try waitForSamples(c, 20)
        #expect(abs(abs(try polledRoll(c)) - 20) < 0.5)
        #expect(try daemon.stop() == 0)
    }

    /// Nobody has watched: the daemon is not reading the sensor, yet `recenter_tilt` works; it
    /// reads the sensor for the request and recenters on that fresh estimate.
    @Test func recenterBeforeAnyoneWatchedReadsTheSensorOnDemand() throws {
        let daemon = try E2EDaemon.steadyRoll("recenter-first", scrolling: false)
        let c = try daemon.client()
        try c.send(#"{"cmd":"recenter_tilt"}"#)
        let reply = try #require(try c.readUntil { $0["class"] == .string("ACK") || $0["class"] == .string("ERROR") }.last)
        #expect(reply == (try WireJSONParser.parse(#"{"class":"ACK","cmd":"recenter_tilt"}"#)))
        // The steady 20° roll is now neutral.
        try c.send(#"{"cmd":"samples","enable":true}"#)
        try waitForSamples(c, 20)
        #expect(abs(try polledRoll(c)) < 0.5)
        #expect(try daemon.stop() == 0)
    }
}
