/// The attitude estimators (config `[filter] method`, `carouselctl tilt --method`).
public enum EstimationMethod: String, CaseIterable, Sendable {
    /// Gyro + accelerometer quaternion filter with gyro-bias tracking and acceleration
    /// rejection (`FusionFilter`); the default. Falls back to accelerometer correction alone
    /// for samples without a gyroscope.
    case fusion
    /// Complementary filter on the gravity vector (`ComplementaryFilter`).
    case complementary
    /// Accelerometer direction only (`AccelerometerTilt`), optionally low-passed.
    case accel
}
