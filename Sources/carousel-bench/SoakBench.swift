import CLinux
import CarouselProtocol
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

    /// The simulated-time schedule, seconds.
    static let churnEvery = 60.0, reloadEvery = 300.0, swapEvery = 900.0, badReloadEvery = 3600.0

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
        let recordings = [helper.packageRoot() + "/data/demo-recording.csv", try Self.writeSteadyRoll(directory)]
        let socketPath = directory + "/carouseld.sock"
        let configPath = directory + "/carouseld.conf"
        func config(count: Int, recording: Int, broken: Bool = false) throws {
            let text = """
                [sensor]
                source = replay
                replay_file = \(recordings[recording])
                replay_loop = yes
                replay_speed = 100
                [filter]
                method = accel
                [tilt]
                enabled = yes
                mode = velocity
                [carousel]
                count = \(count)
                cyclic = yes
                [server]
                socket = \(socketPath)
                max_clients = \(watcherCount + 8)
                [calibration]
                file = \(directory)/no-calibration.conf
                """ + (broken ? "\nthis line is not ini" : "")
            _ = try helper.writeConfig(directory, name: "next", body: text)
            guard rename(directory + "/next.conf", configPath) == 0 else { throw BenchError.system("rename to \(configPath)") }
        }
        var count = 20, recording = 0
        try config(count: count, recording: recording)
        let daemon = try DaemonProcess(executable: executable, arguments: ["-c", configPath, "--foreground"],
                                       environment: [:], directory: directory, name: "soak")
        try daemon.waitForReady(timeoutSeconds: 20)
        let probe = ProcessProbe(pid: daemon.pid)

        var watchers: [WatchClient] = []
        var statesReceived = 0, watchersDropped = 0, watchersServed = 0, problems: [String] = []
        func connectWatcher() throws -> WatchClient {
            let w = try WatchClient(socketPath: socketPath)
            do {
                try w.watch(maxRateHz: 60)
            } catch {
                throw BenchError("watcher \(watchersServed + 1): \(error); log: \(daemon.logTail())")
            }
            watchersServed += 1
            return w
        }
        for _ in 0..<watcherCount { watchers.append(try connectWatcher()) }
        var reloadingNotifications = 0
        /// Reads every watcher; counts STATEs; a closed connection is a dropped watcher. Reads
        /// the daemon's notify socket too, playing systemd's part.
        func drainWatchers() throws {
            for text in daemon.drainNotifications() where text.split(separator: "\n").contains("RELOADING=1") {
                reloadingNotifications += 1
            }
            for (i, w) in watchers.enumerated() {
                if !w.drain() {
                    watchersDropped += 1
                    problems.append("watcher dropped: \(w.takeLines().suffix(2).map(\.text))")
                    watchers[i] = try connectWatcher()
                    continue
                }
                for line in w.takeLines() where line.text.hasPrefix("{\"class\":\"STATE\"") { statesReceived += 1 }
            }
        }
        /// A `reload` request on a connection of its own; returns the reply's class.
        func requestReload() throws -> String {
            let c = try WatchClient(socketPath: socketPath)
            _ = try c.waitFor(class: "VERSION", timeoutSeconds: 10)
            try c.send(#"{"cmd":"reload"}"#)
            let deadline = BenchClock.monotonicNanoseconds() + 10_000_000_000
            while BenchClock.monotonicNanoseconds() < deadline {
                var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, 100)
                let open = c.drain()
                for line in c.takeLines() {
                    guard let cls = (try? WireJSONParser.parse(line.text))?["class"]?.stringValue else { continue }
                    if cls == "ACK" || cls == "ERROR" { return cls + (cls == "ERROR" ? " " + line.text : "") }
                }
                if !open { break }
            }
            return "no reply"
        }
        func sample(_ simulated: Double, _ started: Int64) -> Sample {
            Sample(simulatedHours: simulated / 3600, realSeconds: Double(BenchClock.monotonicNanoseconds() - started) * 1e-9,
                   rssKilobytes: probe.memoryKilobytes()?.rss ?? -1, descriptors: Self.descriptorCount(daemon.pid),
                   watchers: watchers.count, statesReceived: statesReceived)
        }

        // Warm-up: one real second of traffic before the first sample, so start-up allocations
        // (the replay's file, the first frames' buffers) are in the start figure.
        let warm = BenchClock.monotonicNanoseconds() + 1_000_000_000
        while BenchClock.monotonicNanoseconds() < warm {
            try drainWatchers()
            usleep(5_000)
        }
        let started = BenchClock.monotonicNanoseconds()
        var samples = [sample(0, started)]
        let end = hours * 3600
        var nextChurn = Self.churnEvery, nextReload = Self.reloadEvery, nextBad = Self.badReloadEvery
        var nextSample = 3600.0
        var churned = 0, reloads = 0, swaps = 0, badReloads = 0
        var simulated = 0.0
        while simulated < end {
            try drainWatchers()
            simulated = min(end, Double(BenchClock.monotonicNanoseconds() - started) * 1e-9 * speed)
            if simulated >= nextChurn {
                // The oldest watcher leaves (closes without unsubscribing), a new one comes.
                let slot = churned % watchers.count
                watchers[slot] = try connectWatcher()
                churned += 1
                nextChurn += Self.churnEvery
            }
            if simulated >= nextReload {
                // Every third one (15 minutes) swaps the recording; the others change the count.
                if Int(nextReload / Self.reloadEvery) % Int(Self.swapEvery / Self.reloadEvery) == 0 {
                    recording = 1 - recording
                    swaps += 1
                } else {
                    count = count == 20 ? 21 : 20
                }
                try config(count: count, recording: recording)
                let reply = try requestReload()
                if reply != "ACK" { problems.append("reload of a good file answered \(reply)") }
                reloads += 1
                nextReload += Self.reloadEvery
            }
            if simulated >= nextBad {
                // A broken file by SIGHUP: refused and logged; the good one is put back at once.
                let before = Self.lines(containing: "reload failed, keeping the running configuration", in: daemon.logPath)
                try config(count: 99, recording: recording, broken: true)
                kill(daemon.pid, SIGHUP)
                let deadline = BenchClock.monotonicNanoseconds() + 10_000_000_000
                while Self.lines(containing: "reload failed, keeping the running configuration", in: daemon.logPath) == before {
                    guard BenchClock.monotonicNanoseconds() < deadline else { problems.append("the refused reload was not logged"); break }
                    try drainWatchers()
                    usleep(2_000)
                }
                try config(count: count, recording: recording)
                badReloads += 1
                nextBad += Self.badReloadEvery
            }
            if simulated >= nextSample {
                samples.append(sample(simulated, started))
                nextSample += 3600
            }
            if daemon.hasExited() { throw BenchError("carouseld exited during the soak; log: \(daemon.logTail())") }
            usleep(2_000)
        }
        try drainWatchers()
        if samples.last.map({ $0.simulatedHours < hours - 1e-9 }) ?? true { samples.append(sample(end, started)) }
        let realSeconds = Double(BenchClock.monotonicNanoseconds() - started) * 1e-9

        watchers.removeAll()
        daemon.stop()
        let log = ProcessProbe.read(daemon.logPath) ?? ""
        let errorLines = log.split(separator: "\n").filter(Self.isErrorLine)
        let expected = errorLines.filter { $0.contains("reload failed, keeping the running configuration") }
        let unexpected = errorLines.filter { !$0.contains("reload failed, keeping the running configuration") }
        let warnings = log.split(separator: "\n").filter { $0.hasPrefix("<4>") || $0.contains(": warning: ") }
        for text in daemon.drainNotifications() where text.split(separator: "\n").contains("RELOADING=1") {
            reloadingNotifications += 1
        }
        if reloadingNotifications != reloads + badReloads {
            problems.append("\(reloadingNotifications) RELOADING=1 notifications for \(reloads + badReloads) reloads")
        }
        if expected.count != badReloads { problems.append("\(expected.count) refused-reload lines for \(badReloads) bad reloads") }
        for line in unexpected.prefix(5) { problems.append("unexpected error line: \(line)") }
        let first = samples[0], last = samples[samples.count - 1]
        if last.descriptors != first.descriptors { problems.append("descriptors \(first.descriptors) at the start, \(last.descriptors) at the end") }
        if watchersDropped > 0 { problems.append("\(watchersDropped) watchers dropped") }

        let reporter = Reporter(json: json)
        reporter.section("soak (\(executable); \(Reporter.fixed(hours, 1)) simulated h at \(Reporter.fixed(speed, 0))×, replay at 100×, \(watcherCount) watchers at 60 Hz)")
        reporter.note("schedule: \(churned) watcher changes, \(reloads) reloads (\(swaps) recording swaps), \(badReloads) refused reloads; \(watchersServed) watchers served; \(Reporter.fixed(realSeconds, 1)) s real")
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
        reporter.report(Measurement(name: "soak.states_received", unit: "messages", samples: [Double(statesReceived)]))
        reporter.report(Measurement(name: "soak.log.error_lines_unexpected", unit: "lines", samples: [Double(unexpected.count)],
                                    target: "0", check: { $0 == 0 }))
        reporter.report(Measurement(name: "soak.log.error_lines_expected", unit: "lines", samples: [Double(expected.count)]))
        reporter.report(Measurement(name: "soak.log.warning_lines", unit: "lines", samples: [Double(warnings.count)]))
        for p in problems.prefix(10) {
            let text = "carousel-bench: soak: \(p)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        return problems.isEmpty ? 0 : 1
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
