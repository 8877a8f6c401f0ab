import CLinux
import CarouselProtocol
import CarouselPosix
import Glibc

/// carouseld figures (issue 5 "Benchmark", issue 7), measured on the release binary:
///
/// - start-up to READY: time from `posix_spawn` to the `READY=1` datagram on a `NOTIFY_SOCKET`
///   the benchmark owns, with the IIO source under umockdev (sensor present) and with the
///   replay source (no preload library);
/// - idle: CPU and wake-ups per second (context switches of all threads, /proc) with no client,
///   and that the IIO buffer stays disabled (no sensor reads);
/// - sample-to-STATE latency with 1 and 16 watchers: a scan written to the FIFO behind the
///   mocked accelerometer's `/dev/iio:device0` (the moment the sample becomes readable) until
///   the STATE line's `recv` returns in each client. Samples are 30 ms apart (more than
///   1/max_rate_hz = 16.7 ms) and follow a 20° sine of 20 samples, so each changes the
///   published tilt by about 1° or more (> 0.1°): the publishing rule sends each at once. The
///   mock has no gyroscope, so the estimator is `[filter] method = accel` (with the default
///   `fusion`, an accelerometer-only sample moves the estimate by only gain·dt = 1.5 % of the
///   error, sometimes below the 0.1° threshold). Tilt does not
///   drive the carousel during this test (`[tilt] enabled = no`), so no animation frame can
///   take a sample's slot;
/// - CPU with 256 watchers at 60 Hz: tilt enabled, 20° roll streamed at 100 Hz on a cyclic
///   carousel, so the carousel moves continuously and every watcher is sent 60 STATE/s;
/// - resident memory: VmRSS idle and VmHWM (peak) after the 256-watcher run.
struct DaemonBench {
    var reporter: Reporter
    var runs: Int
    var carouseldPath: String?
    /// Samples per latency run.
    var samplesPerRun = 150
    /// Seconds per CPU window (idle, 256 watchers).
    var windowSeconds = 2.0

