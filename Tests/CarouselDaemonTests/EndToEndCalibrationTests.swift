import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `[calibration] file` reaches the pipeline (docs/CONFIGURATION.md "[calibration]"): the built carouseld replays a
/// recording of a device lying flat and still, and reports its tilt relative to the calibrated
/// neutral attitude.
///
/// Hand derivation: flat means up u = (0, 0, 1). A neutral roll a = 10° is the up vector
/// n = (−sin a, 0, cos a) (docs/FUSION.md "1. Conventions"). The mapper rotates by the shortest arc taking n to
/// (0, 0, 1), a rotation about +y by a, which takes u to (sin a, 0, cos a); its roll is
/// atan2(−sin a, cos a) = −a. So STATE reports roll −10°, pitch 0°, instead of 0° and 0°.
@Suite(.serialized) struct EndToEndCalibrationTests {
    /// A native recording (docs/CLI.md "record"): 2 s at 100 Hz, flat and still, gyro zero.
    static func writeFlatRecording() throws -> String {
        let path = TestTemp.path("flat.csv")
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for i in 0..<200 { text += "\(Int64(i) * 10_000_000),0,0,9.80665,0,0,0\n" }
        try TestTemp.write(text, to: path)
        return path
    }

    static func calibrationText(sensor: String, path: String, neutralRollDeg: Double) -> String {
        """
        [calibration]
        sensor = \(sensor)
        sensor_path = \(path)
        gyro_bias_rad_s = 0 0 0
        accel_offset_m_s2 = 0 0 0
        accel_scale = 1 1 1
        neutral_roll_deg = \(neutralRollDeg)
        neutral_pitch_deg = 0
        created = 2026-11-29T12:00:00Z
        samples = 200

        """
    }

    static func replayOverrides(recording: String, calibration: String) -> [String: [String: String]] {
        ["sensor": ["source": "replay", "replay_file": recording, "replay_loop": "yes", "replay_speed": "1"],
         "calibration": ["file": calibration]]
    }

    /// Warning lines of a carouseld log, journal (`<4>`) or plain (`carouseld: warning:`) format.
    static func warnings(_ log: String) -> Int {
        log.split(separator: "\n").filter { $0.hasPrefix("<4>") || $0.contains(": warning: ") }.count
    }

