#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// Complementary filter on the gravity vector (never on Euler angles, which wrap at ±180°).
///
/// Each step first rotates the up-vector estimate by the gyroscope (the body turns by `ω dt`,
/// so a vector fixed in the earth frame turns by `−ω dt` in the body frame: `u̇ = u × ω`), then
/// blends it toward the measured accelerometer direction `â`:
/// `u ← normalize(u + α (â − u))` with `α = 1 − exp(−gain · dt)`. Hence `gain` (1/s) is the
/// inverse time constant of the accelerometer correction, independent of the sample rate.
/// Without a gyroscope the filter is a first-order low-pass of the direction.
/// It starts from the first accelerometer direction (no start-up ramp).
public struct ComplementaryFilter: Sendable {
    /// Accelerometer correction rate, 1/s (time constant `1 / gain` s).
    public var gain: Double
    public private(set) var up: Vector3?

    public init(gain: Double) { self.gain = gain }

    /// - Parameters:
    ///   - accelDirection: unit specific-force direction (device frame).
    ///   - gyro: angular rate, rad/s, or nil.
    ///   - dt: seconds since the previous sample (0 for a duplicate: no rotation, no blend).
    /// - Returns: the new unit up vector.
    public mutating func update(accelDirection a: Vector3, gyro: Vector3?, dt: Double) -> Vector3 {
        guard var u = up else {
            up = a
            return a
        }
        if dt > 0 {
            if let w = gyro, w.isFinite {
                // Rotate u by −ω dt (Rodrigues via the quaternion exponential).
                let q = Quaternion(rotationVector: w * -dt)
                u = q.rotate(u)
            }
            let alpha = oneMinusExpNegative(max(0, gain) * dt)
            let blended = u + (a - u) * alpha
            u = blended.normalized ?? a
        }
        up = u
        return u
    }

    public mutating func reset() { up = nil }
}
