/// Exponential reconnection backoff with jitter: the n-th consecutive failure waits
/// `min(maximum, minimum · 2ⁿ)` seconds scaled by a factor in [0.5, 1) so that a fleet of
/// bridges restarted together does not reconnect in lockstep (the "equal jitter" scheme).
/// Reset by its owner once a connection has succeeded (the bridge: once a broker connection has
/// held, so that connections dropped at once count as one streak).
public struct Backoff: Sendable, Equatable {
    /// The first wait and the cap of the doubling, seconds (before the jitter).
    public let minimumSeconds: Double
    public let maximumSeconds: Double
    /// Consecutive failures so far.
    public private(set) var failures = 0

    /// - Parameters: `minimumSeconds` > 0; `maximumSeconds` below it is raised to it.
    public init(minimumSeconds: Double, maximumSeconds: Double) {
        self.minimumSeconds = minimumSeconds
        self.maximumSeconds = max(minimumSeconds, maximumSeconds)
    }

    /// The delay before the next attempt after one more failure, seconds.
    /// - Parameter jitter: a uniform random number in [0, 1).
    public mutating func nextDelaySeconds(jitter: Double) -> Double {
        let exponent = min(failures, 30)
        failures += 1
        var base = minimumSeconds
        for _ in 0..<exponent where base < maximumSeconds { base *= 2 }
        base = min(base, maximumSeconds)
        return base * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// A connection succeeded: the next failure starts again at `minimumSeconds`.
    public mutating func reset() { failures = 0 }
}
