#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
import MotionFusion
@testable import CarouselCommandLine

/// The client commands (`status`, `watch`, `scroll-to`, `set-count`, `recenter`, `reload`) and
/// `calibrate` through the daemon, against `FakeDaemon` (a stand-in that encodes and decodes with
/// CarouselProtocol, so the bytes are the real daemon's).
@Suite(.serialized) struct ClientCommandTests {
    @Test(arguments: ["status", "watch", "scroll-to", "set-count", "recenter", "reload"])
    func helpPrintsUsage(command: String) {
        let run = runCtl([command, "--help"])
        #expect(run.status == .ok)
        #expect(run.out.hasPrefix("Usage: carouselctl \(command) [OPTIONS]"))
        #expect(run.out.contains("--socket PATH") && run.out.contains("Exit status:"))
    }

    @Test(arguments: [
        (["scroll-to"], "missing argument INDEX"),
        (["scroll-to", "two"], "INDEX 'two' is not an integer"),
        (["scroll-to", "1", "2"], "unexpected argument '2'"),
        (["scroll-to", "1", "--animated"], "unknown option '--animated'"),
        (["set-count"], "missing argument N"),
        (["set-count", "-1"], "N '-1' is not a non-negative integer"),
        (["set-count", "2.5"], "N '2.5' is not a non-negative integer"),
        (["watch", "--rate", "fast"], "--rate: 'fast' is not a number"),
        (["watch", "--rate", "0"], "outside"),
        (["watch", "--count", "0"], "carouselctl: --count: must be at least 1, got 0\n"),
        (["status", "--bogus"], "unknown option '--bogus'"),
        (["status", "--json=yes"], "takes no value"),
        (["recenter", "now"], "unexpected argument 'now'"),
        (["reload", "-x"], "unknown option '-x'"),
    ] as [([String], String)])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) {
        let run = runCtl(arguments + ["--socket", "/tmp/carouselctl-never.sock"])
        #expect(run.status == .usage)
        #expect(run.err.contains(message), "stderr: \(run.err)")
    }

    @Test(arguments: [["status"], ["watch"], ["scroll-to", "3"], ["set-count", "5"], ["recenter"], ["reload"]])
    func noDaemonIs69NamingTheSocket(arguments: [String]) {
        let dir = makeTempDirectory("nodaemon")
        let run = runCtl(arguments + ["--socket", dir + "/carouseld.sock"])
        #expect(run.status == .unavailable)
        #expect(run.err.contains("carouseld is not running (cannot connect to \(dir)/carouseld.sock"), "stderr: \(run.err)")
    }

    /// A path that exists but is not a socket (the demo's folder instead of the socket in it, a
    /// file) is refused by connect(2) as "connection refused", as a socket nobody listens on:
    /// the message says what the path is instead of "not running". An empty path is a usage error.
    @Test func aSocketPathThatIsNoSocketIsNamedAsWhatItIs() {
        let dir = makeTempDirectory("notasocket")
        writeFile(dir + "/carouseld.conf", "[server]\n")
        for (path, kind) in [(dir, "a directory"), (dir + "/carouseld.conf", "a regular file")] {
            let run = runCtl(["status", "--socket", path])
            #expect(run.status == .unavailable)
            #expect(run.err == "carouselctl: cannot connect to \(path): it is \(kind), not a socket; give carouseld's socket "
                    + "with --socket PATH (scripts/demo prints it; the installed daemon's is /run/carouseld/carouseld.sock)\n",
                    "stderr: \(run.err)")
        }
        let empty = runCtl(["status", "--socket", ""])
        #expect(empty.status == .usage)
        #expect(empty.err == "carouselctl: the socket path is empty: give carouseld's socket with --socket PATH\n")
    }

    @Test func socketDefaultsToTheConfigs() {
        let dir = makeTempDirectory("cfgsock")
        let run = runCtl(["status", "--config", writeTestConfig(in: dir, socket: dir + "/from-config.sock")])
        #expect(run.status == .unavailable)
        #expect(run.err.contains(dir + "/from-config.sock"))
    }

    @Test func statusText() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        let run = runCtl(["status", "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out == """
        carouseld 9.9.9-fake (protocol 1.2) on \(daemon.socketPath)
          uptime:       2 min
          config:       /etc/carouseld/carouseld.conf
          sensor:       replay, 100 Hz
          clients:      2 (1 watching)
          calibration:  /var/lib/carouseld/calibration.conf (applied)
          carousel:     item 3 of 20, position 3.000, idle
          tilt:         roll -12.3°, pitch 1.5° (enabled)

        """)
        #expect(daemon.requests == [.status, .poll])
    }

    @Test func statusJSONHoldsTheProtocolObjects() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        let run = runCtl(["status", "--json", "--socket", daemon.socketPath])
        #expect(run.status == .ok)
        let value = try WireJSONParser.parse(run.out.split(separator: "\n")[0].utf8)
        #expect(value["status"]?["class"]?.stringValue == "STATUS")
        #expect(value["status"]?["sample_rate_hz"]?.doubleValue == 100)
        #expect(value["state"]?["class"]?.stringValue == "STATE")
        #expect(value["state"]?["tilt"]?["roll_deg"]?.doubleValue == -12.34)
    }

    @Test func watchPrintsCompactLinesAndStopsAfterCount() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        let run = runCtl(["watch", "--count", "3", "--rate", "20", "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines == [
            "#10      index 3/20     position 3.000     idle             roll -12.3°   pitch 1.5°    sensor replay",
            "#11      index 3/20     position 3.250     tilting          roll -12.3°   pitch 1.5°    sensor replay",
            "sensor stale bmi160: no sample for 50 ms",
            "#13      index 4/20     position 3.750     snapping         roll -12.3°   pitch 1.5°    sensor replay",
        ])
        #expect(daemon.requests == [.watch(WatchRequest(enable: true, items: false, maxRateHz: 20, orientation: true))])
    }

    @Test func watchJSONPassesObjectsThrough() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        let run = runCtl(["watch", "--json", "--items", "-n", "4", "--socket", daemon.socketPath])
        #expect(run.status == .ok)
        let classes = try run.out.split(separator: "\n").map { try WireJSONParser.parse($0.utf8)["class"]?.stringValue ?? "" }
        #expect(classes == ["WATCH", "STATE", "STATE", "SENSOR", "STATE", "INDEX", "STATE"])
        #expect(daemon.requests == [.watch(WatchRequest(enable: true, items: true, maxRateHz: nil, orientation: true))])
    }

    /// A program on the socket that is not carouseld (or a sensor whose firmware names it with
    /// an escape sequence): `status` trapped converting an uptime of -1e308 s to Int64, and
    /// `status` and `watch` wrote its strings raw, so `ESC ]0;…` retitled and `ESC [2J` cleared
    /// the operator's terminal. Control characters are now shown as `\xNN`, and numbers out of
    /// any sensible range as the numbers they are.
    @Test func aHostilePeerCannotCrashOrDriveTheTerminal() throws {
        let state = #"{"class":"STATE","seq":1,"time_ns":-1,"index":1e300,"position":1e308,"offset":null,"velocity":1e308,"#
            + #""phase":"\u001b[31mred","count":-5,"tilt":{"roll_deg":1e308,"pitch_deg":-1e308,"enabled":3},"sensor":"ok\u009b2J"}"#
        let status = #"{"class":"STATUS","release":"\u001b]0;pwned\u0007","uptime_s":-1e308,"sensor":"ok","sensor_name":"\u001b[2J","#
            + #""sample_rate_hz":1e308,"clients":1e300,"watchers":-1,"config_path":"\u007f","calibration":{"file":"\r","applied":"yes"},"orientation":"\n"}"#
        let sensor = #"{"class":"SENSOR","status":"ok","name":"hid\u001b[8m","message":"\u001b[1A"}"#
        let daemon = try FakeDaemon { request in
            switch request {
            case .watch: return [ServerMessage.watch(enable: true, items: false, maxRateHz: 60).encodedLine(),
                                 Array((state + "\n" + sensor + "\n" + state + "\n").utf8)]
            case .status: return [Array((status + "\n").utf8)]
            case .poll: return [Array((state + "\n").utf8)]
            default: return [ServerMessage.error(ProtocolError(.badField, "\u{1B}[2Jno", cmd: request.cmd)).encodedLine()]
            }
        }
        defer { daemon.stop() }
        let shown = runCtl(["status", "--socket", daemon.socketPath])
        #expect(shown.status == .ok, "stderr: \(shown.err)")
        #expect(shown.out == #"""
            carouseld \x1b]0;pwned\x07 (protocol 1.2) on \#(daemon.socketPath)
              uptime:       in the future (clock skew?)
              config:       \x7f
              sensor:       ok (\x1b[2J), 1e+308 Hz
              clients:      ? (-1 watching)
              calibration:  \x0d (not applied)
              carousel:     item none of -5, position 1e+308, \x1b[31mred
              tilt:         roll 1e+308°, pitch -1e+308° (enabled)
              orientation:  \x0a

            """#)
        let watched = runCtl(["watch", "-n", "2", "--socket", daemon.socketPath])
        #expect(watched.status == .ok, "stderr: \(watched.err)")
        let line = #"#1       index -/-5     position 1e+308    \x1b[31mred      roll 1e+308°  pitch -1e+308° sensor ok\x9b2J"#
        #expect(watched.out.split(separator: "\n").map(String.init) == [line, #"sensor ok hid\x1b[8m: \x1b[1A"#, line])
        let refused = runCtl(["scroll-to", "1", "--socket", daemon.socketPath])
        #expect(refused.err == #"carouselctl: carouseld refused 'scroll_to': bad_field: \x1b[2Jno"# + "\n")
        #expect(!(shown.out + watched.out + refused.err).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
    }

    @Test func watchItemsPrintsOneLinePerItemUnderEachState() throws {
        let item = #"{"index":2,"instance":0,"center":[640,400],"size":[480,640],"scale":[0.84,0.84],"alpha":0.92,"zIndex":-82.25,"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}"#
        let state = #"{"class":"STATE","seq":5,"time_ns":1,"index":2,"position":2,"offset":1040,"velocity":0,"phase":"idle","count":20,"tilt":{"roll_deg":0,"pitch_deg":0,"enabled":true},"sensor":"replay","items":["#
            + item + "]}\n"
        let daemon = try FakeDaemon { request in
            guard case let .watch(w) = request else { return [ServerMessage.ack(cmd: request.cmd).encodedLine()] }
            return [ServerMessage.watch(enable: w.enable, items: w.items, maxRateHz: 60).encodedLine(), Array(state.utf8)]
        }
        defer { daemon.stop() }
        let run = runCtl(["watch", "--items", "-n", "1", "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.split(separator: "\n").map(String.init) == [
            "#5       index 2/20     position 2.000     idle             roll 0.0°     pitch 0.0°    sensor replay",
            "  item 2    center 640.0,400.0 scale 0.840 alpha 0.920 z -82.3",
        ])
        #expect(daemon.requests == [.watch(WatchRequest(enable: true, items: true, maxRateHz: nil, orientation: true))])
    }

    @Test func watchPrintsOrientationChangesAsTheirOwnLines() throws {
        let state = #"{"class":"STATE","seq":5,"time_ns":1,"index":2,"position":2,"offset":1040,"velocity":0,"phase":"idle","count":20,"tilt":{"roll_deg":0,"pitch_deg":0,"enabled":true},"sensor":"replay"}"# + "\n"
        let daemon = try FakeDaemon { request in
            guard case let .watch(w) = request else { return [ServerMessage.ack(cmd: request.cmd).encodedLine()] }
            return [ServerMessage.watch(enable: w.enable, items: w.items, maxRateHz: 60, orientation: w.orientation).encodedLine(),
                    Array(state.utf8), ServerMessage.orientation("left-up").encodedLine(), Array(state.utf8)]
        }
        defer { daemon.stop() }
        let run = runCtl(["watch", "-n", "2", "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.split(separator: "\n").map(String.init) == [
            "#5       index 2/20     position 2.000     idle             roll 0.0°     pitch 0.0°    sensor replay",
            "orientation left-up",
            "#5       index 2/20     position 2.000     idle             roll 0.0°     pitch 0.0°    sensor replay",
        ])
        let only = runCtl(["watch", "--orientation", "-n", "1", "--socket", daemon.socketPath])
        #expect(only.out == "left-up\n", "stderr: \(only.err)")
    }

    @Test func controlCommandsSendTheirRequests() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        for arguments in [["scroll-to", "7"], ["scroll-to", "2", "--no-animation"], ["set-count", "12"], ["recenter"], ["reload"]] {
            let run = runCtl(arguments + ["--socket", daemon.socketPath])
            #expect(run.status == .ok, "\(arguments): \(run.err)")
            #expect(run.out.isEmpty)
        }
        #expect(daemon.requests == [.scrollTo(index: 7, animated: true), .scrollTo(index: 2, animated: false),
                                    .setCount(12), .recenterTilt, .reload])
    }

    @Test func daemonErrorsMapToExitCodes() throws {
        let daemon = try FakeDaemon(respond: { request in
            switch request {
            case .scrollTo: return [ServerMessage.error(ProtocolError(.notAllowed, "uid 65534 may not control", cmd: "scroll_to")).encodedLine()]
            case .setCount: return [ServerMessage.error(ProtocolError(.badField, "count: 2000000 is above 1000000", cmd: "set_count")).encodedLine()]
            case .recenterTilt: return [ServerMessage.error(ProtocolError(.unavailable, "no sensor", cmd: "recenter_tilt")).encodedLine()]
            case .reload: return [ServerMessage.error(ProtocolError(.unavailable, "/etc/carouseld/carouseld.conf:12: [tilt] max_deg: 0 is below 1", cmd: "reload")).encodedLine()]
            default: return FakeDaemon.standard(request)
            }
        })
        defer { daemon.stop() }
        let denied = runCtl(["scroll-to", "1", "--socket", daemon.socketPath])
        #expect(denied.status == .noPermission)
        #expect(denied.err.contains("not_allowed: uid 65534 may not control"))
        let bad = runCtl(["set-count", "2000000", "--socket", daemon.socketPath])
        #expect(bad.status == .dataError)
        #expect(bad.err.contains("bad_field: count: 2000000 is above 1000000"))
        #expect(runCtl(["recenter", "--socket", daemon.socketPath]).status == .unavailable)
        let reload = runCtl(["reload", "--socket", daemon.socketPath])
        #expect(reload.status == .configuration)
        #expect(reload.err.contains("carouseld.conf:12: [tilt] max_deg"))
    }

    /// `calibrate --socket` streams `samples` from the daemon, computes, writes, then sends
    /// `reload` on the same connection.
    @Test func calibrateThroughTheDaemon() throws {
        // 150 still samples with a known bias, then the stream ends (the capture is time-bound).
        let samples: [[UInt8]] = (0..<150).map { i in
            ServerMessage.sample(timeNanoseconds: Int64(i) * 10_000_000, accel: [0, 9.80665 * 0.5, 9.80665 * 0.8660254037844386],
                                 gyro: [0.002, -0.001, 0.0005]).encodedLine()
        }
        let daemon = try FakeDaemon(respond: { request in
            switch request {
            case .samples(enable: true): return [ServerMessage.ack(cmd: "samples").encodedLine()] + samples
            case .samples(enable: false): return []
            case .sensors:
                return [ServerMessage.sensors(json: #"[{"name":"bmi160","label":null,"path":"/sys/bus/iio/devices/iio:device0","dev":"/dev/iio:device0","type":"imu","channels":[],"mount_matrix":[[1,0,0],[0,1,0],[0,0,1]],"mount_matrix_source":"identity","sampling_frequency_hz":100,"sampling_frequency_available_hz":[100],"buffered":true,"triggers":[],"warnings":[]}]"#).encodedLine()]
            default: return FakeDaemon.standard(request)
            }
        })
        defer { daemon.stop() }
        let dir = makeTempDirectory("viadaemon")
        let run = runCtl(["calibrate", "--socket", daemon.socketPath, "--duration", "0.5",
                          "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.contains("carouseld reloaded its calibration"))
        let file = try readCalibration(dir + "/calibration.conf")
        #expect(file.sensorName == "bmi160" && file.sensorPath == "/sys/bus/iio/devices/iio:device0")
        #expect(file.samples == 150)
        #expect((file.calibration.gyroBias - Vector3(0.002, -0.001, 0.0005)).length < 1e-15)
        // up = (0, sin 30°, cos 30°): pitch = atan2(0.5, 0.866) = 30°, roll 0.
        #expect(abs(file.calibration.neutralPitchDegrees - 30) < 1e-9)
        #expect(abs(file.calibration.neutralRollDegrees) < 1e-12)
        let sent = daemon.requests
        #expect(sent.contains(.samples(enable: true)))
        #expect(sent.last == .reload)
        // Plain progress lines (stderr is not a terminal under the test runner).
        #expect(run.err.contains("calibrating: 0/0.5 s"))
    }

    @Test func calibrateRefusedByDaemonRightsIs77() throws {
        let daemon = try FakeDaemon(respond: { request in
            if case .samples = request {
                return [ServerMessage.error(ProtocolError(.notAllowed, "samples needs control rights", cmd: "samples")).encodedLine()]
            }
            return FakeDaemon.standard(request)
        })
        defer { daemon.stop() }
        let dir = makeTempDirectory("viadaemon77")
        let run = runCtl(["calibrate", "--socket", daemon.socketPath, "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .noPermission)
        #expect(!fileExists(dir + "/calibration.conf"))
    }
}

/// `DaemonSensors.fetch`, the daemon path of `carouselctl sensors`.
@Suite(.serialized) struct ClientDaemonSensorsTests {
    @Test func fetchReturnsTheDaemonsListOrNilWithoutDaemon() throws {
        let dir = makeTempDirectory("sensors")
        #expect(try DaemonSensors.fetch(socketPath: dir + "/none.sock") == nil)
        let sensorJSON = #"[{"name":"bmi160","label":"accel-display","path":"/sys/bus/iio/devices/iio:device0","dev":"/dev/iio:device0","type":"imu","channels":[{"name":"accel_x","index":0,"type":"le:s16/16>>0","scale":0.000598,"offset":0}],"mount_matrix":[[0,-1,0],[1,0,0],[0,0,1]],"mount_matrix_source":"udev","sampling_frequency_hz":100,"sampling_frequency_available_hz":[25,50,100],"buffered":true,"triggers":["bmi160-dev0"],"warnings":[]}]"#
        let daemon = try FakeDaemon(respond: { request in
            request == .sensors ? [ServerMessage.sensors(json: sensorJSON).encodedLine()] : FakeDaemon.standard(request)
        })
        defer { daemon.stop() }
        let result = try #require(try DaemonSensors.fetch(socketPath: daemon.socketPath))
        #expect(result.sensors.count == 1)
        #expect(result.sensors[0]["name"]?.stringValue == "bmi160")
        #expect(result.sensors[0]["mount_matrix"]?[0]?[1]?.doubleValue == -1)
        // The text is the array exactly as the daemon encodes it.
        #expect(result.json == sensorJSON)
    }
}

/// Interactive `calibrate --six-position` through a daemon: each Enter starts a `samples`
/// capture; the fake daemon serves the six poses in turn (per-axis offset 0.1, 0.2, −0.1 m/s²
/// and scale errors +1 %, −2 %, 0 %, i.e. raw = offset + true / scale).
@Suite(.serialized) struct ClientInteractiveSixPositionTests {
    @Test func promptsSixPosesAndFitsOffsetAndScale() throws {
        let offset = [0.1, 0.2, -0.1], scale = [1.01, 0.98, 1.0]
        let g = 9.80665
        let poses: [[Double]] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
        final class Counter: @unchecked Sendable { var pose = 0 }
        let counter = Counter()
        let daemon = try FakeDaemon(respond: { request in
            guard case .samples(enable: true) = request else {
                if case .samples = request { return [] }
                return FakeDaemon.standard(request)
            }
            let truth = poses[min(counter.pose, 5)].map { $0 * g }
            counter.pose += 1
            // 100 samples with a ±0.01 m/s² alternation (still, but not constant).
            let lines = (0..<100).map { i -> [UInt8] in
                let raw = (0..<3).map { offset[$0] + truth[$0] / scale[$0] + (i % 2 == 0 ? 0.01 : -0.01) }
                return ServerMessage.sample(timeNanoseconds: Int64(counter.pose * 1_000_000_000 + i * 10_000_000),
                                            accel: raw, gyro: [0.001, 0.002, -0.001]).encodedLine()
            }
            return [ServerMessage.ack(cmd: "samples").encodedLine()] + lines
        })
        defer { daemon.stop() }

        // Six Enters, then Enter at "Write …? [Y/n]" on a terminal.
        let dir = makeTempDirectory("interactive")
        let run = runCtl(["calibrate", "--six-position", "--socket", daemon.socketPath, "--duration", "0.5",
                          "--config", writeTestConfig(in: dir)], input: Array(repeating: "", count: 7), interactive: true)
        #expect(run.status == .ok, "stderr: \(run.err)")
        for axis in ["+X", "-X", "+Y", "-Y", "+Z", "-Z"] {
            #expect(run.err.contains("Place the device with \(axis) pointing up"))
        }
        let file = try readCalibration(dir + "/calibration.conf")
        #expect(file.method == "six-position")
        let c = file.calibration
        #expect(abs(c.accelOffset.x - 0.1) < 1e-6 && abs(c.accelOffset.y - 0.2) < 1e-6 && abs(c.accelOffset.z + 0.1) < 1e-6)
        #expect(abs(c.accelScale.x - 1.01) < 1e-6 && abs(c.accelScale.y - 0.98) < 1e-6 && abs(c.accelScale.z - 1) < 1e-6)
        #expect((c.gyroBias - Vector3(0.001, 0.002, -0.001)).length < 1e-12)
        #expect(file.samples == 600)
        #expect(run.out.contains("pose +x up:     9.8067 m/s² = 1 g after calibration (100 samples)"))
        #expect(run.err.contains("Write \(dir)/calibration.conf? [Y/n] "))
    }

    @Test func endOfInputAtAPoseAbortsAndWritesNothing() throws {
        let daemon = try FakeDaemon(respond: FakeDaemon.standard)
        defer { daemon.stop() }
        let dir = makeTempDirectory("abort")
        // No line at all: Ctrl-D at the first prompt, before any capture.
        let run = runCtl(["calibrate", "--six-position", "--socket", daemon.socketPath,
                          "--config", writeTestConfig(in: dir)], input: [], interactive: true)
        #expect(run.status == .failure)
        #expect(run.err.hasSuffix("Place the device with +X pointing up, keep it still, then press Enter (Ctrl-D aborts): carouselctl: calibrate: aborted, nothing written\n"))
        #expect(!fileExists(dir + "/calibration.conf"))
        #expect(!daemon.requests.contains { if case .samples = $0 { return true } else { return false } })
    }
}

/// The confirmation before writing, answered on a (scripted) terminal.
@Suite struct CalibrateConfirmationTests {
    private func calibrate(_ dir: String, answer: [String]) throws -> CtlRun {
        runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "10",
                "--config", writeTestConfig(in: dir)], input: answer, interactive: true)
    }

    @Test(arguments: [[""], ["y"], ["YES"]])
    func enterOrYesWrites(answer: [String]) throws {
        let dir = makeTempDirectory("confirm")
        let run = try calibrate(dir, answer: answer)
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.err.contains("Write \(dir)/calibration.conf? [Y/n] "))
        #expect(fileExists(dir + "/calibration.conf"))
    }

    @Test(arguments: [["n"], ["later"], []])
    func anythingElseOrEndOfInputWritesNothing(answer: [String]) throws {
        let dir = makeTempDirectory("decline")
        let run = try calibrate(dir, answer: answer)
        #expect(run.status == .failure)
        #expect(run.err.hasSuffix("? [Y/n] not written\n"))
        #expect(!fileExists(dir + "/calibration.conf"))
    }

    @Test func withoutATerminalNothingIsAsked() throws {
        let dir = makeTempDirectory("noterm")
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "10",
                          "--config", writeTestConfig(in: dir)], input: ["n"], interactive: false)
        #expect(run.status == .ok)
        #expect(!run.err.contains("[Y/n]"))
        #expect(fileExists(dir + "/calibration.conf"))
    }
}

/// Replies are matched to their request by `cmd`.
@Suite(.serialized) struct ClientReplyMatchingTests {
    @Test func ackOfAnEarlierCommandIsNotTheReply() throws {
        let daemon = try FakeDaemon(respond: { request in
            switch request {
            // A stale ACK for another command arrives before the real reply.
            case .reload: return [ServerMessage.ack(cmd: "samples").encodedLine(),
                                  ServerMessage.error(ProtocolError(.unavailable, "calibration.conf:3: bad", cmd: "reload")).encodedLine()]
            default: return FakeDaemon.standard(request)
            }
        })
        defer { daemon.stop() }
        let run = runCtl(["reload", "--socket", daemon.socketPath])
        #expect(run.status == .configuration, "stderr: \(run.err)")
        #expect(run.err.contains("calibration.conf:3: bad"))
    }

    /// Protocol 1.1: a daemon without a tilt estimate sends `null`; status and watch say so
    /// instead of printing a level 0°, and status says why when nobody watches (the daemon
    /// then does not read the sensor).
    @Test func tiltWithoutAnEstimatePrintsNoAngles() throws {
        let state = try WireJSONParser.parse(#"{"class":"STATE","seq":2,"index":0,"position":0,"phase":"idle","count":5,"tilt":{"roll_deg":null,"pitch_deg":null,"enabled":true},"sensor":"ok"}"#)
        #expect(StatusText.stateLine(state)
                == "#2       index 0/5      position 0.000     idle             roll -        pitch -       sensor ok")
        let greeting = try WireJSONParser.parse(#"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":2}"#)
        let status = try WireJSONParser.parse(#"{"class":"STATUS","release":"0.1.0","sensor":"ok","clients":1,"watchers":0}"#)
        let text = StatusText.render(greeting: greeting, status: status, state: state, socketPath: "/run/carouseld/carouseld.sock")
        #expect(text.contains("(protocol 1.2)"))
        #expect(text.hasSuffix("  tilt:         no estimate: no client watches, so the sensor is not read (enabled)\n"))
        let watched = try WireJSONParser.parse(#"{"class":"STATUS","release":"0.1.0","sensor":"ok","clients":2,"watchers":1}"#)
        let first = StatusText.render(greeting: greeting, status: watched, state: state, socketPath: "/run/carouseld/carouseld.sock")
        #expect(first.hasSuffix("  tilt:         no estimate yet (enabled)\n"))
    }
}
