/// Accelerometer-only tilt: the up vector is the direction of the measured specific force.
/// Exact at rest, fooled by any linear or centripetal acceleration (use a low-pass cutoff in
/// `AttitudeEstimator.Configuration` to smooth it).
public struct AccelerometerTilt: Sendable {
    public private(set) var up: Vector3?

    public init() {}

    /// - Parameters:
    ///   - accelDirection: unit direction of the specific force (device frame).
    public mutating func update(accelDirection: Vector3) -> Vector3 {
        up = accelDirection
        return accelDirection
    }

    public mutating func reset() { up = nil }
}
