#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
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
/// - integration is exact for each step's rotation, and only the up vector is propagated (see
///   below): the yaw that a quaternion would integrate has no reference and no use for tilt;
/// - acceleration rejection compares the angle between measured and estimated gravity with
///   `rejectionAngle` and the norm with `standardGravity · (1 ± normTolerance)`; while rejected,
///   the gyro alone propagates. Recovery: a rejected accelerometer is accepted again as soon as
///   the device is still for `stillTime`, because a still device measures gravity only — this
///   replaces Fusion's recovery-trigger period, which would accept a sustained centripetal
///   acceleration. "Still" is either of: the bias-corrected gyro below `stillRate`, or a
///   *steady* device — raw gyro within `stillRate` of its own 0.5 s mean (a constant offset,
///   however large up to `maxGyroBias`, reads as steady) and the accelerometer direction within
///   `steadyAccelAngle` of its 0.5 s mean. The second form is what lets a device with an
///   uncalibrated zero-rate offset (MPU-6050: up to ±20 °/s) recover: with the first alone, a
///   0.1 rad/s offset was never "still", the estimate drifted past the rejection angle and
///   reached 158° after 30 s;
/// - gyro bias: after `stillTime` seconds of stillness the bias follows the raw gyro through a
///   one-pole low-pass of time constant `biasTimeConstant` seconds; in addition, whenever the
///   accelerometer is used, the integral term of Mahony, Hamel & Pflimlin (IEEE TAC 53(5),
///   2008, the integral bias update `ḃ = −k_I · (â × v)`) moves the bias against the
///   correction error, so a constant bias leaves no steady tilt error (with the proportional term alone, a bias `b⊥`
///   perpendicular to gravity leaves `asin(|b⊥| / gain)`: 6.9° for 0.06 rad/s). Every bias
///   component is bounded by `maxGyroBias`.
///
/// Correction law per step of `dt` seconds: `ω' = ω − b + k · (â × v)`, where `â` is the
/// unit accelerometer direction and `v` the estimated up vector in the sensor frame; then
/// `q ← q ⊗ exp(½ ω' dt)`. Since `v = q* ⊗ z ⊗ q` (the earth z axis in the sensor frame), that
/// step is `v ← exp(½ ω' dt)* ⊗ v ⊗ exp(½ ω' dt)`: `v` turned by the rotation vector `−ω' dt`,
/// which the filter computes directly with Rodrigues' formula (`propagated(_:by:)`), without
/// the quaternion: the same up vector to rounding, with fewer operations on the
/// sample-to-sample dependency chain. The correction moves `v` toward `â` at `k · sin(error)` rad/s,
/// with `k = (1 − e^(−gain·dt)) / dt`, which is `gain` to within `gain·dt/2` (relative) for
/// `gain · dt ≪ 1`, so `gain` (1/s) is the inverse time constant of the tilt correction.
/// Using `k` rather than `gain` itself keeps a high gain or a slow sample rate stable: one step
/// turns `v` by at most `sin(error) ≤ error`, so it never overshoots (with `gain` itself,
/// `gain · dt > 2` diverges: gain 1000 at 100 Hz gave pitch errors of 90° on the x-io recording).
public struct FusionFilter: Sendable {
    /// Tilt correction rate, 1/s (default 0.5: a 2 s time constant, Fusion's default gain).
    public var gain: Double { didSet { correctionStep = 0 } }
    /// Maximum angle between measured and estimated gravity for the accelerometer to be used, radians.
    public var rejectionAngle: Double { didSet { rejectionCosine = Self.cosineLimit(rejectionAngle) } }
    // cos(rejectionAngle), or −∞ from π on (every angle passes, as `angle ≤ rejectionAngle` would).
    private var rejectionCosine: Double
    // Cache, for the last step dt, of the correction rate k and of the integral bias step k_I·dt;
    // `correctionStep = 0` (no step is 0) forces a recomputation when `gain` or `integralGain` change.
    private var correctionStep = 0.0, correctionRate = 0.0, integralStep = 0.0
    /// Maximum relative deviation of `|a|` from `standardGravity` for the accelerometer to be used.
    public var normTolerance: Double
    /// Rest detection (gyro rate and spread, accelerometer norm and steadiness, minimum time).
    public var rest: RestDetector
    /// Gyro rate (after bias removal) below which the device counts as still, rad/s.
    public var stillRate: Double { get { rest.stillRate } set { rest.stillRate = newValue } }
    /// How long the device must be still before the bias is updated, seconds.
    public var stillTime: Double { get { rest.stillTime } set { rest.stillTime = newValue } }
    /// Time constant of the gyro-bias low-pass while still, seconds.
    public var biasTimeConstant: Double
    /// Integral gain of the bias estimate, 1/s² (Mahony's `k_I`); 0 disables the integral term.
    /// nil (default): `k² / 4` with `k` the per-step correction rate (≈ `gain`), so that the
    /// linearised tilt-error loop `θ̈ + k·θ̇ + k_I·θ = 0` is critically damped (time constant
    /// `2 / gain`, 4 s at the default gain), and stays stable at any gain and rate (`k·dt ≤ 1`
    /// gives `k_I·dt² ≤ 1/4`: the linearised discrete poles lie in [0, 1)). A tilt error that
    /// the gyro did not cause (a start from a wrong attitude) is briefly taken for bias: it then overshoots by at
    /// most `e^(−2)` ≈ 13.5 % of the initial error before settling.
    public var integralGain: Double? { didSet { correctionStep = 0 } }
    /// Bound on each gyro-bias component, rad/s (default 0.6 ≈ 34 °/s, above the MPU-6050's
    /// ±20 °/s zero-rate offset). A raw gyro component beyond it never counts as steady.
    public var maxGyroBias: Double { get { rest.maxGyroBias } set { rest.maxGyroBias = newValue } }
    /// Largest angle between the accelerometer direction and its 0.5 s mean for the device to
    /// count as steady, radians (default 0.01 ≈ 0.57°).
    public var steadyAccelAngle: Double { get { rest.steadyAccelAngle } set { rest.steadyAccelAngle = newValue } }

