import Glibc

/// `carousel-bench soak`: a simulated day of a kiosk's life, compressed, to show that the
/// daemon's memory and descriptors stay flat and that it logs no error but the expected ones
/// (docs/PERFORMANCE.md, "Soak").
///
/// The daemon replays a recording in a loop at its fastest (`replay_speed = 100`) with tilt
/// scrolling a cyclic carousel, so every watcher is due a STATE every 1/60 s. A schedule on a
/// simulated clock that runs `speed` times real time (default 480: a day in 3 minutes) does,
/// every simulated minute, one watcher leaving and a new one connecting (16 at a time); every
/// 5 minutes a `reload` request with the carousel's count changed; every 15 minutes a sensor
/// swap (a reload with the other recording as `replay_file`: the replay source is closed and a
/// new one opened, the replay's counterpart of an unplug and replug); every hour a reload of a
/// file with a syntax error by SIGHUP, which must be refused and logged — the only error lines
/// expected. Unplug and replug through umockdev are covered by the fault tests
/// (`FaultHotplugTests`): sending udev events needs the tests' support module, which links the
/// test framework.
///
/// Sampled at the start (all watchers connected), every simulated hour and at the end: `VmRSS`
/// of `/proc/PID/status` (kB) and the entries of `/proc/PID/fd`.
/// This type holds the settings, parses the arguments and prints the figures; `SoakSession`
/// runs the day.
struct SoakBench {
    static let help = """
    usage: carousel-bench soak [--hours H] [--speed X] [--watchers N] [--carouseld PATH] [--json]
      A simulated day of carouseld at high speed: watchers connecting and leaving, reloads,
      sensor swaps and refused reloads on a schedule, with RSS and descriptor counts sampled
      at the start, every simulated hour and at the end.
      --hours H       simulated hours (default 24)
      --speed X       simulated seconds per real second, 1 to 10000 (default 480: 24 h in 180 s)
      --watchers N    watchers connected at a time, 1 to 256 (default 16)
      --carouseld PATH  the daemon binary (default: carouseld next to this binary)
      --json          one JSON object per figure (name, unit, value, ...), as the other benchmarks
    Every simulated minute one watcher leaves and a new one connects; every 5 minutes a reload
    changes the carousel's count; every 15 minutes a reload swaps the replayed recording; every
    hour a reload by SIGHUP of a file with a syntax error is refused. Exit status: 0 when the
    descriptor count at the end equals the start, no watcher was dropped, every reload answered
    as expected and the log has no error line but the refused reloads'; 1 otherwise; 64 usage;
    69 when the daemon cannot be started.

    """

    var hours = 24.0
    var speed = 480.0
    var watcherCount = 16
    var carouseldPath: String?
    var json = false

    /// One sample of the daemon's resources.
    struct Sample {
        var simulatedHours: Double
        var realSeconds: Double
        var rssKilobytes: Int64
        var descriptors: Int
        var watchers: Int
        var statesReceived: Int
    }

