#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// An attitude estimate reduced to what tilt needs: the unit "up" vector in the device frame,
/// with roll and pitch as defined in docs/FUSION.md "1. Conventions" (mobile-device naming, roll about y, pitch
/// about x):
///
/// - `pitch = atan2(u_y, u_z)` in (−π, π], positive when the top edge rises;
/// - `roll = atan2(−u_x, √(u_y² + u_z²))` in [−π/2, π/2], positive when the right edge goes down;
/// - so `u = (−sin roll, cos roll · sin pitch, cos roll · cos pitch)`.
///
/// Flat and face up: `u = (0, 0, 1)`, roll = pitch = 0. "No data" is represented by the
/// absence of an estimate (`TiltEstimate?` = `nil`), never by NaN or a fake 0°.
public struct TiltEstimate: Equatable, Sendable {
    /// Time of the sample this estimate belongs to, seconds (the estimator's time base:
    /// seconds since its first sample).
    public var timeSeconds: Double
    /// Unit up vector in the device frame (direction of the specific force at rest).
    public var up: Vector3

    /// - Parameter up: any non-zero vector; it is normalised. A zero or non-finite vector gives
    ///   `(0, 0, 1)`, so callers must check their input first (the estimators do).
    public init(timeSeconds: Double, up: Vector3) {
        self.timeSeconds = timeSeconds
        self.up = up.normalized ?? Vector3(0, 0, 1)
    }

    /// For vectors already of unit length (estimator outputs): skips the normalisation.
    init(timeSeconds: Double, unitUp: Vector3) {
        self.timeSeconds = timeSeconds
        self.up = unitUp
    }

    /// Builds the estimate for given roll and pitch (radians), from the formula for `u` in docs/FUSION.md "1.
    /// Conventions".
    public init(timeSeconds: Double, roll: Double, pitch: Double) {
        self.timeSeconds = timeSeconds
        self.up = Vector3(-sin(roll), cos(roll) * sin(pitch), cos(roll) * cos(pitch))
    }

    /// Roll, radians in [−π/2, π/2], positive when the right edge goes down.
    public var roll: Double { atan2(-up.x, (up.y * up.y + up.z * up.z).squareRoot()) }

    /// Pitch, radians in (−π, π], positive when the top edge rises.
    public var pitch: Double {
        let p = atan2(up.y, up.z)
        return p == -Double.pi ? Double.pi : p
    }

    /// Roll in degrees (for CLI output and the wire protocol).
    public var rollDegrees: Double { roll * 180 / Double.pi }
    /// Pitch in degrees.
    public var pitchDegrees: Double { pitch * 180 / Double.pi }

    /// Direction of gravity in the device frame (unit vector, `−up`).
    public var gravityDirection: Vector3 { -up }
}
