import CLinux

/// A source of the current time in nanoseconds on CLOCK_MONOTONIC, injected wherever a policy
/// depends on elapsed time (a sensor that goes stale, a buffer re-enabled after silence, a
/// replay's release times, a rate-limited log line), so tests can script the time instead of
/// waiting for it (swift-nio's `EmbeddedEventLoop` idea).
public protocol MonotonicClock: AnyObject {
    /// Now, nanoseconds on CLOCK_MONOTONIC (or the script's idea of it).
    func nowNanoseconds() -> Int64
}

/// The production clock: `clock_gettime(CLOCK_MONOTONIC)`.
public final class SystemMonotonicClock: MonotonicClock, Sendable {
    /// The one instance (it has no state).
    public static let shared = SystemMonotonicClock()
    private init() {}
    public func nowNanoseconds() -> Int64 { clinux_monotonic_ns() }
}
