/// UIScrollView's deceleration model: the velocity is multiplied by `rate` every millisecond
/// (`decelerationRate`, 0.998 normal, 0.99 fast), i.e. `v(t) = v0 · rate^(1000 t)`.
///
/// Integrating gives the offset `x(t) = x0 + v0 · (rate^(1000 t) − 1) / (1000 ln rate)` and the
/// rest point `x0 − v0 / (1000 ln rate)`: with 0.998, a release at 1000 pt/s travels
/// `1000 / (−1000 · ln 0.998) ≈ 499.5` points.
public enum Deceleration {
    /// The offset where a release at `offset` (points) with `velocity` (pt/s) comes to rest.
    /// A rate outside (0, 1) is clamped into it, so the result is always finite.
    public static func restOffset(from offset: Double, velocity: Double, rate: Double) -> Double {
        offset - velocity / (1000 * naturalLog(clampedRate(rate)))
    }

    /// The offset `seconds` after a release, by the closed form above.
    public static func offset(after seconds: Double, from offset: Double, velocity: Double, rate: Double) -> Double {
        let r = clampedRate(rate)
        let lnR = 1000 * naturalLog(r)
        return offset + velocity * (exponential(lnR * max(seconds, 0)) - 1) / lnR
    }

    /// The velocity (pt/s) `seconds` after a release.
    public static func velocity(after seconds: Double, velocity: Double, rate: Double) -> Double {
        velocity * exponential(1000 * naturalLog(clampedRate(rate)) * max(seconds, 0))
    }

    @inlinable static func clampedRate(_ rate: Double) -> Double {
        guard rate.isFinite else { return 0.998 }
        return min(max(rate, 0.5), 0.999999)
    }
}