    static func status(_ c: SocketClient) throws -> WireJSON {
        try c.send(#"{"cmd":"status"}"#)
        return try #require(try c.readUntil { $0["class"] == .string("STATUS") }.last)
    }

    /// Polls (reading the watch stream in between) until a STATE whose roll is within 0.05° of
    /// `rollDeg`; fails after 5 s. Polling, because an unchanged tilt publishes nothing.
    static func state(_ c: SocketClient, rollNear rollDeg: Double) throws -> WireJSON {
        let deadline = clinux_monotonic_ns() + 5_000_000_000
        while clinux_monotonic_ns() < deadline {
            try c.send(#"{"cmd":"poll"}"#)
            let lines = try c.readUntil { $0["class"] == .string("STATE") }
            if let state = lines.last, let roll = state["tilt"]?["roll_deg"]?.doubleValue, abs(roll - rollDeg) < 0.05 {
                return state
            }
            _ = try? c.readLine(timeoutSeconds: 0.1)  // the next sample batch
        }
        throw TestSupportError("no STATE with roll \(rollDeg)° within 5 s; last lines: \(c.transcript.suffix(3))")
    }

    /// A daemon replaying a flat recording with a calibration made for it (neutral roll 10°);
    /// both files are removed with the daemon.
    static func calibratedDaemon(_ name: String) throws -> (daemon: E2EDaemon, recording: String, calibration: String) {
        let recording = try writeFlatRecording()
        let calibration = TestTemp.path(name + "-calibration.conf")
        let sensorName = String(recording.split(separator: "/").last ?? "")
        do {
            try TestTemp.write(calibrationText(sensor: sensorName, path: recording, neutralRollDeg: 10), to: calibration)
            let daemon = try E2EDaemon(name, overrides: replayOverrides(recording: recording, calibration: calibration))
            daemon.ownedFiles += [recording, calibration]
            return (daemon, recording, calibration)
        } catch {
            unlink(recording)
            unlink(calibration)
            throw error
        }
    }

    @Test func neutralRollShiftsTheTiltAndReloadKeepsItOverAMalformedFile() throws {
        let (daemon, recording, calibration) = try Self.calibratedDaemon("calibrated")
        let sensorName = String(recording.split(separator: "/").last ?? "")
        let c = try daemon.client()

        let status = try Self.status(c)
        #expect(status["calibration"]?["file"] == .string(calibration))
        #expect(status["calibration"]?["applied"] == .bool(true))
        #expect(status["sensor_name"] == .string(sensorName))
        #expect(status["sensor_path"] == .string(recording))

        try c.send(#"{"cmd":"watch","max_rate_hz":30}"#)
        let shifted = try Self.state(c, rollNear: -10)
        #expect(abs(shifted["tilt"]?["pitch_deg"]?.doubleValue ?? 99) < 0.05)

        // A malformed file on reload: a warning naming file:line, the previous calibration stays.
        try TestTemp.write("[calibration]\nsensor = \(sensorName)\ngyro_bias_rad_s = 1 2\n", to: calibration)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        #expect(try Self.status(c)["calibration"]?["applied"] == .bool(true))
        #expect(daemon.process.log.contains("\(calibration):3: [calibration] gyro_bias_rad_s: expected 3 numbers"))
        _ = try Self.state(c, rollNear: -10)

        // A missing file: no calibration, quietly; the tilt is relative to level again.
        unlink(calibration)
        let warningsBefore = Self.warnings(daemon.process.log)
        #expect(warningsBefore >= 1)  // the malformed file's
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        #expect(try Self.status(c)["calibration"]?["applied"] == .bool(false))
        _ = try Self.state(c, rollNear: 0)
        #expect(Self.warnings(daemon.process.log) == warningsBefore)
        #expect(try daemon.stop() == 0)
    }

    /// A calibration file replaced by a FIFO: the reload's open waited for a writer, so the
    /// daemon's loop stopped and nothing was answered again. Now it is refused unread, with a
    /// warning, and the previous calibration stays.
    @Test func aCalibrationFileThatIsAFIFOIsRefusedUnread() throws {
        let (daemon, _, calibration) = try Self.calibratedDaemon("calibration-fifo")
        let c = try daemon.client()
        #expect(try Self.status(c)["calibration"]?["applied"] == .bool(true))
        unlink(calibration)
        #expect(mkfifo(calibration, 0o600) == 0)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readUntil { $0["class"] == .string("ACK") }.last?["cmd"] == .string("reload"))
        #expect(try Self.status(c)["calibration"]?["applied"] == .bool(true))
        #expect(daemon.process.log.contains("\(calibration): cannot be read: not a regular file but a FIFO"))
        #expect(try daemon.stop() == 0)
    }

    /// A file that is no calibration at start-up: the warning says none is applied (there is no
    /// previous one to keep; a newcomer's trial with `file = /etc/passwd` read "keeping the
    /// previous one"), and STATUS agrees.
    @Test func aBadCalibrationAtStartUpSaysNoneIsApplied() throws {
        let recording = try Self.writeFlatRecording()
        defer { unlink(recording) }
        let calibration = TestTemp.path("not-a-calibration.conf")
        try TestTemp.write("root:x:0:0:root:/root:/bin/bash\n", to: calibration)
        defer { unlink(calibration) }
        let daemon = try E2EDaemon("calibration-bad-at-start", overrides: Self.replayOverrides(recording: recording, calibration: calibration))
        let c = try daemon.client()
        #expect(try Self.status(c)["calibration"]?["applied"] == .bool(false))
        let lines = daemon.process.log.split(separator: "\n").filter { $0.contains("calibration not loaded") }
        #expect(lines.count == 1 && lines[0].hasSuffix("calibration not loaded, none applied: \(calibration):1: key outside the [calibration] section"), "\(lines)")
        #expect(try daemon.stop() == 0)
    }

    @Test func aCalibrationForAnotherSensorIsIgnoredWithAWarning() throws {
        let recording = try Self.writeFlatRecording()
        defer { unlink(recording) }
        let calibration = TestTemp.path("foreign-calibration.conf")
        defer { unlink(calibration) }
        try TestTemp.write(Self.calibrationText(sensor: "bmi160", path: "/sys/bus/iio/devices/iio:device0",
                                                neutralRollDeg: 10), to: calibration)
        let daemon = try E2EDaemon("foreign", overrides: Self.replayOverrides(recording: recording, calibration: calibration))
        let c = try daemon.client()
        let status = try Self.status(c)
        #expect(status["calibration"]?["file"] == .string(calibration))
        #expect(status["calibration"]?["applied"] == .bool(false))
        try c.send(#"{"cmd":"watch","max_rate_hz":30}"#)
        _ = try Self.state(c, rollNear: 0)
        #expect(daemon.process.log.contains("was made for sensor bmi160 (/sys/bus/iio/devices/iio:device0)"))
        #expect(try daemon.stop() == 0)
    }

    /// `carouselctl calibrate --replay` names the recording as the daemon replaying it does,
    /// however each was given the path: here the daemon through `/tmp/../tmp/…` (a
    /// configuration's `../data/…`) and carouselctl through `/tmp/./…` (a path typed in a
    /// checkout). Both write the canonical path, so the daemon applies the calibration; the
    /// recording is flat and still, so the calibration's neutral tilt is level and the tilt stays 0°.
    @Test func aCalibrationFromTheReplayedRecordingApplies() throws {
        let recording = try Self.writeFlatRecording()
        defer { unlink(recording) }
        #expect(recording.hasPrefix("/tmp/"), "the test spells the recording's path through /tmp")
        let calibration = TestTemp.path("replay-calibration.conf")
        defer { unlink(calibration) }
        // A configuration of its own, so that the reload after writing reaches no other daemon.
        let settings = TestTemp.path("replay-calibrate.conf")
        defer { unlink(settings) }
        try TestTemp.write("[server]\nsocket = \(TestTemp.path("none.sock"))\n", to: settings)
        let calibrate = try DaemonProcess(executable: TestPaths.product("carouselctl"),
                                          arguments: ["calibrate", "--replay", "/tmp/./" + recording.dropFirst(5),
                                                      "--output", calibration, "--config", settings, "--yes"],
                                          logPath: TestTemp.path("replay-calibrate.log"))
        #expect(try calibrate.wait() == 0, "carouselctl calibrate: \(calibrate.log)")
        let written = readTextFile(calibration) ?? ""
        #expect(written.contains("\nsensor_path = \(recording)\n"), "\(written)")
        let daemon = try E2EDaemon("replay-calibrated", overrides: Self.replayOverrides(
            recording: "/tmp/../tmp/" + recording.dropFirst(5), calibration: calibration))
        let c = try daemon.client()
        let status = try Self.status(c)
        #expect(status["sensor_path"] == .string(recording))
        #expect(status["calibration"]?["applied"] == .bool(true), "log: \(daemon.process.log)")
        #expect(!daemon.process.log.contains("was made for sensor"))
        #expect(try daemon.stop() == 0)
    }
}
