import CarouselProtocol
import CarouselTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `carouseld` started from the built product on a unique socket under /tmp, with a config
/// written for the test. Defaults: an IIO sensor name that matches nothing (status `absent` on
/// any machine, and no samples, so only commands move the carousel), tilt off, 10 items, viewport 375 × 200, item 250 × 160, spacing 10 (pitch
/// p = 260 points), max_rate_hz 60.
final class E2EDaemon {
    let process: DaemonProcess
    let socketPath: String
    let configPath: String

    /// Config sections and keys; `overrides` replace or add keys (`["server": ["max_clients": "2"]]`).
    static func configText(socketPath: String, overrides: [String: [String: String]] = [:]) -> String {
        var sections: [(String, [(String, String)])] = [
            ("sensor", [("source", "iio"), ("device", "carouseld-test-no-such-sensor")]),
            ("tilt", [("enabled", "no")]),
            ("carousel", [("count", "10"), ("viewport_width", "375"), ("viewport_height", "200"),
                          ("item_width", "250"), ("item_height", "160"), ("spacing", "10")]),
            ("server", [("socket", socketPath), ("socket_mode", "0666")]),
            ("calibration", [("file", "/tmp/carouseld-test-no-calibration.conf")]),
        ]
        for (section, keys) in overrides {
            if let i = sections.firstIndex(where: { $0.0 == section }) {
                for (k, v) in keys.sorted(by: { $0.key < $1.key }) {
                    if let j = sections[i].1.firstIndex(where: { $0.0 == k }) { sections[i].1[j].1 = v } else { sections[i].1.append((k, v)) }
                }
            } else {
                sections.append((section, keys.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) }))
            }
        }
        return sections.map { "[\($0.0)]\n" + $0.1.map { "\($0.0) = \($0.1)\n" }.joined() }.joined(separator: "\n")
    }

    /// Writes the config, starts `carouseld -c CONFIG`, and waits until the socket accepts.
    init(_ name: String, overrides: [String: [String: String]] = [:], waitForSocket: Bool = true) throws {
        socketPath = TestTemp.path(name + ".sock")
        configPath = TestTemp.path(name + ".conf")
        try TestTemp.write(Self.configText(socketPath: socketPath, overrides: overrides), to: configPath)
        process = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", configPath, "--foreground"],
                                    logPath: TestTemp.path(name + ".log"))
        if waitForSocket { try process.waitForSocket(socketPath) }
    }

    /// A connected client whose VERSION greeting has been read and checked.
    func client() throws -> SocketClient {
        let c = try SocketClient(path: socketPath)
        let greeting = try c.readJSON()
        guard greeting["class"] == .string("VERSION") else { throw TestSupportError("no greeting: \(greeting)") }
        return c
    }

    /// SIGTERM and the exit code.
    func stop() throws -> Int32 {
        process.signal(SIGTERM)
        return try process.wait()
    }

    /// Extra files the test made for this daemon (a recording), removed with it.
    var ownedFiles: [String] = []

    /// A device held still, rolled 20° about its y axis: gravity `g·(sin 20°, 0, cos 20°)`, so
    /// the estimated roll is ±20° whatever the sign convention (docs/FUSION.md "1. Conventions" fixes it; tests
    /// only need its size). 100 Hz for 2 s, in the native CSV format; returns its path.
    static func steadyRollRecording() throws -> String {
        let path = TestTemp.path("steady-roll.csv")
        let g = 9.80665, angle = 20 * Double.pi / 180
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<200 {
            text += "\(k * 10_000_000),\(g * sin(angle)),0,\(g * cos(angle)),0,0,0\n"
        }
        try TestTemp.write(text, to: path)
        return path
    }

    /// The `[sensor]` and `[filter]` overrides that replay `recording` in a loop through the
    /// accelerometer estimator (the recording has no gyroscope).
    static func steadyRollSensor(_ recording: String) -> [String: [String: String]] {
        ["sensor": ["source": "replay", "replay_file": recording, "replay_loop": "yes"], "filter": ["method": "accel"]]
    }

    /// A daemon replaying `steadyRollRecording()` in a loop (removed with the daemon). With
    /// `scrolling`, tilt drives the cyclic carousel in velocity mode: it scrolls without end and
    /// a watcher is due a STATE every 1/60 s. `overrides` are applied last.
    static func steadyRoll(_ name: String, scrolling: Bool, overrides: [String: [String: String]] = [:]) throws -> E2EDaemon {
        let recording = try steadyRollRecording()
        var all = steadyRollSensor(recording)
        if scrolling {
            all["tilt"] = ["enabled": "yes", "mode": "velocity"]
            all["carousel"] = ["cyclic": "yes"]
        }
        for (section, keys) in overrides { all[section, default: [:]].merge(keys) { $1 } }
        let daemon: E2EDaemon
        do {
            daemon = try E2EDaemon(name, overrides: all)
        } catch {
            unlink(recording)
            throw error
        }
        daemon.ownedFiles.append(recording)
        return daemon
    }

    deinit {
        if !process.hasExited {
            process.signal(SIGKILL)
            _ = try? process.wait()
        }
        for file in ownedFiles { unlink(file) }
        unlink(configPath)
        unlink(socketPath)
        unlink(process.logPath)
    }
}

/// Whether a file exists (lstat).
func fileExists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
}

extension WireJSON {
    var isState: Bool { self["class"] == .string("STATE") }
    var number: Double? { doubleValue }
}
