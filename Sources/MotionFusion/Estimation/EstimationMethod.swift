/// The attitude estimators (config `[filter] method`, `carouselctl tilt --method`).
public enum EstimationMethod: String, CaseIterable, Sendable {
    /// Gyro strapdown with the accelerometer low-passed in the almost-inertial frame, adaptive
    /// time constant, rest detection and gyro-bias tracking (`InertialFrameFilter`); the
    /// default. Without a gyroscope the low-pass runs on the raw accelerometer.
    case inertial
    /// Gyro + accelerometer quaternion filter with gyro-bias tracking and acceleration
    /// rejection (`FusionFilter`). Falls back to accelerometer correction alone for samples
    /// without a gyroscope.
    case fusion
    /// Complementary filter on the gravity vector (`ComplementaryFilter`).
    case complementary
    /// Accelerometer direction only (`AccelerometerTilt`), optionally low-passed.
    case accel
}
