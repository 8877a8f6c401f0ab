import Glibc

/// `carousel-bench rates` (docs/PERFORMANCE.md K3): the daemon's CPU while it reads a buffered
/// accelerometer at 50, 100 and 200 Hz with no client (`always_on = yes`, tilt enabled on a
/// cyclic carousel held level so it stays at rest, the default estimator, which an
/// accelerometer-only device turns into `accel`
/// + 3 Hz low-pass), under umockdev with the scans written to the mock's FIFO at that rate:
/// one scan per write (one wake-up per scan, as the kernel does with `buffer/watermark` 1) and
/// five per write every five periods (one wake-up per 5 scans, as the kernel did when libiio
/// left the watermark at a 5-scan refill). CPU of all the daemon's threads from schedstat,
/// wake-ups from its context switches, `runs` windows of `windowSeconds` each after a warm-up.
extension DaemonBench {
    func runRates() throws {
        let executable = try daemonExecutable()
        let directory = try makeScratchDirectory()
        defer { removeScratchDirectory(directory) }
        reporter.section("sample rates (\(executable); IIO source: umockdev buffered accelerometer on a FIFO, no client)")
        for rate in [50, 100, 200] {
            for batch in [1, 5] {
                let (cpu, wakeups) = try rateWindows(executable, directory, rateHz: rate, batch: batch)
                let what = batch == 1 ? "wakeup_per_scan" : "wakeup_per_5_scans"
                reporter.report(Measurement(name: "daemon.cpu.rate_\(rate)hz.\(what)", unit: "% of one core", samples: cpu,
                                            target: batch == 1 && rate == 200 ? "< 1" : nil,
                                            check: batch == 1 && rate == 200 ? { $0 < 1 } : nil))
                reporter.report(Measurement(name: "daemon.wakeups_per_s.rate_\(rate)hz.\(what)", unit: "1/s", samples: wakeups))
            }
        }
    }

    private func rateWindows(_ executable: String, _ directory: String, rateHz: Int, batch: Int) throws
        -> (cpu: [Double], wakeups: [Double]) {
        let mock = try MockAccelerometer()
        let config = try writeConfig(directory, name: "rate-\(rateHz)-\(batch)", body: """
            [sensor]
            source = iio
            mode = buffered
            sample_rate_hz = \(rateHz)
            always_on = yes
            [carousel]
            count = 20
            cyclic = yes
            [server]
            socket = \(directory)/rate.sock
            socket_mode = 0600
            [calibration]
            file = \(directory)/no-calibration.conf
            """)
        let daemon = try DaemonProcess(executable: executable, arguments: ["-c", config, "--foreground"],
                                       environment: mock.environment, directory: directory, name: "carouseld-rate")
        defer { daemon.stop() }
        try daemon.waitForReady(timeoutSeconds: 20)
        let probe = ProcessProbe(pid: daemon.pid)
        let period = Int64(1_000_000_000 / rateHz) * Int64(batch)
        var next = BenchClock.monotonicNanoseconds()
        var cpu: [Double] = [], wakeups: [Double] = []
        for window in 0..<(runs + 1) {
            let a = probe.snapshot()
            let end = a.time + Int64(windowSeconds * 1e9)
            while BenchClock.monotonicNanoseconds() < end {
                try mock.push(rollDegrees: 0, count: batch, periodNanoseconds: Int64(1_000_000_000 / rateHz))
                next += period
                let now = BenchClock.monotonicNanoseconds()
                if next > now { usleep(UInt32((next - now) / 1000)) } else { next = now }
            }
            let b = probe.snapshot()
            guard window > 0 else { continue }
            let seconds = Double(b.time - a.time) * 1e-9
            cpu.append(Double(b.cpuNanoseconds - a.cpuNanoseconds) / (seconds * 1e9) * 100)
            wakeups.append(Double(b.voluntarySwitches - a.voluntarySwitches) / seconds)
        }
        return (cpu, wakeups)
    }
}
