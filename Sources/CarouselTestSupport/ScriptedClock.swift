import CarouselPosix

/// A `MonotonicClock` whose time the test sets: `now` stays where it was put until the test
/// moves it, so time-dependent policies (stale after 5 periods, a re-enabled buffer, a
/// rate-limited log line) run without waiting for wall time.
public final class ScriptedClock: MonotonicClock {
    /// The current time, nanoseconds.
    public var now: Int64

    /// - Parameter start: the first reading, nanoseconds (any value: only differences matter).
    public init(start: Int64 = 1_000_000_000) { now = start }

    public func nowNanoseconds() -> Int64 { now }

    /// Moves the time forward by `milliseconds`.
    public func advance(milliseconds: Int64) { now += milliseconds * 1_000_000 }
}