    /// Parses the `soak` arguments, runs, prints; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var bench = SoakBench()
        var rest = arguments[...]
        func value(_ name: String) -> String? {
            guard let v = rest.first else { return nil }
            rest = rest.dropFirst()
            return v
        }
        while let a = rest.first {
            rest = rest.dropFirst()
            switch a {
            case "-h", "--help":
                print(help, terminator: "")
                return 0
            case "--json": bench.json = true
            case "--hours":
                guard let v = value(a).flatMap(Double.init), v > 0, v <= 24 * 30 else { return usage("--hours needs a number of hours in (0, 720]") }
                bench.hours = v
            case "--speed":
                guard let v = value(a).flatMap(Double.init), v >= 1, v <= 10000 else { return usage("--speed needs a number from 1 to 10000") }
                bench.speed = v
            case "--watchers":
                guard let v = value(a).flatMap({ Int($0) }), (1...256).contains(v) else { return usage("--watchers needs an integer from 1 to 256") }
                bench.watcherCount = v
            case "--carouseld":
                guard let v = value(a) else { return usage("--carouseld needs a path") }
                bench.carouseldPath = v
            default:
                return usage("unknown argument '\(a)'")
            }
        }
        do {
            return try bench.run()
        } catch {
            let text = "carousel-bench: soak: \(error)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return 69
        }
    }

    private static func usage(_ message: String) -> Int32 {
        let text = "carousel-bench: soak: \(message)\n" + help
        _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        return 64
    }

    // MARK: - The run

    /// The simulated-time schedule, seconds (`SoakSession.runDay`).
    static let churnEvery = 60.0, reloadEvery = 300.0, swapEvery = 900.0, badReloadEvery = 3600.0

    /// Runs the day in a private temporary folder (removed afterwards, also on Ctrl-C), prints
    /// the figures and the problems; returns 0 when there were none, 1 otherwise.
    /// - Throws: `BenchError` when the daemon cannot be started or exits during the day.
    func run() throws -> Int32 {
        let helper = DaemonBench(reporter: Reporter(json: json), runs: 1, carouseldPath: carouseldPath)
        let executable = try helper.daemonExecutable()
        var template = Array("/tmp/carousel-bench-soak.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw BenchError.system("mkdtemp")
        }
        let directory = String(cString: made)
        ChildRegistry.removeOnInterrupt(directory)
        defer {
            helper.removeDirectory(directory)
            ChildRegistry.forgetDirectory(directory)
        }
        let session = try SoakSession(settings: self, helper: helper, executable: executable, directory: directory)
        let (samples, realSeconds) = try session.runDay()
        let log = session.finish(samples: samples)
        report(session: session, samples: samples, log: log, realSeconds: realSeconds, executable: executable)
        for p in session.problems.prefix(10) {
            let text = "carousel-bench: soak: \(p)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        return session.problems.isEmpty ? 0 : 1
    }

    /// The schedule's tally, the table of samples (text mode) and the figures with their targets.
    private func report(session: SoakSession, samples: [Sample], log: SoakSession.LogCounts, realSeconds: Double, executable: String) {
        let t = session.tally
        let reporter = Reporter(json: json)
        reporter.section("soak (\(executable); \(Reporter.fixed(hours, 1)) simulated h at \(Reporter.fixed(speed, 0))×, replay at 100×, \(watcherCount) watchers at 60 Hz)")
        reporter.note("schedule: \(t.churned) watcher changes, \(t.reloads) reloads (\(t.swaps) recording swaps), \(t.badReloads) refused reloads; \(t.watchersServed) watchers served; \(Reporter.fixed(realSeconds, 1)) s real")
        if !json {
            print("   simulated h   real s    VmRSS kB   fds   watchers   STATEs received")
            for s in samples {
                print("   " + [Reporter.fixed(s.simulatedHours, 1).padded(11), Reporter.fixed(s.realSeconds, 1).padded(8),
                              String(s.rssKilobytes).padded(11), String(s.descriptors).padded(5), String(s.watchers).padded(10),
                              String(s.statesReceived).padded(17)].joined(separator: " "))
            }
        }
        let rss = samples.map { Double($0.rssKilobytes) }, fds = samples.map { Double($0.descriptors) }
        reporter.report(Measurement(name: "soak.rss_kb.start", unit: "kB", samples: [rss[0]]))
        reporter.report(Measurement(name: "soak.rss_kb.end", unit: "kB", samples: [rss[rss.count - 1]],
                                    target: "≤ start + 2048 kB", check: { $0 <= rss[0] + 2048 }))
        reporter.report(Measurement(name: "soak.rss_kb.max", unit: "kB", samples: [rss.max() ?? 0]))
        reporter.report(Measurement(name: "soak.fds.start", unit: "descriptors", samples: [fds[0]]))
        reporter.report(Measurement(name: "soak.fds.end", unit: "descriptors", samples: [fds[fds.count - 1]],
                                    target: "= start", check: { $0 == fds[0] }))
        reporter.report(Measurement(name: "soak.fds.max", unit: "descriptors", samples: [fds.max() ?? 0]))
        reporter.report(Measurement(name: "soak.states_received", unit: "messages", samples: [Double(t.statesReceived)]))
        reporter.report(Measurement(name: "soak.log.error_lines_unexpected", unit: "lines", samples: [Double(log.unexpected.count)],
                                    target: "0", check: { $0 == 0 }))
        reporter.report(Measurement(name: "soak.log.error_lines_expected", unit: "lines", samples: [Double(log.expected.count)]))
        reporter.report(Measurement(name: "soak.log.warning_lines", unit: "lines", samples: [Double(log.warnings.count)]))
    }

    // MARK: - Helpers

    /// A device held still at roll 15° (gravity `g·(sin 15°, 0, cos 15°)`), 100 Hz for 2 s, in
    /// the native CSV format: the tilt keeps the carousel scrolling. Returns its path.
    static func writeSteadyRoll(_ directory: String) throws -> String {
        let path = directory + "/steady-roll.csv"
        let g = 9.80665, angle = 15 * Double.pi / 180
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<200 { text += "\(k * 10_000_000),\(g * sin(angle)),0,\(g * cos(angle)),,,\n" }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError.system("open \(path)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw BenchError.system("write \(path)") }
        return path
    }

    /// The number of open descriptors of `pid` (entries of `/proc/PID/fd`), -1 when unreadable.
    static func descriptorCount(_ pid: pid_t) -> Int {
        guard let dir = opendir("/proc/\(pid)/fd") else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            if entry.pointee.d_name.0 != 0x2E { n += 1 }  // not "." or ".."
        }
        return n
    }

    /// Whether a log line is at error priority or worse: `<0>`…`<3>` (journal format) or
    /// `carouseld: error:` and the like (plain format).
    static func isErrorLine(_ line: Substring) -> Bool {
        for p in ["<0>", "<1>", "<2>", "<3>"] where line.hasPrefix(p) { return true }
        return [": error: ", ": critical: ", ": alert: ", ": emergency: "].contains { line.contains($0) }
    }

    static func lines(containing text: String, in path: String) -> Int {
        (ProcessProbe.read(path) ?? "").split(separator: "\n").filter { $0.contains(text) }.count
    }
}

private extension String {
    /// Right-aligned in `width` columns.
    func padded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