    /// Sensor → earth attitude with zero yaw (`Quaternion(up:)` of the estimated up vector):
    /// the filter tracks tilt only, yaw has no reference. Its `upInSensorFrame` is the last
    /// up vector returned by `update`.
    public var attitude: Quaternion? { hasAttitude ? Quaternion(up: up) : nil }
    private var hasAttitude = false
    // The estimated unit up vector in the sensor frame: the whole attitude state.
    private var up = Vector3(0, 0, 1)
    /// Current gyro bias estimate, rad/s.
    public private(set) var gyroBias: Vector3
    /// Seconds the device has been still so far.
    public var stillSeconds: Double { rest.stillSeconds }
    /// Whether the last sample's accelerometer was rejected.
    public private(set) var accelerometerRejected = false

    public init(gain: Double = 0.5, rejectionAngle: Double = 10 * Double.pi / 180, normTolerance: Double = 0.1,
                stillRate: Double = 0.035, stillTime: Double = 2, biasTimeConstant: Double = 10,
                initialGyroBias: Vector3 = .zero, integralGain: Double? = nil, maxGyroBias: Double = 0.6,
                steadyAccelAngle: Double = 0.01) {
        self.gain = gain
        self.rejectionAngle = rejectionAngle
        self.rejectionCosine = Self.cosineLimit(rejectionAngle)
        self.normTolerance = normTolerance
        self.rest = RestDetector(stillRate: stillRate, stillTime: stillTime, maxGyroBias: maxGyroBias,
                                 steadyAccelAngle: steadyAccelAngle)
        self.biasTimeConstant = biasTimeConstant
        self.gyroBias = initialGyroBias
        self.integralGain = integralGain
    }

