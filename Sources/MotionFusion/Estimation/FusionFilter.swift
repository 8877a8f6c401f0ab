#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (DESIGN §2)
#elseif canImport(Darwin)
import Darwin
#endif

/// Gyro + accelerometer quaternion attitude filter with gyro-bias tracking and acceleration
/// rejection: the default tilt estimator.
///
/// It follows the structure of the "revised AHRS algorithm" of S. O. H. Madgwick's PhD thesis,
/// *AHRS algorithms and calibration solutions to facilitate new applications using low-cost
/// MEMS* (University of Bristol, 2014), ch. 7, which x-io Technologies' Fusion library
/// implements: a complementary filter on the orientation quaternion in which the accelerometer
/// feeds back, as a proportional angular-rate correction, the cross product between the
/// measured and the estimated gravity directions (the explicit complementary filter of Mahony,
/// Hamel & Pflimlin, IEEE TAC 53(5), 2008), plus rejection of the accelerometer when it
/// disagrees with the estimate (the device is accelerating) and gyroscope offset tracking while
/// the device is still. This is an independent implementation; the differences are:
///
/// - start-up: the attitude is initialised from the first valid accelerometer sample (zero
///   yaw), with no high-gain start-up ramp;
/// - integration uses the exact quaternion exponential of each step's rotation;
/// - acceleration rejection compares the angle between measured and estimated gravity with
///   `rejectionAngle` and the norm with `standardGravity · (1 ± normTolerance)`; while rejected,
///   the gyro alone propagates. Recovery: a rejected accelerometer is accepted again as soon as
///   the device is still (gyro below `stillRate` for `stillTime`), because a still device
///   measures gravity only — this replaces Fusion's recovery-trigger period, which would accept
///   a sustained centripetal acceleration;
/// - gyro bias: after `stillTime` seconds of stillness the bias follows the raw gyro through a
///   one-pole low-pass of time constant `biasTimeConstant` seconds.
///
/// Correction law per step of `dt` seconds: `ω' = ω − b + gain · (â × v)`, where `â` is the
/// unit accelerometer direction and `v` the estimated up vector in the sensor frame; then
/// `q ← q ⊗ exp(½ ω' dt)`. The correction moves `v` toward `â` at `gain · sin(error)` rad/s,
/// so `gain` (1/s) is the inverse time constant of the tilt correction.
public struct FusionFilter: Sendable {
    /// Tilt correction rate, 1/s (default 0.5: a 2 s time constant, Fusion's default gain).
    public var gain: Double
    /// Maximum angle between measured and estimated gravity for the accelerometer to be used, radians.
    public var rejectionAngle: Double { didSet { rejectionCosine = cos(rejectionAngle) } }
    private var rejectionCosine: Double
    /// Maximum relative deviation of `|a|` from `standardGravity` for the accelerometer to be used.
    public var normTolerance: Double
    /// Gyro rate (after bias removal) below which the device counts as still, rad/s.
    public var stillRate: Double
    /// How long the device must be still before the bias is updated, seconds.
    public var stillTime: Double
    /// Time constant of the gyro-bias low-pass while still, seconds.
    public var biasTimeConstant: Double

    /// Sensor → earth attitude (earth z up; yaw is arbitrary, it has no reference).
    public private(set) var attitude: Quaternion?
    /// Current gyro bias estimate, rad/s.
    public private(set) var gyroBias: Vector3
    /// Seconds the device has been still so far.
    public private(set) var stillSeconds: Double = 0
    /// Whether the last sample's accelerometer was rejected.
    public private(set) var accelerometerRejected = false

    public init(gain: Double = 0.5, rejectionAngle: Double = 10 * Double.pi / 180, normTolerance: Double = 0.1,
                stillRate: Double = 0.035, stillTime: Double = 2, biasTimeConstant: Double = 10,
                initialGyroBias: Vector3 = .zero) {
        self.gain = gain
        self.rejectionAngle = rejectionAngle
        self.rejectionCosine = cos(rejectionAngle)
        self.normTolerance = normTolerance
        self.stillRate = stillRate
        self.stillTime = stillTime
        self.biasTimeConstant = biasTimeConstant
        self.gyroBias = initialGyroBias
    }

    /// Starts (again) from an accelerometer direction: zero yaw, up = `accelDirection`.
    public mutating func initialise(accelDirection: Vector3) {
        attitude = Quaternion(up: accelDirection)
        stillSeconds = 0
        accelerometerRejected = false
    }

    /// One filter step.
    /// - Parameters:
    ///   - accel: specific force, m/s² (non-zero and finite: the caller checks).
    ///   - gyro: angular rate, rad/s, or nil for an accelerometer-only sample (correction only,
    ///     no rejection, no bias update).
    ///   - dt: seconds since the previous sample; 0 (duplicate) leaves the attitude unchanged.
    /// - Returns: the unit up vector in the sensor frame.
    public mutating func update(accel: Vector3, gyro: Vector3?, dt: Double) -> Vector3 {
        let norm = accel.length
        return update(direction: accel / norm, norm: norm, gyro: gyro, dt: dt)
    }

    /// `update(accel:gyro:dt:)` with the accelerometer already split into its unit direction and
    /// its norm (m/s²), as `AttitudeEstimator` has them.
    mutating func update(direction a: Vector3, norm: Double, gyro: Vector3?, dt: Double) -> Vector3 {
        guard var q = attitude else {
            initialise(accelDirection: a)
            return a
        }
        guard dt > 0 else { return q.upInSensorFrame }

        let v = q.upInSensorFrame
        let error = a.cross(v)  // |error| = sin(angle between a and v)
        var omega = Vector3.zero
        var useAccel = true
        if let w = gyro, w.isFinite {
            omega = w - gyroBias
            let normOK = abs(norm - standardGravity) <= normTolerance * standardGravity
            let quietOK = abs(norm - standardGravity) <= 0.05 * standardGravity
            if omega.dot(omega) < stillRate * stillRate && quietOK {
                stillSeconds += dt
            } else {
                stillSeconds = 0
            }
            let still = stillSeconds >= stillTime
            if still, biasTimeConstant > 0 {
                gyroBias = gyroBias + (w - gyroBias) * oneMinusExpNegative(dt / biasTimeConstant)
                omega = w - gyroBias
            }
            // Both unit vectors: angle ≤ limit ⇔ a·v ≥ cos(limit) (no atan2 per sample).
            let angleOK = rejectionAngle >= Double.pi || a.dot(v) >= rejectionCosine
            useAccel = (angleOK && normOK) || still
        }
        accelerometerRejected = !useAccel
        if useAccel { omega = omega + error * gain }
        q = (q * Quaternion(rotationVector: omega * dt)).normalized
        attitude = q
        return q.upInSensorFrame
    }

    /// Forgets the attitude (the bias estimate is kept: it belongs to the sensor).
    public mutating func reset() {
        attitude = nil
        stillSeconds = 0
        accelerometerRejected = false
    }
}