    func run() throws {
        let executable = try daemonExecutable()
        let directory = try makeScratchDirectory()
        defer { removeScratchDirectory(directory) }
        reporter.section("daemon (\(executable); IIO source: umockdev buffered accelerometer on a FIFO)")

        try startupFigures(executable, directory)

        let mock = try MockAccelerometer()
        let socketPath = directory + "/carouseld.sock"
        let config = try writeConfig(directory, name: "iio", body: """
            [sensor]
            source = iio
            mode = buffered
            sample_rate_hz = 1
            [filter]
            method = accel
            [tilt]
            enabled = no
            [carousel]
            count = 20
            cyclic = yes
            [server]
            socket = \(socketPath)
            socket_mode = 0600
            max_clients = 300
            max_rate_hz = 60
            [calibration]
            file = \(directory)/no-calibration.conf
            """)
        let daemon = try DaemonProcess(executable: executable, arguments: ["-c", config, "--foreground"],
                                       environment: mock.environment, directory: directory, name: "carouseld-iio")
        try daemon.waitForReady(timeoutSeconds: 20)
        let probe = ProcessProbe(pid: daemon.pid)

        // Idle: no client at all.
        usleep(500_000)
        idleFigures(name: "idle", label: "idle", probe: probe, mock: mock)
        if let m = probe.memoryKilobytes() {
            reporter.report(Measurement(name: "daemon.rss_idle.iio_umockdev", unit: "MB", samples: [Double(m.rss) / 1024],
                                        target: "≤ 16", check: { $0 <= 16 }))
        }

        for watchers in [1, 16] {
            let (p50, p99, missing, split) = try latency(watchers: watchers, socketPath: socketPath, mock: mock)
            reporter.report(Measurement(name: "daemon.latency_p50.watchers_\(watchers)", unit: "µs", samples: p50))
            reporter.report(Measurement(name: "daemon.latency_p99.watchers_\(watchers)", unit: "µs", samples: p99,
                                        target: "≤ 1000", check: { $0 <= 1000 }))
            // The same latency in two parts, at the STATE's `time_ns` (the daemon's loop taking
            // the wake-up): the mock FIFO, the kernel and the scheduler before it; the daemon's
            // processing, the send and the client's wake-up after it.
            reporter.report(Measurement(name: "daemon.latency_p50.write_to_daemon_loop.watchers_\(watchers)", unit: "µs",
                                        samples: split.wakeP50))
            reporter.report(Measurement(name: "daemon.latency_p99.write_to_daemon_loop.watchers_\(watchers)", unit: "µs",
                                        samples: split.wakeP99))
            reporter.report(Measurement(name: "daemon.latency_p50.daemon_loop_to_client.watchers_\(watchers)", unit: "µs",
                                        samples: split.sendP50))
            reporter.report(Measurement(name: "daemon.latency_p99.daemon_loop_to_client.watchers_\(watchers)", unit: "µs",
                                        samples: split.sendP99))
            if missing > 0 {
                reporter.note("latency, \(watchers) watcher(s): \(missing) of \(runs * samplesPerRun) samples produced no STATE of their "
                              + "own within 250 ms (the daemon read them only together with the next sample); p50/p99 are over "
                              + "the samples that did")
            }
        }

        let (cpu, statesPerSecond) = try manyWatchers(256, socketPath: socketPath, mock: mock, probe: probe)
        reporter.report(Measurement(name: "daemon.cpu.watchers_256_60hz", unit: "% of one core", samples: cpu,
                                    target: "≤ 10", check: { $0 <= 10 }))
        reporter.report(Measurement(name: "daemon.states_per_s_per_watcher.watchers_256", unit: "1/s", samples: statesPerSecond))
        // The watchers are gone (closed when `manyWatchers` returned) while the device was
        // tilted 20° with tilt enabled: once the carousel settles (≈ 1 s of snap animation),
        // the daemon must be idle again, with no stale tilt scrolling it on.
        usleep(1_500_000)
        idleFigures(name: "idle_after_last_watcher", label: "idle after the last watcher left", probe: probe, mock: mock)
        if let m = probe.memoryKilobytes() {
            reporter.report(Measurement(name: "daemon.rss_peak.iio_umockdev_256_watchers", unit: "MB",
                                        samples: [Double(m.hwm) / 1024], target: "≤ 16", check: { $0 <= 16 }))
        }
        daemon.stop()
    }

    /// `runs` windows of CPU (% of one core) and wake-ups per second (voluntary + involuntary
    /// context switches of all threads), reported as `daemon.<name>.wakeups_per_s` (target: no
    /// periodic wake-up) and `daemon.<name>.cpu`, and whether the daemon has the IIO buffer enabled.
    func idleFigures(name: String, label: String, probe: ProcessProbe, mock: MockAccelerometer) {
        var cpu: [Double] = [], wakeups: [Double] = []
        for _ in 0..<runs {
            let a = probe.snapshot()
            usleep(UInt32(windowSeconds * 1e6))
            let b = probe.snapshot()
            let seconds = Double(b.time - a.time) * 1e-9
            cpu.append(Double(b.cpuNanoseconds - a.cpuNanoseconds) / (seconds * 1e9) * 100)
            wakeups.append(Double(b.voluntarySwitches - a.voluntarySwitches + b.involuntarySwitches
                                  - a.involuntarySwitches) / seconds)
        }
        reporter.report(Measurement(name: "daemon.\(name).wakeups_per_s", unit: "1/s", samples: wakeups,
                                    target: "0 (no periodic wake-up)", check: { $0 < 0.5 }))
        reporter.report(Measurement(name: "daemon.\(name).cpu", unit: "% of one core", samples: cpu))
        reporter.note("\(label): IIO buffer enabled = \(mock.bufferEnabled ? "yes (sensor read while idle!)" : "no (0 sensor reads)")")
    }

    // MARK: - Start-up

