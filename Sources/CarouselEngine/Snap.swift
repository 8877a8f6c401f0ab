/// A motion from `startOffset` (moving at `startVelocity`) to `target`: a critically damped
/// spring in closed form, `x(τ) = target + (A + B τ) e^(−ω τ)` with `A = x0 − target` and
/// `B = v0 + ω A`, so the velocity is continuous at the start.
///
/// The spring never quite arrives, so the motion has a finite `duration`, found once at the start
/// on a fixed 1/240 s grid (the first grid time where the remaining distance is below
/// `distanceTolerance` and the speed below `speedTolerance`); from then on the offset is exactly
/// `target`. Because the duration and the curve depend only on the start values, the offset at
/// any time is the same however often `advance(to:)` is called.
public struct SnapMotion: Hashable, Sendable {
    /// Time the motion started, seconds.
    public var startTime: Double
    /// Offset at the start, points.
    public var startOffset: Double
    /// Velocity at the start, points per second.
    public var startVelocity: Double
    /// Where it lands, points.
    public var target: Double
    /// Natural angular frequency ω, rad/s.
    public var omega: Double
    /// Seconds from `startTime` until the offset is exactly `target`.
    public private(set) var duration: Double

    /// Default stiffness: ω = 14 rad/s (most of the way in about 0.3 s, done in about 1 s).
    public static let defaultOmega = 14.0
    /// Remaining distance (points) below which the motion ends.
    public static let distanceTolerance = 0.02
    /// Speed (pt/s) below which the motion may end.
    public static let speedTolerance = 1.0
    /// Longest motion, seconds (a safety bound; reached only by absurd velocities).
    public static let maximumDuration = 10.0

    public init(startTime: Double, startOffset: Double, startVelocity: Double, target: Double,
                omega: Double = SnapMotion.defaultOmega) {
        self.startTime = startTime
        self.startOffset = startOffset
        self.startVelocity = startVelocity.isFinite ? startVelocity : 0
        self.target = target
        self.omega = omega
        self.duration = 0
        self.duration = settleDuration()
    }

    /// The offset at `time` (seconds), points.
    public func offset(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return target }
        if tau <= 0 { return startOffset }
        return target + displacement(tau)
    }

    /// The velocity at `time`, points per second (0 once landed).
    public func velocity(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return 0 }
        return speed(max(tau, 0))
    }

    /// Whether the motion has landed by `time`.
    public func isFinished(at time: Double) -> Bool { time - startTime >= duration }

    /// The same motion with every offset multiplied by `factor` (a pitch change) or shifted by
    /// `shift` points (cyclic normalisation).
    func rescaled(by factor: Double, shiftedBy shift: Double = 0) -> SnapMotion {
        var m = self
        m.startOffset = startOffset * factor + shift
        m.startVelocity = startVelocity * factor
        m.target = target * factor + shift
        return m
    }

    private var a: Double { startOffset - target }
    private var b: Double { startVelocity + omega * a }

    private func displacement(_ tau: Double) -> Double { (a + b * tau) * exponential(-omega * tau) }
    private func speed(_ tau: Double) -> Double { (b - omega * (a + b * tau)) * exponential(-omega * tau) }

    private func settleDuration() -> Double {
        guard omega > 0, startOffset.isFinite, target.isFinite else { return 0 }
        let step = 1.0 / 240
        var k = 0.0
        while k * step < Self.maximumDuration {
            let tau = k * step
            if abs(displacement(tau)) < Self.distanceTolerance && abs(speed(tau)) < Self.speedTolerance {
                return tau
            }
            k += 1
        }
        return Self.maximumDuration
    }
}
