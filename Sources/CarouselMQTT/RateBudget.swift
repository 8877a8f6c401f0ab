/// A token bucket: at most `burst` events at once and `ratePerSecond` on average, counting the
/// events it refuses. Pure: the caller passes CLOCK_MONOTONIC nanoseconds.
///
/// The bridge spends it on command errors (docs/MQTT.md "Commands and error"): each error it
/// admits is one publication on `error` and one log line; a flood of bad commands costs at most
/// `burst + ratePerSecond · t` of each in `t` seconds, plus one line a second counting the rest.
public struct RateBudget: Sendable, Equatable {
    /// Events admitted per second once the burst is spent.
    public let ratePerSecond: Double
    /// Events admitted at once from a full budget.
    public let burst: Int
    private var tokens: Double
    private var updatedAt: Int64?
    /// Events refused since the last `takeRefused()`.
    public private(set) var refused = 0

    /// - Parameters:
    ///   - ratePerSecond: tokens added a second, > 0.
    ///   - burst: the bucket's size, ≥ 1; it starts full.
    public init(ratePerSecond: Double, burst: Int) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
        tokens = Double(self.burst)
    }

    /// Takes a token if there is one; otherwise counts the event as refused.
    public mutating func admit(now: Int64) -> Bool {
        if let updatedAt, now > updatedAt {
            tokens = min(Double(burst), tokens + Double(now - updatedAt) * 1e-9 * ratePerSecond)
        }
        updatedAt = max(updatedAt ?? now, now)
        guard tokens >= 1 else {
            refused += 1
            return false
        }
        tokens -= 1
        return true
    }

    /// The refused count, reset to 0.
    public mutating func takeRefused() -> Int {
        defer { refused = 0 }
        return refused
    }
}
