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

    deinit {
        if !process.hasExited {
            process.signal(SIGKILL)
            _ = try? process.wait()
        }
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
