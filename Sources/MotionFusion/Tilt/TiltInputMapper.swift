#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// Which tilt drives the carousel (config `[tilt] axis`).
public enum TiltAxis: String, CaseIterable, Sendable {
    /// Roll for a horizontal carousel, pitch for a vertical one (in display coordinates).
    case auto
    /// Left/right tilt of the screen as displayed.
    case roll
    /// Forward/back tilt of the screen as displayed.
    case pitch
}

/// How the picture is turned on the panel (config `[tilt] display_rotation`), clockwise as the
/// viewer sees it: the W3C `screen.orientation.angle` (and Android's `Display.getRotation()`),
/// which is 90 when the device was turned 90° counter-clockwise and the picture turned back
/// 90° clockwise to stay upright. For rotation `r` the picture's "right" is the device vector
/// `(cos r, −sin r, 0)` and its "up" is `(sin r, cos r, 0)`.
///
/// | rotation | picture right | picture up | device held | display roll ≈ | display pitch ≈ |
/// |---|---|---|---|---|---|
/// | 0 | +x | +y | `normal` | roll | pitch |
/// | 90 | −y | +x | `right-up` | pitch | −roll |
/// | 180 | −x | −y | `bottom-up` | −roll | −pitch |
/// | 270 | +y | −x | `left-up` | −pitch | roll |
///
/// So with the display rotated by 90° or 270°, a horizontal carousel follows the device's
/// pitch axis. (The ≈ columns hold for small angles; the mapper computes exact angles from the
/// up vector.)
public enum DisplayRotation: Int, CaseIterable, Sendable {
    case degrees0 = 0
    case degrees90 = 90
    case degrees180 = 180
    case degrees270 = 270

    /// Screen right and up as device-frame unit vectors.
    var axes: (right: Vector3, up: Vector3) {
        switch self {
        case .degrees0: return (Vector3(1, 0, 0), Vector3(0, 1, 0))
        case .degrees90: return (Vector3(0, -1, 0), Vector3(1, 0, 0))
        case .degrees180: return (Vector3(-1, 0, 0), Vector3(0, -1, 0))
        case .degrees270: return (Vector3(0, 1, 0), Vector3(-1, 0, 0))
        }
    }
}

/// The tilt handed to the carousel engine, relative to the neutral attitude, in display
/// coordinates (docs/FUSION.md "1. Conventions" definitions applied to the screen as the user sees it).
public struct TiltInput: Equatable, Sendable {
    /// Time of the estimate, seconds.
    public var timeSeconds: Double
    /// Roll relative to neutral, degrees (positive: the screen's right edge goes down).
    public var rollDegrees: Double
    /// Pitch relative to neutral, degrees (positive: the screen's top edge rises).
    public var pitchDegrees: Double
    /// The signed angle the engine treats as "roll", degrees: `rollDegrees` or `pitchDegrees`
    /// by `TiltAxis`. Sign rule ("downhill"): negative means the leading edge of the scroll
    /// axis is down — the left edge (horizontal) or the top edge (vertical) — and the engine
    /// then makes the content offset grow (docs/ENGINE.md "Tilt": roll < 0 makes the offset grow).
    public var driveDegrees: Double
}

/// Turns attitude estimates into the engine's tilt input: tilt relative to a neutral attitude
/// (from calibration, `recenter(on:)`, or slow neutral tracking), rotated into the display's
/// frame, and the axis that drives the carousel. The engine owns dead zone, maximum angle and
/// speed (docs/ENGINE.md "Tilt").
///
/// Relative tilt is computed on vectors, not by subtracting angles: the up vector is rotated
/// by the shortest-arc rotation that takes the neutral up vector to `(0, 0, 1)`, then its
/// roll and pitch are taken in display coordinates. This stays correct for any neutral
/// (a tablet held at 50° pitch) and never wraps. Neutral tracking moves the neutral up vector
/// toward the current one with time constant `neutralTrackingSeconds`
/// (`u₀ ← normalize(u₀ + (u − u₀)(1 − e^(−dt/τ)))`), so a slowly changing posture re-levels.
public struct TiltInputMapper: Sendable {
    public var axis: TiltAxis
    public var displayRotation: DisplayRotation
    /// Resolves `.auto`: true for a vertical carousel.
    public var scrollsVertically: Bool
    /// Time constant of slow neutral tracking, seconds; nil or ≤ 0: off.
    public var neutralTrackingSeconds: Double?
    /// The neutral attitude as a unit up vector (device frame).
    public private(set) var neutralUp: Vector3
    private var lastTime: Double?

    /// - Parameters:
    ///   - neutralRoll, neutralPitch: the neutral attitude, radians (docs/FUSION.md "1. Conventions" definitions).
    public init(axis: TiltAxis = .auto, displayRotation: DisplayRotation = .degrees0, scrollsVertically: Bool = false,
                neutralRoll: Double = 0, neutralPitch: Double = 0, neutralTrackingSeconds: Double? = nil) {
        self.axis = axis
        self.displayRotation = displayRotation
        self.scrollsVertically = scrollsVertically
        self.neutralTrackingSeconds = neutralTrackingSeconds
        self.neutralUp = TiltEstimate(timeSeconds: 0, roll: neutralRoll, pitch: neutralPitch).up
    }

    /// Neutral roll, radians.
    public var neutralRoll: Double { TiltEstimate(timeSeconds: 0, up: neutralUp).roll }
    /// Neutral pitch, radians.
    public var neutralPitch: Double { TiltEstimate(timeSeconds: 0, up: neutralUp).pitch }

    /// Sets the neutral attitude (radians), e.g. from a reloaded calibration.
    public mutating func setNeutral(roll: Double, pitch: Double) {
        neutralUp = TiltEstimate(timeSeconds: 0, roll: roll, pitch: pitch).up
    }

    /// Makes the attitude of `estimate` the neutral one (`recenter_tilt`).
    public mutating func recenter(on estimate: TiltEstimate) {
        neutralUp = estimate.up
    }

    /// Maps one estimate. Applies neutral tracking after computing the output, using the time
    /// since the previous call (non-positive steps do not track).
    public mutating func map(_ estimate: TiltEstimate) -> TiltInput {
        let relative = Quaternion(up: neutralUp).rotate(estimate.up)
        let (right, screenUp) = displayRotation.axes
        let d = Vector3(relative.dot(right), relative.dot(screenUp), relative.z)
        let display = TiltEstimate(timeSeconds: estimate.timeSeconds, up: d)
        let roll = display.rollDegrees
        let pitch = display.pitchDegrees
        let useRoll: Bool
        switch axis {
        case .auto: useRoll = !scrollsVertically
        case .roll: useRoll = true
        case .pitch: useRoll = false
        }

        if let tau = neutralTrackingSeconds, tau > 0, let last = lastTime {
            let dt = estimate.timeSeconds - last
            if dt > 0 {
                let k = oneMinusExpNegative(dt / tau)
                neutralUp = (neutralUp + (estimate.up - neutralUp) * k).normalized ?? neutralUp
            }
        }
        lastTime = estimate.timeSeconds
        return TiltInput(timeSeconds: estimate.timeSeconds, rollDegrees: roll, pitchDegrees: pitch,
                         driveDegrees: useRoll ? roll : pitch)
    }
}
