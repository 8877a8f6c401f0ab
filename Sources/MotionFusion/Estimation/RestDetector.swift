/// Rest ("still") detection for the gyro filters: whether the device has been at rest long
/// enough that its accelerometer measures gravity only and its gyroscope measures its bias only.
///
/// A sample counts as still when `|a|` is within 5 % of g and either the bias-corrected rate is
/// below `stillRate`, or the device is *steady*: the raw gyro within `stillRate` of its own
/// 0.5 s mean (one-pole), every raw gyro component within `maxGyroBias`, and the accelerometer
/// direction within `steadyAccelAngle` of its 0.5 s mean. Steadiness looks at spread, not value
/// (as `StillnessDetector` does), so a device with an uncalibrated zero-rate offset (an
/// MPU-6050 may ship with ±20 °/s) still counts as still. The device is at rest once its
/// samples have been still for `stillTime` seconds without a break. Rest detection with a
/// minimum duration and limits on gyro and accelerometer deviation from short-term means is
/// also what D. Laidig and T. Seel, "VQF: Highly accurate IMU orientation estimation with bias
/// estimation and magnetic disturbance rejection", Information Fusion 91, 2023, use to estimate
/// the gyro bias; this is an independent formulation of the idea.
public struct RestDetector: Sendable {
    /// Gyro rate (after bias removal), and raw gyro spread, below which a sample is still, rad/s.
    public var stillRate: Double
    /// How long the samples must be still before the device counts as at rest, seconds.
    public var stillTime: Double
    /// Bound on each raw gyro component for a steady sample, rad/s.
    public var maxGyroBias: Double
    /// Largest angle between the accelerometer direction and its 0.5 s mean for a steady
    /// sample, radians.
    public var steadyAccelAngle: Double
    /// Time constant of the gyro and accelerometer means of the steadiness test, seconds.
    static let steadyTimeConstant = 0.5
    /// Largest relative deviation of `|a|` from `standardGravity` for a still sample.
    static let quietTolerance = 0.05
    /// Seconds the samples have been still so far.
    public private(set) var stillSeconds: Double = 0
    // Means with a flag rather than `Vector3?`: no optional unwrapping per sample.
    private var gyroMean = Vector3.zero, accelMean = Vector3.zero, hasMeans = false
    // Cache of the means' smoothing factor for the last dt (no exp per sample at a steady rate).
    private var steadyStep = 0.0, steadyAlpha = 0.0

    public init(stillRate: Double = 0.035, stillTime: Double = 2, maxGyroBias: Double = 0.6,
                steadyAccelAngle: Double = 0.01) {
        self.stillRate = stillRate
        self.stillTime = stillTime
        self.maxGyroBias = maxGyroBias
        self.steadyAccelAngle = steadyAccelAngle
    }

    /// Forgets the means and the still time (a new start).
    public mutating func reset() {
        stillSeconds = 0
        hasMeans = false
    }

    /// Feeds one sample with a valid gyro and tells whether the device is at rest.
    /// - Parameters:
    ///   - w: raw angular rate, rad/s; `omega`: the same minus the current bias estimate.
    ///   - a: unit accelerometer direction; `norm`: its norm, m/s².
    ///   - dt: seconds since the previous sample (> 0).
    @inline(__always) public mutating func update(gyro w: Vector3, omega: Vector3, accelDirection a: Vector3,
                                                  norm: Double, dt: Double) -> Bool {
        let steady = updateSteadiness(gyro: w, accelDirection: a, dt: dt)
        let quietOK = abs(norm - standardGravity) <= Self.quietTolerance * standardGravity
        if (omega.dot(omega) < stillRate * stillRate || steady) && quietOK {
            stillSeconds += dt
        } else {
            stillSeconds = 0
        }
        return stillSeconds >= stillTime
    }

    /// Updates the 0.5 s means and tells whether the sample is steady (see the type).
    @inline(__always) private mutating func updateSteadiness(gyro w: Vector3, accelDirection a: Vector3, dt: Double) -> Bool {
        guard hasMeans else {
            gyroMean = w
            accelMean = a
            hasMeans = true
            return false
        }
        var gm = gyroMean, am = accelMean
        if dt != steadyStep {
            steadyStep = dt
            steadyAlpha = oneMinusExpNegative(dt / Self.steadyTimeConstant)
        }
        let alpha = steadyAlpha
        gm = gm + (w - gm) * alpha
        am = am + (a - am) * alpha
        gyroMean = gm
        accelMean = am
        let gyroDeviation = w - gm, accelDeviation = a - am
        // |a − ā| ≈ angle for small angles (ā is a mean of unit vectors, length ≤ 1).
        return gyroDeviation.dot(gyroDeviation) < stillRate * stillRate
            && accelDeviation.dot(accelDeviation) < steadyAccelAngle * steadyAccelAngle
            && abs(w.x) <= maxGyroBias && abs(w.y) <= maxGyroBias && abs(w.z) <= maxGyroBias
    }

    /// Each component of `b` limited to ±`m` (`m ≥ 0`), written with comparisons so that it
    /// compiles to one `maxsd` and one `minsd` per component.
    @inline(__always) static func clamped(_ b: Vector3, _ m: Double) -> Vector3 {
        Vector3(clamped(b.x, m), clamped(b.y, m), clamped(b.z, m))
    }

    @inline(__always) private static func clamped(_ x: Double, _ m: Double) -> Double {
        let low = x < -m ? -m : x
        return low > m ? m : low
    }
}
