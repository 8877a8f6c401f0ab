/// What a timestamped filter does with the step `dt` between two samples (shared by the
/// one-pole and biquad low-passes).
enum SampleStep {
    /// First sample, or the first after `reset()`.
    case first
    /// `dt ≤ 0`: a duplicate or out-of-order sample; it is ignored and the output held.
    case duplicate
    /// A normal step of `dt` seconds.
    case step(Double)
    /// `dt` larger than the gap limit: the filter restarts from this sample.
    case gap

    static func classify(previous: Double?, now: Double, gapSeconds: Double) -> SampleStep {
        guard let previous else { return .first }
        let dt = now - previous
        if !(dt > 0) { return .duplicate }
        if dt > gapSeconds { return .gap }
        return .step(dt)
    }
}

/// `b − a` in seconds, for integer nanosecond timestamps: one exact integer difference
/// converted once. A difference beyond Int64 (timestamps 292 years apart, only from a corrupt
/// file) is computed in `Double` instead of wrapping around to a small step.
@inline(__always) func secondsBetween(_ a: Int64, _ b: Int64) -> Double {
    let (difference, overflow) = b.subtractingReportingOverflow(a)
    return overflow ? (Double(b) - Double(a)) * 1e-9 : Double(difference) * 1e-9
}
