import CarouselProtocol
import CarouselTestSupport
import CLinux
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
        #expect(try abs(abs(polledRoll(c)) - 20) < 0.5)
        try c.send(#"{"cmd":"recenter_tilt"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("recenter_tilt"))
        try waitForSamples(c, 5)
        #expect(try abs(polledRoll(c)) < 0.5)

        // A reload with the same settings: the pipeline, and so the recenter, are kept.
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        try waitForSamples(c, 20)
        #expect(try abs(polledRoll(c)) < 0.5)

        // A reload that changes [filter]: a new pipeline, the device's 20° shows again.
        var changed = E2EDaemon.steadyRollSensor(recording)
        changed["filter"]?["lowpass_hz"] = "4"
        try TestTemp.write(E2EDaemon.configText(socketPath: daemon.socketPath, overrides: changed), to: daemon.configPath)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        try waitForSamples(c, 20)
        #expect(try abs(abs(polledRoll(c)) - 20) < 0.5)
        #expect(try daemon.stop() == 0)
    }

    /// Nobody has watched: the daemon is not reading the sensor, yet `recenter_tilt` works; it
    /// reads the sensor for the request and recenters on that fresh estimate.
    @Test func recenterBeforeAnyoneWatchedReadsTheSensorOnDemand() throws {
        let daemon = try E2EDaemon.steadyRoll("recenter-first", scrolling: false)
        let c = try daemon.client()
        try c.send(#"{"cmd":"recenter_tilt"}"#)
        let reply = try #require(try c.readUntil { $0["class"] == .string("ACK") || $0["class"] == .string("ERROR") }.last)
        #expect(try reply == WireJSONParser.parse(#"{"class":"ACK","cmd":"recenter_tilt"}"#))
        // The steady 20° roll is now neutral.
        try c.send(#"{"cmd":"samples","enable":true}"#)
        try waitForSamples(c, 20)
        #expect(try abs(polledRoll(c)) < 0.5)
        #expect(try daemon.stop() == 0)
    }

    /// While a `recenter_tilt` waits for an estimate, the requests after it wait too, so the
    /// daemon does not read the connection: what the client sends meanwhile stays in its socket,
    /// whose full buffer blocks the client, instead of piling up in the daemon's memory (a
    /// client writing as fast as it can got 500 MB into it within the 2 s wait). Once the wait
    /// is over, every request is answered in order.
    @Test func requestsSentWhileARecenterWaitsStayInTheSocket() throws {
        // A device in free fall (zero acceleration and rotation): the replay delivers samples
        // (status `replay`) but no attitude comes of them, so the request waits the full 2 s.
        let recording = TestTemp.path("free-fall.csv")
        try TestTemp.write("timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
            + (0..<100).map { "\($0 * 10_000_000),0,0,0,0,0,0\n" }.joined(), to: recording)
        defer { unlink(recording) }
        let daemon = try E2EDaemon("recenter-flood", overrides: ["sensor": ["source": "replay", "replay_file": recording,
                                                                            "replay_loop": "yes"]])
        let c = try daemon.client()
        try c.send(#"{"cmd":"recenter_tilt"}"#)
        // 8 MiB of polls, 1 KiB a line, written without blocking until the socket has taken
        // nothing for 300 ms.
        let line = Array((#"{"cmd":"poll"}"# + String(repeating: " ", count: 1024 - 15) + "\n").utf8)
        let flood = [[UInt8]](repeating: line, count: 8192).flatMap { $0 }
        #expect(fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK) == 0)
        var sent = 0
        while sent < flood.count {
            let n = flood[sent...].withUnsafeBytes { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { break }
            // Full: wait until the socket takes more, or give up after 300 ms without room.
            var writable = pollfd(fd: c.fd, events: Int16(POLLOUT), revents: 0)
            if poll(&writable, 1, 300) <= 0 { break }
        }
        // What fits in the socket's buffers and one 64 KiB read of the daemon's, not the 8 MiB.
        #expect(sent < 1 << 20, "the daemon took \(sent) bytes while the recenter waited")
        // Finish the line that was cut (blocking: the daemon reads again after the wait).
        #expect(fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) & ~O_NONBLOCK) == 0)
        let polls = (sent + line.count - 1) / line.count
        try c.sendRaw(Array(flood[sent..<(polls * line.count)]))
        let name = try #require(recording.split(separator: "/").last)
        let refused = try c.readJSON()
        #expect(try refused == WireJSONParser.parse(#"{"class":"ERROR","code":"unavailable","message":"no tilt estimate: "#
            + #"the sensor delivered no sample within 2 s (sensor replay: replaying \#(name) at 1.0× speed, looping)","#
            + #""cmd":"recenter_tilt"}"#))
        for k in 0..<polls {
            let reply = try c.readJSON()
            guard reply.isState else { Issue.record("reply \(k + 1) of \(polls) is not a STATE: \(reply)"); break }
        }
        try c.send(#"{"cmd":"status"}"#)
        #expect(try c.readJSON()["class"] == .string("STATUS"))
        #expect(try daemon.stop() == 0)
    }
}