    /// `runs` cold starts each of the IIO configuration under umockdev and of the replay
    /// configuration without preload; the replay daemon's idle RSS is reported as well (the
    /// figure without umockdev's preload library and GLib in the process).
    func startupFigures(_ executable: String, _ directory: String) throws {
        let mock = try MockAccelerometer()
        let iioConfig = try writeConfig(directory, name: "startup-iio", body: """
            [sensor]
            source = iio
            [server]
            socket = \(directory)/startup-iio.sock
            [calibration]
            file = \(directory)/no-calibration.conf
            """)
        let replayFile = packageRoot() + "/data/demo-recording.csv"
        let replayConfig = try writeConfig(directory, name: "startup-replay", body: """
            [sensor]
            source = replay
            replay_file = \(replayFile)
            replay_loop = yes
            [server]
            socket = \(directory)/startup-replay.sock
            [calibration]
            file = \(directory)/no-calibration.conf
            """)
        var iio: [Double] = [], replay: [Double] = []
        var replayRSS: Double?
        for run in 0..<(runs + 1) {
            let a = try DaemonProcess(executable: executable, arguments: ["-c", iioConfig, "--foreground"],
                                      environment: mock.environment, directory: directory, name: "startup-iio")
            let ta = try a.waitForReady(timeoutSeconds: 20)
            a.stop()
            let b = try DaemonProcess(executable: executable, arguments: ["-c", replayConfig, "--foreground"],
                                      environment: [:], directory: directory, name: "startup-replay")
            let tb = try b.waitForReady(timeoutSeconds: 20)
            if run == runs {
                usleep(300_000)
                replayRSS = ProcessProbe(pid: b.pid).memoryKilobytes().map { Double($0.rss) / 1024 }
            }
            b.stop()
            guard run > 0 else { continue }  // the first start warms the page cache
            iio.append(Double(ta) / 1e6)
            replay.append(Double(tb) / 1e6)
        }
        reporter.report(Measurement(name: "daemon.startup_to_ready.iio_umockdev", unit: "ms", samples: iio,
                                    target: "≤ 100", check: { $0 <= 100 }))
        reporter.report(Measurement(name: "daemon.startup_to_ready.replay", unit: "ms", samples: replay,
                                    target: "≤ 100", check: { $0 <= 100 }))
        if let replayRSS {
            reporter.report(Measurement(name: "daemon.rss_idle.replay", unit: "MB", samples: [replayRSS],
                                        target: "≤ 16", check: { $0 <= 16 }))
        }
    }

    // MARK: - Latency

