import CarouselProtocol
import Glibc

/// One `carousel-bench soak` run against a live daemon: the daemon, its watchers, the
/// configuration file the schedule rewrites, and the tally of what the schedule did and what
/// went wrong. `SoakBench` owns the settings and prints the figures; this type runs the day.
final class SoakSession {
    /// What the schedule did and what the daemon answered, counted over the run.
    struct Tally {
        var statesReceived = 0, watchersServed = 0, watchersDropped = 0
        var churned = 0, reloads = 0, swaps = 0, badReloads = 0
        var reloadingNotifications = 0
    }

    /// The daemon's log lines that matter to the verdict.
    struct LogCounts {
        /// Error lines of the refused reloads (the only ones expected).
        var expected: [Substring]
        /// Any other error line.
        var unexpected: [Substring]
        var warnings: [Substring]
    }

    /// What every refused reload logs at error priority.
    static let refusedReloadText = "reload failed, keeping the running configuration"

    let settings: SoakBench
    let socketPath: String
    let daemon: DaemonProcess
    private let helper: DaemonBench
    private let directory: String
    private let configPath: String
    private let recordings: [String]
    private let probe: ProcessProbe
    private(set) var watchers: [WatchClient] = []
    private(set) var tally = Tally()
    private(set) var problems: [String] = []
    private var count = 20, recording = 0

    /// Writes the first configuration in `directory`, starts `executable` on it (foreground, the
    /// bench reading its notify socket) and connects `settings.watcherCount` watchers at 60 Hz.
    /// - Throws: `BenchError` when the files cannot be written, the daemon does not become ready
    ///   in 20 s or a watcher cannot connect.
    init(settings: SoakBench, helper: DaemonBench, executable: String, directory: String) throws {
        self.settings = settings
        self.helper = helper
        self.directory = directory
        recordings = [helper.packageRoot() + "/data/demo-recording.csv", try SoakBench.writeSteadyRoll(directory)]
        socketPath = directory + "/carouseld.sock"
        configPath = directory + "/carouseld.conf"
        try Self.writeConfig(directory: directory, helper: helper, target: configPath, recording: recordings[0],
                             count: count, socketPath: socketPath, maxClients: settings.watcherCount + 8)
        daemon = try DaemonProcess(executable: executable, arguments: ["-c", configPath, "--foreground"],
                                   environment: [:], directory: directory, name: "soak")
        try daemon.waitForReady(timeoutSeconds: 20)
        probe = ProcessProbe(pid: daemon.pid)
        for _ in 0..<settings.watcherCount { watchers.append(try connectWatcher()) }
    }

    // MARK: - The configuration file

    /// Replaces the configuration atomically (written beside it, renamed over it): the replayed
    /// recording, tilt in velocity mode on a cyclic carousel of `count` items; `broken` appends a
    /// line that is not INI.
    private static func writeConfig(directory: String, helper: DaemonBench, target: String, recording: String,
                                    count: Int, socketPath: String, maxClients: Int, broken: Bool = false) throws {
        let text = """
            [sensor]
            source = replay
            replay_file = \(recording)
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
            max_clients = \(maxClients)
            [calibration]
            file = \(directory)/no-calibration.conf
            """ + (broken ? "\nthis line is not ini" : "")
        _ = try helper.writeConfig(directory, name: "next", body: text)
        guard rename(directory + "/next.conf", target) == 0 else { throw BenchError.system("rename to \(target)") }
    }

    private func writeConfig(count: Int, broken: Bool = false) throws {
        try Self.writeConfig(directory: directory, helper: helper, target: configPath, recording: recordings[recording],
                             count: count, socketPath: socketPath, maxClients: settings.watcherCount + 8, broken: broken)
    }

    // MARK: - Watchers and requests

    private func connectWatcher() throws -> WatchClient {
        let w = try WatchClient(socketPath: socketPath)
        do {
            try w.watch(maxRateHz: 60)
        } catch {
            throw BenchError("watcher \(tally.watchersServed + 1): \(error); log: \(daemon.logTail())")
        }
        tally.watchersServed += 1
        return w
    }

    /// Reads every watcher and counts its STATEs; a closed connection is a dropped watcher,
    /// replaced. Reads the daemon's notify socket too, playing systemd's part.
    func drainWatchers() throws {
        countReloadingNotifications()
        for (i, w) in watchers.enumerated() {
            if !w.drain() {
                tally.watchersDropped += 1
                problems.append("watcher dropped: \(w.takeLines().suffix(2).map(\.text))")
                watchers[i] = try connectWatcher()
                continue
            }
            for line in w.takeLines() where line.text.hasPrefix("{\"class\":\"STATE\"") { tally.statesReceived += 1 }
        }
    }

    private func countReloadingNotifications() {
        for text in daemon.drainNotifications() where text.split(separator: "\n").contains("RELOADING=1") {
            tally.reloadingNotifications += 1
        }
    }

