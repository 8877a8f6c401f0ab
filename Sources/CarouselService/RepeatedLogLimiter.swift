import CarouselPosix

/// Keeps one broken thing from flooding the journal (systemd-journald's own rate limit would
/// drop the daemon's other lines with it): of a run of identical lines (same level and text),
/// the first is written, then at most one per `intervalNanoseconds`, carrying how many were
/// held back since the last one written, as `… (suppressed 12 similar messages)`.
///
/// A sensor that cannot start is retried on every loop wake-up, up to `max_rate_hz` times a
/// second while watchers wait; this is what keeps its error to one line per interval.
public final class RepeatedLogLimiter {
    /// The shortest time between two writes of the same line, nanoseconds (10 s by default).
    public let intervalNanoseconds: Int64
    private let clock: MonotonicClock
    private struct Run {
        var lastWrittenNanoseconds: Int64
        var suppressed: Int
    }
    private var runs: [String: Run] = [:]
    /// Lines remembered at most; older runs are forgotten first (a forgotten line is written
    /// again at once, which is harmless).
    private static let capacity = 64

    /// - Parameters:
    ///   - intervalSeconds: at most one identical line per this many seconds.
    ///   - clock: CLOCK_MONOTONIC; a scripted clock in tests.
    public init(intervalSeconds: Double = 10, clock: MonotonicClock = SystemMonotonicClock.shared) {
        intervalNanoseconds = Int64(intervalSeconds * 1e9)
        self.clock = clock
    }

    /// The line to write now for `message` at `level`, or nil when it is held back.
    public func admit(_ level: LogLevel, _ message: String) -> String? {
        let now = clock.nowNanoseconds()
        let key = "\(level.rawValue) \(message)"
        guard var run = runs[key] else {
            if runs.count >= Self.capacity { forgetOldest() }
            runs[key] = Run(lastWrittenNanoseconds: now, suppressed: 0)
            return message
        }
        guard now - run.lastWrittenNanoseconds >= intervalNanoseconds else {
            run.suppressed += 1
            runs[key] = run
            return nil
        }
        let held = run.suppressed
        runs[key] = Run(lastWrittenNanoseconds: now, suppressed: 0)
        guard held > 0 else { return message }
        return "\(message) (suppressed \(held) similar message\(held == 1 ? "" : "s"))"
    }

    private func forgetOldest() {
        if let oldest = runs.min(by: { $0.value.lastWrittenNanoseconds < $1.value.lastWrittenNanoseconds }) {
            runs[oldest.key] = nil
        }
    }
}

extension Logger {
    /// This logger with identical lines limited by `limiter` (each keeps its level).
    public func limited(by limiter: RepeatedLogLimiter) -> LogSink {
        { level, message in
            guard self.isEnabled(level), let line = limiter.admit(level, message) else { return }
            self.log(level, line)
        }
    }
}