    /// Per run: p50 and p99 (µs) over every (sample, watcher) pair; plus the count of samples
    /// that produced no STATE within 250 ms in some watcher.
    func latency(watchers count: Int, socketPath: String, mock: MockAccelerometer) throws
        -> (p50: [Double], p99: [Double], missing: Int, split: LatencySplit) {
        var split = LatencySplit()
        let clients = try (0..<count).map { _ in try WatchClient(socketPath: socketPath) }
        for c in clients { try c.watch(maxRateHz: 60) }
        var p50: [Double] = [], p99: [Double] = []
        var missing = 0
        var phase = 0
        let debug = getenv("CAROUSEL_BENCH_DEBUG") != nil
        let sampleClient = debug ? try WatchClient(socketPath: socketPath) : nil
        if let sampleClient {
            try sampleClient.send("{\"cmd\":\"samples\",\"enable\":true}")
            _ = try sampleClient.waitFor(class: "ACK", timeoutSeconds: 5)
        }
        // One warm-up run (the buffer is just enabled, the estimator starts), then `runs` runs.
        for run in 0..<(runs + 1) {
            var latencies: [Double] = [], toDaemon: [Double] = [], inDaemon: [Double] = []
            for _ in 0..<samplesPerRun {
                for c in clients { c.drain(); _ = c.takeLines() }
                // A 20° sine of 20 samples (1.67 Hz at 30 ms spacing): well inside the 5 Hz
                // low-pass, and even at its peaks each step moves the roll by about 1°, ten times
                // the publishing threshold. (Alternating two values would not do: the
                // Butterworth biquad has its zero at Nyquist and cancels that pattern.)
                phase += 1
                let roll = 20 * sin(2 * Double.pi * Double(phase % 20) / 20)
                let written = try mock.push(rollDegrees: roll)
                var arrival = [Int64?](repeating: nil, count: count)
                // The STATE's `time_ns`: when the daemon's loop took the sample's wake-up.
                var stateTime = [Int64?](repeating: nil, count: count)
                // 250 ms: far beyond any p99 seen, short enough that a sample with no STATE of its
                // own (see the note printed below) does not stall the run.
                let deadline = written + 250_000_000
                var fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                // While waiting, the harness only receives (each `recv` timestamped) and looks for
                // a STATE in the raw bytes; lines are parsed once every watcher has its STATE, so
                // the harness's own parsing never delays the next watcher's `recv`.
                var received = [Bool](repeating: false, count: count)
                while received.contains(false) {
                    let now = BenchClock.monotonicNanoseconds()
                    guard now < deadline else { break }
                    for i in fds.indices { fds[i].revents = 0 }
                    _ = poll(&fds, nfds_t(fds.count), Int32(max(1, (deadline - now) / 1_000_000)))
                    for (i, c) in clients.enumerated() where !received[i] && fds[i].revents != 0 {
                        c.receive()
                        received[i] = c.hasPendingState
                    }
                }
                for (i, c) in clients.enumerated() {
                    c.splitLines()
                    if let state = c.takeLines().first(where: { $0.text.contains("\"class\":\"STATE\"") }) {
                        arrival[i] = state.at
                        if let t = (try? WireJSONParser.parse(state.text))?["time_ns"]?.doubleValue {
                            stateTime[i] = Int64(t)
                        }
                    }
                }
                if arrival.contains(where: { $0 == nil }) { missing += 1 }
                if debug, let sampleClient {
                    usleep(5000)
                    sampleClient.drain()
                    for l in sampleClient.takeLines() where l.text.contains("SAMPLE") {
                        let t = "  SAMPLE +\((l.at - written) / 1000) µs \(l.text)\n"
                        _ = t.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                    }
                    let text = "sample phase \(phase % 20) roll \(roll): \(arrival.map { $0.map { String(($0 - written) / 1000) } ?? "none" })\n"
                    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                }
                latencies += arrival.compactMap { $0.map { Double($0 - written) / 1000 } }
                for (t, a) in zip(stateTime, arrival) {
                    guard let t, let a else { continue }
                    toDaemon.append(Double(t - written) / 1000)
                    inDaemon.append(Double(a - t) / 1000)
                }
                // Space samples 30 ms apart (more than 1/max_rate_hz).
                let next = written + 30_000_000
                let now = BenchClock.monotonicNanoseconds()
                if next > now { usleep(UInt32((next - now) / 1000)) }
            }
            guard run > 0 else { missing = 0; continue }
            p50.append(Statistics.percentile(latencies, 50))
            p99.append(Statistics.percentile(latencies, 99))
            split.wakeP50.append(Statistics.percentile(toDaemon, 50))
            split.wakeP99.append(Statistics.percentile(toDaemon, 99))
            split.sendP50.append(Statistics.percentile(inDaemon, 50))
            split.sendP99.append(Statistics.percentile(inDaemon, 99))
        }
        return (p50, p99, missing, split)
    }

    /// Per-run percentiles of the two parts of each latency, µs.
    struct LatencySplit {
        var wakeP50: [Double] = [], wakeP99: [Double] = [], sendP50: [Double] = [], sendP99: [Double] = []
    }

    // MARK: - 256 watchers

