#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
@testable import CarouselCommandLine

/// The client commands and `calibrate` against the real `carouseld` (built product), replaying
/// the bundled demo recording on a unique socket.
@Suite(.serialized) struct ClientDaemonEndToEndTests {
    final class Daemon {
        let dir: String
        let config: String
        let socket: String
        let process: DaemonProcess

        /// - Parameter replayFile: the recording to replay (default: the bundled demo recording).
        init(tilt: Bool = false, replayFile: String? = nil, replayLoop: Bool = true) throws {
            dir = makeTempDirectory("e2e")
            chmod(dir, 0o755)  // the unprivileged client of `controlWithoutRightsIs77` must reach the socket
            socket = dir + "/carouseld.sock"
            config = dir + "/carouseld.conf"
            writeFile(config, """
            [sensor]
            source = replay
            replay_file = \(replayFile ?? TestPaths.packageRoot + "/data/demo-recording.csv")
            replay_loop = \(replayLoop ? "yes" : "no")

            [tilt]
            enabled = \(tilt ? "yes" : "no")

            [carousel]
            count = 10
            viewport_width = 375
            viewport_height = 200
            item_width = 250
            item_height = 160
            spacing = 10

            [server]
            socket = \(socket)
            socket_mode = 0666

            [calibration]
            file = \(dir)/calibration.conf

            """)
            process = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", config, "--foreground"],
                                        logPath: dir + "/carouseld.log")
            try process.waitForSocket(socket)
        }

        deinit {
            if !process.hasExited {
                process.signal(SIGTERM)
                _ = try? process.wait()
            }
        }

