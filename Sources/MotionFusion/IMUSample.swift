/// One motion-sensor sample in SI units, in the device frame, after scale, offset and mount
/// matrix (and the accelerometer convention of docs/FUSION.md "1. Conventions"), before user calibration.
///
/// - `timestampNanoseconds`: CLOCK_MONOTONIC nanoseconds at I/O boundaries; replayed recordings
///   use their own time base (nanoseconds from the recording's start or its original clock).
/// - `accel`: specific force in m/s² (at rest, face up: about (0, 0, +9.81)).
/// - `gyro`: angular rate in rad/s, or `nil` for an accelerometer-only sensor.
public struct IMUSample: Equatable, Sendable {
    public var timestampNanoseconds: Int64
    public var accel: Vector3
    public var gyro: Vector3?

    @inlinable public init(timestampNanoseconds: Int64, accel: Vector3, gyro: Vector3? = nil) {
        self.timestampNanoseconds = timestampNanoseconds
        self.accel = accel
        self.gyro = gyro
    }

    /// The timestamp in seconds (for the pure filters, which take time as `Double` seconds).
    @inlinable public var timeSeconds: Double { Double(timestampNanoseconds) * 1e-9 }
}

/// Standard gravity, m/s² (CGPM 1901), used to convert recordings in g.
public let standardGravity: Double = 9.80665
