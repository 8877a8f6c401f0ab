/// A motion toward a target offset that lands exactly on it: either an exponential
/// deceleration (a release moving toward its target) or a critically damped spring (snaps,
/// animations, releases moving away from their target). Both are closed forms of the start
/// values, so the offset at a given time does not depend on how often `advance(to:)` runs.
public enum Motion: Hashable, Sendable {
    case deceleration(DecelerationMotion)
    case spring(SnapMotion)
    /// Free scroll's sticky release: the deceleration until `spring.startTime`, then the spring
    /// (which starts from the deceleration's offset and velocity at that time).
    case sticky(DecelerationMotion, SnapMotion)

    /// A sticky free-scroll release: glide toward the free rest point `glideTarget` until the
    /// speed has fallen to `snapSpeed` (pt/s), then spring to `snapTarget`. A release that
    /// cannot glide (velocity away from `glideTarget`, too weak, or already no faster than
    /// `snapSpeed`) is a plain release toward `snapTarget`.
    public static func sticky(startTime: Double, offset: Double, velocity: Double, glideTarget: Double,
                              snapTarget: Double, snapSpeed: Double) -> Motion {
        guard abs(velocity) > snapSpeed,
              let glide = DecelerationMotion(startTime: startTime, startOffset: offset, startVelocity: velocity,
                                             target: glideTarget) else {
            return .release(startTime: startTime, offset: offset, velocity: velocity, target: snapTarget)
        }
        // u · e^(−k τ) = snapSpeed, at the latest when the glide lands.
        let tau = glide.startSpeed > snapSpeed
            ? min(naturalLog(glide.startSpeed / snapSpeed) / glide.rate, glide.duration) : 0
        let switchTime = startTime + tau
        return .sticky(glide, SnapMotion(startTime: switchTime, startOffset: glide.offset(at: switchTime),
                                         startVelocity: glide.velocity(at: switchTime), target: snapTarget))
    }

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
        case let .spring(m), let .sticky(_, m): return m.target
        }
    }

    public func offset(at time: Double) -> Double {
        switch self {
        case let .deceleration(m): return m.offset(at: time)
        case let .spring(m): return m.offset(at: time)
        case let .sticky(glide, spring):
            return time < spring.startTime ? glide.offset(at: time) : spring.offset(at: time)
        }
    }

    public func velocity(at time: Double) -> Double {
        switch self {
        case let .deceleration(m): return m.velocity(at: time)
        case let .spring(m): return m.velocity(at: time)
        case let .sticky(glide, spring):
            return time < spring.startTime ? glide.velocity(at: time) : spring.velocity(at: time)
        }
    }

    /// The time the motion lands on `target`, seconds.
    public var endTime: Double {
        switch self {
        case let .deceleration(m): return m.startTime + m.duration
        case let .spring(m), let .sticky(_, m): return m.startTime + m.duration
        }
    }

    public func isFinished(at time: Double) -> Bool {
        switch self {
        case let .deceleration(m): return m.isFinished(at: time)
        case let .spring(m), let .sticky(_, m): return m.isFinished(at: time)
        }
    }

    func rescaled(by factor: Double, shiftedBy shift: Double) -> Motion {
        switch self {
        case let .deceleration(m): return .deceleration(m.rescaled(by: factor, shiftedBy: shift))
        case let .spring(m): return .spring(m.rescaled(by: factor, shiftedBy: shift))
        case let .sticky(glide, spring):
            return .sticky(glide.rescaled(by: factor, shiftedBy: shift), spring.rescaled(by: factor, shiftedBy: shift))
        }
    }
}

/// UIScrollView's deceleration, adjusted to land on a paging target and to end crisply.
///
/// UIScrollView's speed decays as `v0 · d^(1000 τ)` and it stops once the speed falls under a
/// threshold. Here the speed decays as `u · e^(−k τ)` and the decay rate `k` is chosen so that
/// the motion covers exactly the distance `D = |target − x0|` by the time the speed has fallen
/// to `stopSpeed`: `k = (|v0| − stopSpeed) / D`, so
/// `x(τ) = x0 ± (u / k) · (1 − e^(−k τ))`, ending at `τ_end = ln(u / stopSpeed) / k` exactly on
/// the target (the position is continuous; the speed steps from `stopSpeed` to 0, like UIKit's
/// stop). For momentum paging the target is near the projected rest point, so `k` is close to
/// UIScrollView's `−1000 ln d` (2.0 1/s at 0.998): the release velocity is kept (`u = |v0|`) and
/// the curve is UIScrollView's, only shorter by the invisible tail (a 1000 pt/s release at 0.998
/// settles in about 2.4 s instead of about 3.5 s to come within half a point).
///
/// `k` is at most `maximumRate` (a strong release onto a near target then starts at
/// `u = k · D + stopSpeed` < |v0|, stopping at the page as UIKit does); a release too weak to
/// coast to its target (`k` below `minimumRate`) is not a deceleration: `Motion.release` uses a
/// spring, which keeps the velocity continuous.
public struct DecelerationMotion: Hashable, Sendable {
    public var startTime: Double
    public var startOffset: Double
    public var target: Double
    /// Speed at the start, `u`, points per second (> `stopSpeed`).
    public var startSpeed: Double
    /// Decay rate k, 1/s.
    public var rate: Double
    /// Seconds from `startTime` until the offset is exactly `target`.
    public var duration: Double

    /// The speed at which the motion stops on its target, points per second (1/6 point per
    /// 60 Hz frame, half a pixel on a 3× screen: the last step is not visible as a stop).
    public static let stopSpeed = 10.0
    /// Slowest decay, 1/s (time constant 1 s, half of UIScrollView's normal rate 0.998).
    public static let minimumRate = 1.0
    /// Fastest decay, 1/s (time constant 25 ms).
    public static let maximumRate = 40.0

    /// `nil` when the velocity does not point toward the target (or either is zero), or is too
    /// weak to coast there (`(|v0| − stopSpeed) / D < minimumRate`).
    public init?(startTime: Double, startOffset: Double, startVelocity: Double, target: Double) {
        let distance = abs(target - startOffset)
        guard distance > 0, distance.isFinite, startVelocity.isFinite, startVelocity * (target - startOffset) > 0 else {
            return nil
        }
        let needed = (abs(startVelocity) - Self.stopSpeed) / distance
        guard needed >= Self.minimumRate else { return nil }
        self.startTime = startTime
        self.startOffset = startOffset
        self.target = target
        rate = min(needed, Self.maximumRate)
        startSpeed = rate * distance + Self.stopSpeed
        duration = naturalLog(startSpeed / Self.stopSpeed) / rate
    }

    /// +1 toward higher offsets, −1 toward lower ones.
    private var direction: Double { target >= startOffset ? 1 : -1 }

    public func offset(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return target }
        if tau <= 0 { return startOffset }
        return startOffset + direction * startSpeed / rate * (1 - exponential(-rate * tau))
    }

    public func velocity(at time: Double) -> Double {
        let tau = time - startTime
        if tau >= duration { return 0 }
        return direction * startSpeed * exponential(-rate * max(tau, 0))
    }

    public func isFinished(at time: Double) -> Bool { time - startTime >= duration }

    /// The same motion with every offset multiplied by `factor` (a pitch change; the speeds
    /// scale with it, the duration does not) or shifted by `shift` points.
    func rescaled(by factor: Double, shiftedBy shift: Double) -> DecelerationMotion {
        var m = self
        m.startOffset = startOffset * factor + shift
        m.target = target * factor + shift
        m.startSpeed = startSpeed * abs(factor)
        return m
    }
}