        /// `status --json` parsed.
        func status() throws -> WireJSON {
            let run = runCtl(["status", "--json", "--config", config])
            guard run.status == .ok else { throw CommandError(run.status, run.err) }
            return try WireJSONParser.parse(run.out.split(separator: "\n")[0].utf8)
        }
    }

    @Test func statusWatchAndControl() throws {
        let daemon = try Daemon()
        let text = runCtl(["status", "--config", daemon.config])
        #expect(text.status == .ok, "stderr: \(text.err)\nlog: \(daemon.process.log)")
        #expect(text.out.hasPrefix("carouseld \(carouseldRelease) (protocol 1.2) on \(daemon.socket)\n"))
        #expect(text.out.contains("  sensor:       replay"))
        #expect(text.out.contains("item 0 of 10"))

        let before = try daemon.status()
        #expect(before["status"]?["release"]?.stringValue == carouseldRelease)
        #expect(before["status"]?["config_path"]?.stringValue?.hasSuffix("carouseld.conf") == true)
        #expect(before["state"]?["count"]?.intValue == 10)

        #expect(runCtl(["set-count", "12", "--config", daemon.config]).status == .ok)
        #expect(try daemon.status()["state"]?["count"]?.intValue == 12)

        let scroll = runCtl(["scroll-to", "3", "--no-animation", "--config", daemon.config])
        #expect(scroll.status == .ok, "stderr: \(scroll.err)")
        let after = try daemon.status()["state"]
        #expect(after?["index"]?.intValue == 3)
        #expect(after?["position"]?.doubleValue == 3)

        let watch = runCtl(["watch", "--json", "--count", "1", "--config", daemon.config])
        #expect(watch.status == .ok, "stderr: \(watch.err)")
        let lines = try watch.out.split(separator: "\n").map { try WireJSONParser.parse($0.utf8) }
        #expect(lines.first?["class"]?.stringValue == "WATCH")
        #expect(lines.last?["class"]?.stringValue == "STATE")
        #expect(lines.last?["index"]?.intValue == 3)

        let people = runCtl(["watch", "--count", "1", "--config", daemon.config])
        #expect(people.status == .ok)
        #expect(people.out.contains("index 3/12") && people.out.contains("sensor replay"), "out: \(people.out)")

        #expect(runCtl(["reload", "--config", daemon.config]).status == .ok)
        let recenter = runCtl(["recenter", "--config", daemon.config])
        #expect(recenter.status == .ok || recenter.status == .unavailable, "stderr: \(recenter.err)")
    }

    /// `calibrate` with a running daemon goes through its `samples` stream, binds the file to the
    /// replay source and makes the daemon reload. The daemon replays x-io's first 10 s at rest
    /// (the demo recording soon tilts and is refused, see `demoRecordingIsRefusedAsMoving`).
    @Test func calibrateThroughRunningDaemon() throws {
        let still = makeTempDirectory("still-replay") + "/still.csv"
        var csv = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for r in try readXioRows().filter({ $0.time <= 10 }) {
            csv += "\(Int64((r.time * 1e9).rounded())),\(r.accelG.0 * 9.80665),\(r.accelG.1 * 9.80665),\(r.accelG.2 * 9.80665),"
            csv += "\(r.gyroDegPerS.0 * Double.pi / 180),\(r.gyroDegPerS.1 * Double.pi / 180),\(r.gyroDegPerS.2 * Double.pi / 180)\n"
        }
        writeFile(still, csv)
        let daemon = try Daemon(replayFile: still)
        let run = runCtl(["calibrate", "--config", daemon.config, "--duration", "1", "--yes"])
        #expect(run.status == .ok, "stderr: \(run.err)\nlog: \(daemon.process.log)")
        #expect(run.out.contains("carouseld reloaded its calibration"))
        let file = try readCalibration(daemon.dir + "/calibration.conf")
        #expect(file.sensorName == "still.csv")
        #expect(file.samples >= 50)  // 1 s of a ~100 Hz replay
        // x-io's rest is level within 1.2° (CalibrationMathTests computes it exactly from 10 s).
        #expect(abs(file.calibration.neutralRollDegrees) < 2 && abs(file.calibration.neutralPitchDegrees) < 2)

        let show = runCtl(["calibration", "show", "--config", daemon.config, "--json"])
        #expect(show.status == .ok)
        let value = try WireJSONParser.parse(show.out.split(separator: "\n")[0].utf8)
        #expect(value["applied"]?.boolValue != nil)  // the daemon answered

        // With only --socket (no configuration naming the file), the daemon says which file it uses.
        let bySocket = runCtl(["calibration", "show", "--socket", daemon.socket, "--json"])
        #expect(bySocket.status == .ok, "stderr: \(bySocket.err)")
        #expect(bySocket.out.contains(daemon.dir + "/calibration.conf"))

        #expect(runCtl(["calibration", "reset", "--config", daemon.config]).status == .ok)
        #expect(fileExists(daemon.dir + "/calibration.conf.bak"))
    }

    /// Control commands from a uid without rights: 77 (setpriv drops to nobody, which needs root).
    @Test func controlWithoutRightsIs77() throws {
        guard TestPrivileges.requireRoot("runs carouselctl as uid 65534 through setpriv"),
              TestPrivileges.requireReachableByOthers(TestPaths.product("carouselctl"), executable: true,
                                                      "runs carouselctl as uid 65534 through setpriv") else { return }
        let daemon = try Daemon()
        let process = try UmockdevProcess("/usr/bin/setpriv",
                                          ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.product("carouselctl"),
                                           "scroll-to", "2", "--socket", daemon.socket], testbed: nil)
        let result = try process.waitForExit(timeoutSeconds: 20)
        #expect(result.status == 77, "stderr: \(result.standardError)")
        #expect(result.standardError.contains("not_allowed"))
        // Reading is open to anyone who can reach the socket.
        let status = try UmockdevProcess("/usr/bin/setpriv",
                                         ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.product("carouselctl"),
                                          "status", "--socket", daemon.socket], testbed: nil)
        #expect(try status.waitForExit(timeoutSeconds: 20).status == 0)
    }

    /// The demo recording starts tilting after about 3.5 s: 5 s of the daemon's samples are refused (65).
    @Test func demoRecordingIsRefusedAsMoving() throws {
        let daemon = try Daemon()
        let run = runCtl(["calibrate", "--config", daemon.config, "--duration", "5", "--yes"])
        #expect(run.status == .dataError)
        #expect(run.err.contains("the device moved during calibration"))
        #expect(!fileExists(daemon.dir + "/calibration.conf"))
    }

    @Test func stoppedDaemonIs69() throws {
        let daemon = try Daemon()
        daemon.process.signal(SIGTERM)
        #expect(try daemon.process.wait() == 0)
        let run = runCtl(["status", "--config", daemon.config])
        #expect(run.status == .unavailable)
        #expect(run.err.contains(daemon.socket))
    }
}