    /// CPU of the daemon per window (% of one core) while `count` watchers are sent STATE at
    /// 60 Hz, and the STATE rate each watcher received.
    func manyWatchers(_ count: Int, socketPath: String, mock: MockAccelerometer, probe: ProcessProbe) throws
        -> (cpu: [Double], statesPerSecond: [Double]) {
        let control = try WatchClient(socketPath: socketPath)
        try control.send("{\"cmd\":\"set_tilt\",\"enabled\":true}")
        _ = try control.waitFor(class: "ACK", timeoutSeconds: 10)
        let clients = try (0..<count).map { _ in try WatchClient(socketPath: socketPath) }
        for c in clients { try c.watch(maxRateHz: 60) }
        var fds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var cpu: [Double] = [], rates: [Double] = []
        var nextSample = BenchClock.monotonicNanoseconds()
        // Stream 20° of roll at 100 Hz; drain every client; a warm-up window, then `runs` windows.
        for window in 0..<(runs + 1) {
            var states = 0
            let start = probe.snapshot()
            let end = start.time + Int64(windowSeconds * 1e9)
            while BenchClock.monotonicNanoseconds() < end {
                let now = BenchClock.monotonicNanoseconds()
                if now >= nextSample {
                    try mock.push(rollDegrees: 20)
                    nextSample += 10_000_000
                    if nextSample < now { nextSample = now + 10_000_000 }
                }
                for i in fds.indices { fds[i].revents = 0 }
                let wait = max(0, (nextSample - BenchClock.monotonicNanoseconds()) / 1_000_000)
                _ = poll(&fds, nfds_t(fds.count), Int32(min(wait, 10)))
                for (i, c) in clients.enumerated() where fds[i].revents != 0 {
                    c.drain()
                    states += c.takeLines().count { $0.text.contains("\"class\":\"STATE\"") }
                }
                control.drain()
                _ = control.takeLines()
            }
            let stop = probe.snapshot()
            guard window > 0 else { continue }
            let seconds = Double(stop.time - start.time) * 1e-9
            cpu.append(Double(stop.cpuNanoseconds - start.cpuNanoseconds) / (seconds * 1e9) * 100)
            rates.append(Double(states) / Double(count) / seconds)
        }
        return (cpu, rates)
    }

    // MARK: - Helpers

    /// `--carouseld PATH`, else `carouseld` next to this executable.
    func daemonExecutable() throws -> String {
        if let carouseldPath {
            guard access(carouseldPath, X_OK) == 0 else {
                throw BenchError("--carouseld \(carouseldPath): not an executable file (\(String(cString: strerror(errno))))")
            }
            return carouseldPath
        }
        guard let me = RunningExecutable.path() else { throw BenchError.system("readlink /proc/self/exe") }
        let dir = me.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = dir + "/carouseld"
        guard access(path, X_OK) == 0 else {
            throw BenchError("no carouseld at \(path): build it (swift build -c release --product carouseld) or pass --carouseld PATH")
        }
        return path
    }

    /// The package root: the working directory when it has Package.swift, else three levels
    /// above the executable (`.build/<triple>/release/carousel-bench`).
    func packageRoot() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        if getcwd(&buffer, buffer.count) != nil {
            let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if access(cwd + "/Package.swift", R_OK) == 0 { return cwd }
        }
        guard let me = RunningExecutable.path() else { return "." }
        return me.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
    }

    func writeConfig(_ directory: String, name: String, body: String) throws -> String {
        let path = directory + "/\(name).conf"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError.system("open \(path)") }
        defer { close(fd) }
        let bytes = Array((body + "\n").utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BenchError.system("write \(path)")
        }
        return path
    }

    /// A private directory for one benchmark's files (mkdtemp under /tmp), removed on SIGINT too.
    /// - Throws: `BenchError.system` when mkdtemp fails.
    func makeScratchDirectory() throws -> String {
        var template = Array("/tmp/carousel-bench.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw BenchError.system("mkdtemp")
        }
        let directory = String(cString: made)
        ChildRegistry.removeOnInterrupt(directory)
        return directory
    }

    /// Removes a directory of `makeScratchDirectory` and forgets it.
    func removeScratchDirectory(_ directory: String) {
        removeDirectory(directory)
        ChildRegistry.forgetDirectory(directory)
    }

    /// Removes the benchmark's files (flat directory) and the directory.
    func removeDirectory(_ directory: String) {
        guard let dir = opendir(directory) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(directory + "/" + name) }
        }
        closedir(dir)
        rmdir(directory)
    }
}
