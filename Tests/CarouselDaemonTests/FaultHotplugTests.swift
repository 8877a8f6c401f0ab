import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fault: the sensor unplugged and plugged back 100 times under load (issue 15), through
/// umockdev (the bmc150 fixture, buffered, streamed through its PTY).
///
/// Load: the device is held at roll −20° so that tilt scrolls the cyclic carousel without end and
/// three watchers are each due a STATE every 1/60 s. Every cycle, every watcher gets `SENSOR
/// absent` for the unplug and `SENSOR ok` for the replug, and STATEs showing `sensor: ok` again
/// while the replugged sensor streams: the daemon resumes every time and keeps every watcher.
@Suite(.serialized) struct FaultHotplugTests {
    static let cycles = 100

    /// Entries of `/proc/PID/fd`.
    static func descriptorCount(_ pid: pid_t) -> Int {
        guard let dir = opendir("/proc/\(pid)/fd") else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            if entry.pointee.d_name.0 != 0x2E { n += 1 }  // not "." or ".."
        }
        return n
    }

    @Test func aHundredUnplugReplugCyclesUnderLoadResumeTheSensorAndKeepEveryWatcher() throws {
        let bed = try UmockdevTestbed()
        let fixture = readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? ""
        try bed.add(description: fixture)
        let accelPath = EndToEndUmockdevTests.accelPath
        let block = fixture.split(separator: "\n\n").map(String.init).first { $0.contains("P: \(accelPath)\n") } ?? ""
        try #require(!block.isEmpty, "no block for \(accelPath) in the fixture")
        let d = try UmockdevDaemon("hotplug", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "1", "mode": "buffered"],
            "filter": ["method": "accel", "lowpass_hz": "0"],
            "tilt": ["enabled": "yes", "mode": "velocity"],
            "carousel": ["cyclic": "yes"],
        ])
        defer { d.kill() }
        let daemon = d.process, socketPath = d.socketPath
        _ = try d.client()  // the socket accepts
        let watchers = try (0..<3).map { _ in try CountingWatcher(socketPath: socketPath) }

        var timestamp: Int64 = 1_000_000_000
        /// Each watcher's `linesRead` when the current cycle began.
        var cycleStart = watchers.map(\.linesRead)
        /// Why a cycle failed: for each watcher, whether it saw `what` and every line it got in
        /// this cycle, in order; the daemon's own STATUS (what it believes) and its log.
        func failure(_ what: String, cycle: Int, done: (CountingWatcher) -> Bool) -> TestSupportError {
            let got = watchers.enumerated().map { i, w in
                "watcher \(i) (\(done(w) ? "saw it" : "did not")): \(w.report(since: cycleStart[i]))"
            }
            let status = (try? SocketClient(path: socketPath)).flatMap { c -> String? in
                _ = try? c.readLine(timeoutSeconds: 2)
                try? c.send(#"{"cmd":"status"}"#)
                return try? c.readLine(timeoutSeconds: 2)
            }
            // libiio prints five lines per unplug; the daemon's own lines are those that tell.
            let log = daemon.standardErrorSoFar.split(separator: "\n").filter { $0.hasPrefix("carouseld") }.suffix(12)
            return TestSupportError("cycle \(cycle): \(what) not seen by every watcher within 20 s;\n"
                + got.joined(separator: ";\n") + ";\ndaemon status: \(status ?? "no answer");\n"
                + "daemon log (its last \(log.count) lines): \(log.joined(separator: "\n"))")
        }
        /// Streams a scan at roll −20° every 20 ms (reading the watchers in between) until
        /// `done` holds for every watcher.
        func stream(_ what: String, cycle: Int, until done: (CountingWatcher) -> Bool) throws {
            let deadline = clinux_monotonic_ns() + 20_000_000_000
            while !watchers.allSatisfy(done) {
                guard clinux_monotonic_ns() < deadline else { throw failure(what, cycle: cycle, done: done) }
                try bed.stream(EndToEndUmockdevTests.scan(rollDegrees: -20, timestampNanoseconds: timestamp), to: "/dev/iio:device0")
                timestamp += 20_000_000
                for w in watchers { try w.drain(timeoutSeconds: 0.02 / Double(watchers.count)) }
                #expect(!watchers.contains { $0.closed }, "cycle \(cycle): a watcher was dropped")
            }
        }
        /// Reads the watchers (without streaming) until `done` holds for every one.
        func watch(_ what: String, cycle: Int, until done: (CountingWatcher) -> Bool) throws {
            let deadline = clinux_monotonic_ns() + 20_000_000_000
            while !watchers.allSatisfy(done) {
                guard clinux_monotonic_ns() < deadline else { throw failure(what, cycle: cycle, done: done) }
                for w in watchers { try w.drain(timeoutSeconds: 0.01) }
            }
        }

        var descriptors: [Int] = []
        for cycle in 0..<Self.cycles {
            cycleStart = watchers.map(\.linesRead)
            descriptors.append(Self.descriptorCount(daemon.pid))
            // The daemon's stderr is a pipe to this process: read it, or after ~60 KiB of log
            // (libiio prints five lines per unplug) the daemon would block writing its log.
            _ = daemon.standardErrorSoFar
            // Resumed: STATEs with sensor ok flow again (the carousel scrolls on the tilt).
            let states = watchers.map { $0.count("STATE") }
            try stream("scrolling with the sensor ok", cycle: cycle) { w in
                let i = watchers.firstIndex { $0 === w } ?? 0
                return w.count("STATE") >= states[i] + 3 && w.lastState?["sensor"] == .string("ok")
                    && w.lastState?["phase"] == .string("tilting")
            }
            let sensors = watchers.map { $0.sensorStatuses.count }
            bed.unplug(device: accelPath)
            try watch("SENSOR absent", cycle: cycle) { w in
                let i = watchers.firstIndex { $0 === w } ?? 0
                return w.sensorStatuses.count > sensors[i] && w.sensorStatuses.last == "absent"
            }
            try bed.plug(description: block)
            try watch("SENSOR ok", cycle: cycle) { w in
                let i = watchers.firstIndex { $0 === w } ?? 0
                return w.sensorStatuses.dropFirst(sensors[i]).contains("absent") && w.sensorStatuses.last == "ok"
            }
        }
        for w in watchers {
            // One absent and one ok per cycle, in that order, and no error on the way (a `stale`
            // between the replug and the first streamed scan would be true, so it is allowed).
            #expect(!w.sensorStatuses.contains("error"), "statuses: \(w.sensorStatuses)")
            // What a watcher was told before the first unplug (the current SENSOR after its first
            // STATE, `absent` before the sensor started, then `ok`) ends with its first `ok`.
            let statuses = w.sensorStatuses.filter { $0 != "stale" }.drop { $0 != "ok" }.dropFirst()
            #expect(statuses.count == 2 * Self.cycles, "statuses: \(w.sensorStatuses.suffix(6))")
            #expect(statuses.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? "absent" : "ok") },
                    "statuses: \(w.sensorStatuses.prefix(8))")
        }
        // Nothing leaks per cycle: the descriptors after the last replug are those of the first.
        descriptors.append(Self.descriptorCount(daemon.pid))
        #expect(descriptors.first == descriptors.last, "descriptors per cycle: \(descriptors)")
        let log = daemon.standardErrorSoFar
        // Each unplug is logged, but identical lines at most once per 10 s (the daemon's
        // RepeatedLogLimiter), so the test's ~20 s show a few lines, never 100.
        let removed = lineCount(of: "carouseld: warning: bmc150_accel (iio:device0) removed", in: log)
        #expect(removed >= 1 && removed < Self.cycles, "\(removed) 'removed' lines")
        #expect(lineCount(of: "carouseld: error:", in: log) == 0, "\(log.suffix(1000))")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit(timeoutSeconds: 10).status == 0)
    }
}