    /// A `reload` request on a connection of its own; returns the reply's class (`ACK`, or
    /// `ERROR` followed by the line), or "no reply" after 10 s.
    private func requestReload() throws -> String {
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

    // MARK: - The schedule

    /// The daemon's resources now, at `simulated` seconds of the day, `started` the run's start
    /// (ns, CLOCK_MONOTONIC).
    private func sample(_ simulated: Double, _ started: Int64) -> SoakBench.Sample {
        SoakBench.Sample(simulatedHours: simulated / 3600, realSeconds: Double(BenchClock.monotonicNanoseconds() - started) * 1e-9,
                         rssKilobytes: probe.memoryKilobytes()?.rss ?? -1, descriptors: SoakBench.descriptorCount(daemon.pid),
                         watchers: watchers.count, statesReceived: tally.statesReceived)
    }

    /// Runs the day: one real second of traffic first (so start-up allocations are in the start
    /// figure), then the schedule of `SoakBench` on the simulated clock, sampling every
    /// simulated hour and at the end. Returns the samples and the real seconds the day took.
    /// - Throws: `BenchError` when the daemon exits or a watcher cannot reconnect.
    func runDay() throws -> (samples: [SoakBench.Sample], realSeconds: Double) {
        let warm = BenchClock.monotonicNanoseconds() + 1_000_000_000
        while BenchClock.monotonicNanoseconds() < warm {
            try drainWatchers()
            usleep(5_000)
        }
        let started = BenchClock.monotonicNanoseconds()
        var samples = [sample(0, started)]
        let end = settings.hours * 3600
        var nextChurn = SoakBench.churnEvery, nextReload = SoakBench.reloadEvery, nextBad = SoakBench.badReloadEvery
        var nextSample = 3600.0
        var simulated = 0.0
        while simulated < end {
            try drainWatchers()
            simulated = min(end, Double(BenchClock.monotonicNanoseconds() - started) * 1e-9 * settings.speed)
            if simulated >= nextChurn {
                try churn()
                nextChurn += SoakBench.churnEvery
            }
            if simulated >= nextReload {
                try reload(swapping: Int(nextReload / SoakBench.reloadEvery) % Int(SoakBench.swapEvery / SoakBench.reloadEvery) == 0)
                nextReload += SoakBench.reloadEvery
            }
            if simulated >= nextBad {
                try refusedReload()
                nextBad += SoakBench.badReloadEvery
            }
            if simulated >= nextSample {
                samples.append(sample(simulated, started))
                nextSample += 3600
            }
            if daemon.hasExited() { throw BenchError("carouseld exited during the soak; log: \(daemon.logTail())") }
            usleep(2_000)
        }
        try drainWatchers()
        if samples.last.map({ $0.simulatedHours < settings.hours - 1e-9 }) ?? true { samples.append(sample(end, started)) }
        return (samples, Double(BenchClock.monotonicNanoseconds() - started) * 1e-9)
    }

    /// The oldest watcher leaves (closes without unsubscribing) and a new one comes.
    private func churn() throws {
        let slot = tally.churned % watchers.count
        watchers[slot] = try connectWatcher()
        tally.churned += 1
    }

    /// A `reload` request after the file changed: the other recording when `swapping` (the
    /// replay source closed and a new one opened), else the count (20 ↔ 21). Anything but `ACK`
    /// is a problem.
    private func reload(swapping: Bool) throws {
        if swapping {
            recording = 1 - recording
            tally.swaps += 1
        } else {
            count = count == 20 ? 21 : 20
        }
        try writeConfig(count: count)
        let reply = try requestReload()
        if reply != "ACK" { problems.append("reload of a good file answered \(reply)") }
        tally.reloads += 1
    }

    /// A broken file by SIGHUP: it must be refused and logged within 10 s; the good one is put
    /// back at once.
    private func refusedReload() throws {
        let before = SoakBench.lines(containing: Self.refusedReloadText, in: daemon.logPath)
        try writeConfig(count: 99, broken: true)
        kill(daemon.pid, SIGHUP)
        let deadline = BenchClock.monotonicNanoseconds() + 10_000_000_000
        while SoakBench.lines(containing: Self.refusedReloadText, in: daemon.logPath) == before {
            guard BenchClock.monotonicNanoseconds() < deadline else { problems.append("the refused reload was not logged"); break }
            try drainWatchers()
            usleep(2_000)
        }
        try writeConfig(count: count)
        tally.badReloads += 1
    }

    // MARK: - The verdict

    /// Closes the watchers, stops the daemon and reads its log; adds to `problems` what the day
    /// must not show (a notification or refused-reload line missing, an unexpected error line,
    /// descriptors at the end other than at the start, a dropped watcher).
    func finish(samples: [SoakBench.Sample]) -> LogCounts {
        watchers.removeAll()
        daemon.stop()
        let log = ProcessProbe.read(daemon.logPath) ?? ""
        let lines = log.split(separator: "\n")
        let errorLines = lines.filter(SoakBench.isErrorLine)
        let counts = LogCounts(expected: errorLines.filter { $0.contains(Self.refusedReloadText) },
                               unexpected: errorLines.filter { !$0.contains(Self.refusedReloadText) },
                               warnings: lines.filter { $0.hasPrefix("<4>") || $0.contains(": warning: ") })
        countReloadingNotifications()
        if tally.reloadingNotifications != tally.reloads + tally.badReloads {
            problems.append("\(tally.reloadingNotifications) RELOADING=1 notifications for \(tally.reloads + tally.badReloads) reloads")
        }
        if counts.expected.count != tally.badReloads {
            problems.append("\(counts.expected.count) refused-reload lines for \(tally.badReloads) bad reloads")
        }
        for line in counts.unexpected.prefix(5) { problems.append("unexpected error line: \(line)") }
        let first = samples[0], last = samples[samples.count - 1]
        if last.descriptors != first.descriptors { problems.append("descriptors \(first.descriptors) at the start, \(last.descriptors) at the end") }
        if tally.watchersDropped > 0 { problems.append("\(tally.watchersDropped) watchers dropped") }
        return counts
    }
}
