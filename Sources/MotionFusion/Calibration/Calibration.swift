/// The user calibration of one sensor (docs/CLI.md "calibrate" and docs/CONFIGURATION.md "[calibration]"),
/// applied to samples after scale, offset and mount matrix:
///
/// - `gyro' = gyro − gyroBias` (rad/s);
/// - `accel' = (accel − accelOffset) ⊙ accelScale` (per axis; m/s², dimensionless scale);
/// - `neutralRoll`, `neutralPitch` (radians): the attitude the user holds as "level", used by
///   `TiltInputMapper`, not by `apply(to:)`.
///
/// The accelerometer model is the six-position one (`SixPositionCalibration`): each axis reads
/// `accelOffset + g / accelScale` pointing up and `accelOffset − g / accelScale` pointing down.
public struct Calibration: Equatable, Sendable {
    /// Gyroscope zero-rate offset, rad/s.
    public var gyroBias: Vector3
    /// Accelerometer offset per axis, m/s².
    public var accelOffset: Vector3
    /// Accelerometer scale per axis (1 = no correction).
    public var accelScale: Vector3
    /// Neutral roll, radians (docs/FUSION.md "1. Conventions").
    public var neutralRoll: Double
    /// Neutral pitch, radians.
    public var neutralPitch: Double

    /// No correction, level neutral.
    public static let identity = Calibration()

    public init(gyroBias: Vector3 = .zero, accelOffset: Vector3 = .zero, accelScale: Vector3 = Vector3(1, 1, 1),
                neutralRoll: Double = 0, neutralPitch: Double = 0) {
        self.gyroBias = gyroBias
        self.accelOffset = accelOffset
        self.accelScale = accelScale
        self.neutralRoll = neutralRoll
        self.neutralPitch = neutralPitch
    }

    /// Neutral roll in degrees (file and wire unit).
    public var neutralRollDegrees: Double { neutralRoll * 180 / Double.pi }
    /// Neutral pitch in degrees.
    public var neutralPitchDegrees: Double { neutralPitch * 180 / Double.pi }

    /// The neutral attitude as a unit up vector (device frame).
    public var neutralUp: Vector3 {
        TiltEstimate(timeSeconds: 0, roll: neutralRoll, pitch: neutralPitch).up
    }

    /// The calibrated accelerometer reading, m/s².
    public func applyToAccel(_ a: Vector3) -> Vector3 { (a - accelOffset).scaled(by: accelScale) }

    /// The calibrated gyroscope reading, rad/s.
    public func applyToGyro(_ w: Vector3) -> Vector3 { w - gyroBias }

    /// The sample with accelerometer and gyroscope corrections applied (timestamp unchanged).
    public func apply(to sample: IMUSample) -> IMUSample {
        IMUSample(timestampNanoseconds: sample.timestampNanoseconds, accel: applyToAccel(sample.accel),
                  gyro: sample.gyro.map(applyToGyro))
    }

    /// Whether every field is finite and every scale is positive (a file failing this is refused).
    public var isValid: Bool {
        gyroBias.isFinite && accelOffset.isFinite && accelScale.isFinite && accelScale.x > 0 && accelScale.y > 0
            && accelScale.z > 0 && neutralRoll.isFinite && neutralPitch.isFinite
    }
}