    /// Starts (again) from an accelerometer direction: zero yaw, up = `accelDirection` (a unit
    /// vector, as `AttitudeEstimator` gives it).
    public mutating func initialise(accelDirection: Vector3) {
        up = accelDirection
        hasAttitude = true
        rest.reset()
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
    @inline(__always)
    mutating func update(direction a: Vector3, norm: Double, gyro: Vector3?, dt: Double) -> Vector3 {
        guard hasAttitude else {
            initialise(accelDirection: a)
            return a
        }
        guard dt > 0 else { return up }

        var omega = Vector3.zero  // the bias-corrected rate, then the corrected rate, rad/s
        var rate = Vector3.zero   // the raw rate (when valid)
        var useAccel = true
        var gyroValid = false
        if let w = gyro, Self.allFinite(w) {
            gyroValid = true
            rate = w
            omega = w - gyroBias
            let still = rest.update(gyro: w, omega: omega, accelDirection: a, norm: norm, dt: dt)
            let normOK = abs(norm - standardGravity) <= normTolerance * standardGravity
            if still, biasTimeConstant > 0 {
                gyroBias = clampedBias(gyroBias + (w - gyroBias) * oneMinusExpNegative(dt / biasTimeConstant))
                omega = w - gyroBias
            }
            // Both unit vectors: angle ≤ limit ⇔ a·v ≥ cos(limit) (no atan2 per sample).
            let angleOK = a.dot(up) >= rejectionCosine
            useAccel = (angleOK && normOK) || still
        }
        accelerometerRejected = !useAccel
        let v = up
        if useAccel {
            let error = a.cross(v)  // |error| = sin(angle between a and v)
            if dt != correctionStep {
                // Recomputed only when the step, the gain or the integral gain changes (a steady
                // rate: once).
                correctionStep = dt
                correctionRate = oneMinusExpNegative(max(0, gain) * dt) / dt
                integralStep = (integralGain ?? correctionRate * correctionRate / 4) * dt
            }
            if integralStep > 0, gyroValid {  // k_I > 0
                // Mahony's ḃ = −k_I·(â × v): the bias absorbs what the correction keeps fixing.
                gyroBias = clampedBias(gyroBias - error * integralStep)
                omega = rate - gyroBias
            }
            omega = omega + error * correctionRate
        }
        up = Self.renormalized(Self.propagated(v, by: omega * dt))
        return up
    }

    /// Forgets the attitude (the bias estimate is kept: it belongs to the sensor).
    public mutating func reset() {
        hasAttitude = false
        rest.reset()
        accelerometerRejected = false
    }

    /// The up vector `v` (sensor frame) after the body turned by the rotation vector `r = ω' dt`
    /// (radians): `v` turned by `−r`, Rodrigues' rotation formula
    /// `v' = v cos θ − (sin θ / θ) (r × v) + ((1 − cos θ) / θ²) (r · v) r`, θ = |r|, which equals
    /// `p* ⊗ v ⊗ p` with `p = exp(½ r)` (the quaternion step this replaces).
    /// Below θ = 0.01 rad (1 rad/s at 100 Hz) `sin θ / θ` and `(1 − cos θ) / θ²` are their Taylor
    /// series truncated after θ⁴, with constant reciprocals rather than divisions on the
    /// dependency chain, and `cos θ = 1 − θ² · (1 − cos θ) / θ²`; the first omitted terms
    /// (θ⁶/5040 on a term of size ≤ θ, θ⁶/40320 on terms of size ≤ θ²) move `v'` by < 1e-17.
    /// Above, the half-angle forms `1 − cos θ = 2 sin²(θ/2)`, `sin θ = 2 sin(θ/2) cos(θ/2)` keep
    /// every coefficient accurate.
    @inline(__always) static func propagated(_ v: Vector3, by r: Vector3) -> Vector3 {
        let theta2 = r.dot(r)
        let sinc, versine: Double  // sin θ / θ, (1 − cos θ) / θ²
        if theta2 < 1e-4 {
            sinc = 1 - theta2 * (1.0 / 6 - theta2 * (1.0 / 120))
            versine = 0.5 - theta2 * (1.0 / 24 - theta2 * (1.0 / 720))
        } else {
            let theta = theta2.squareRoot()
            let halfSine = sin(0.5 * theta), halfCosine = cos(0.5 * theta)
            sinc = 2 * halfSine * halfCosine / theta
            versine = 2 * halfSine * halfSine / theta2
        }
        let cosine = 1 - theta2 * versine
        return v * cosine - r.cross(v) * sinc + r * (versine * r.dot(v))
    }

    /// `v` scaled back to unit length. A unit vector turned by `propagated` is unit to within a
    /// few ulps, so one Newton step for `1/√n²`, `(3 − n²) / 2`, equals the exact factor to
    /// O((n² − 1)²) ≈ 1e-32: the same result to rounding without a square root and a division
    /// on the sample-to-sample dependency chain. Anything farther from unit takes the exact path
    /// (and a zero or non-finite vector, from a non-finite step, gives `(0, 0, 1)`).
    @inline(__always) static func renormalized(_ v: Vector3) -> Vector3 {
        let n2 = v.dot(v)
        guard n2 > 0.999, n2 < 1.001 else { return v.normalized ?? Vector3(0, 0, 1) }
        return v * (1.5 - 0.5 * n2)
    }

    /// `w.isFinite`, computed as `0·x + 0·y + 0·z == 0`: a product by zero is ±0 for a finite
    /// component and NaN for an infinite or NaN one, so the sum is zero exactly when all three
    /// are finite. A few floating-point operations instead of testing each exponent's bits.
    @inline(__always) static func allFinite(_ w: Vector3) -> Bool {
        w.x * 0 + w.y * 0 + w.z * 0 == 0
    }

    /// Each component limited to ±`maxGyroBias`.
    @inline(__always) private func clampedBias(_ b: Vector3) -> Vector3 {
        RestDetector.clamped(b, max(0, maxGyroBias))
    }

    /// The cosine that `a · v` (unit vectors) is compared with for an angle limit: `cos(limit)`,
    /// or −∞ from π on, where every angle passes.
    static func cosineLimit(_ limit: Double) -> Double {
        limit >= Double.pi ? -Double.infinity : cos(limit)
    }
}
