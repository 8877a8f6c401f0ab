/// A motion toward a target offset that lands exactly on it: either an exponential
/// deceleration (a release moving toward its target) or a critically damped spring (snaps,
/// animations, releases moving away from their target). Both are closed forms of the start
/// values, so the offset at a given time does not depend on how often `advance(to:)` runs.
public enum Motion: Hashable, Sendable {
    case deceleration(DecelerationMotion)
    case spring(SnapMotion)

    /// A release at `offset` with `velocity` (pt/s) toward `target`: a deceleration when the
    /// velocity points at the target, else a spring that turns the carousel around.
    public static func release(startTime: Double, offset: Double, velocity: Double, target: Double) -> Motion {
        if let d = DecelerationMotion(startTime: startTime, startOffset: offset, startVelocity: velocity, target: target) {
            return .deceleration(d)
        }
        return .spring(SnapMotion(startTime: startTime, startOffset: offset, startVelocity: velocity, target: target))
    }

    public var target: Double {
        switch self {
        case let .deceleration(m): return m.target
        case let .spring(m): return m.target
        }
    }

    public func offset(at time: Double) -> Double {
        switch self {
        case let .deceleration(m): return m.offset(at: time)
        case let .spring(m): return m.offset(at: time)
        }
    }

    public func velocity(at time: Double) -> Double {
        switch self {
        case let .deceleration(m): return m.velocity(at: time)
        case let .spring(m): return m.velocity(at: time)
        }
    }

    public func isFinished(at time: Double) -> Bool {
        switch self {
        case let .deceleration(m): return m.isFinished(at: time)
        case let .spring(m): return m.isFinished(at: time)
        }
    }

    func rescaled(by factor: Double, shiftedBy shift: Double) -> Motion {
        switch self {
        case let .deceleration(m): return .deceleration(m.rescaled(by: factor, shiftedBy: shift))
        case let .spring(m): return .spring(m.rescaled(by: factor, shiftedBy: shift))
        }
    }
}

/// UIScrollView-style deceleration bent to land on a paging target: `x(τ) = target − (target −
/// x0) · e^(−k τ)` with `k = v0 / (target − x0)`, so the release velocity is kept and the speed
/// decays exponentially, as UIScrollView's `v · rate^(1000 τ)` does (for momentum paging with the
/// target at the projected rest point, `k = −1000 ln rate` exactly). `k` is kept within
/// [`minimumRate`, `maximumRate`] so that a weak release does not crawl and a strong one does not
/// stop dead. The motion ends, exactly on the target, once the speed `k · remaining` drops to
/// 1 pt/s.
public struct DecelerationMotion: Hashable, Sendable {
    public var startTime: Double
    public var startOffset: Double
    public var target: Double
    /// Decay rate k, 1/s.
    public var rate: Double
    /// Seconds from `startTime` until the offset is exactly `target`.
    public var duration: Double

    /// Slowest decay, 1/s (time constant 1 s, twice UIScrollView's normal rate 0.998).
    public static let minimumRate = 1.0
    /// Fastest decay, 1/s (time constant 25 ms).
    public static let maximumRate = 40.0

    /// `nil` when the velocity does not point toward the target (or either is zero).
    public init?(startTime: Double, startOffset: Double, startVelocity: Double, target: Double) {
        let distance = target - startOffset
        guard distance != 0, startVelocity.isFinite, startVelocity * distance > 0 else { return nil }
        self.startTime = startTime
        self.startOffset = startOffset
        self.target = target
        rate = min(max(startVelocity / distance, Self.minimumRate), Self.maximumRate)
        let stopDistance = SnapMotion.speedTolerance / rate
        duration = abs(distance) > stopDistance ? naturalLog(abs(distance) / stopDistance) / rate : 0
    }

    public func offset(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return target }
        if tau <= 0 { return startOffset }
        return target - (target - startOffset) * exponential(-rate * tau)
    }

    public func velocity(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return 0 }
        return rate * (target - startOffset) * exponential(-rate * max(tau, 0))
    }

    public func isFinished(at time: Double) -> Bool { time - startTime >= duration }

    func rescaled(by factor: Double, shiftedBy shift: Double) -> DecelerationMotion {
        var m = self
        m.startOffset = startOffset * factor + shift
        m.target = target * factor + shift
        return m
    }
}
