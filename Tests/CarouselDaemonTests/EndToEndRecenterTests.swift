import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `recenter_tilt` survives a reload that does not touch the tilt pipeline's settings, and a
/// reload that does (`[filter]`) starts a fresh pipeline (and so drops the recenter).
@Suite(.serialized) struct EndToEndRecenterTests {
    /// A device held still, rolled 20° about its y axis: gravity `g·(sin 20°, 0, cos 20°)`, so
    /// the estimated roll is ±20° whatever the sign convention (INTERFACES §2 fixes it; the test
    /// only needs its size). 100 Hz for 2 s, replayed in a loop.
    static func steadyRecording() throws -> String {
        let path = TestTemp.path("steady-roll.csv")
        let g = 9.80665, angle = 20 * Double.pi / 180
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<200 {
            text += "\(k * 10_000_000),\(g * sin(angle)),0,\(g * cos(angle)),0,0,0\n"
        }
        try TestTemp.write(text, to: path)
        return path
    }

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
        let recording = try Self.steadyRecording()
        defer { unlink(recording) }
        let daemon = try E2EDaemon("recenter-reload", overrides: [
            "sensor": ["source": "replay", "replay_file": recording, "replay_loop": "yes"],
            "filter": ["method": "accel"],
        ])
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
        try TestTemp.write(E2EDaemon.configText(socketPath: daemon.socketPath, overrides: [
            "sensor": ["source": "replay", "replay_file": recording, "replay_loop": "yes"],
            "filter": ["method": "accel", "lowpass_hz": "4"],
        ]), to: daemon.configPath)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        try waitForSamples(c, 20)
        #expect(abs(abs(try polledRoll(c)) - 20) < 0.5)
        #expect(try daemon.stop() == 0)
    }
}
