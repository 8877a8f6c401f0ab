/// Gyro + accelerometer tilt filter that low-passes the accelerometer in an almost-inertial
/// frame, with a time constant that adapts to the disturbance and to rest: the default tilt
/// estimator (`EstimationMethod.inertial`).
///
/// The idea is the one of D. Laidig and T. Seel, "VQF: Highly accurate IMU orientation
/// estimation with bias estimation and magnetic disturbance rejection", Information Fusion 91,
/// 2023, sec. 3 (written independently here, tilt only): the gyroscope alone is integrated into
/// a strapdown attitude `q` (sensor frame → a frame that is inertial up to the gyro's slow
/// drift), every accelerometer sample is rotated into that frame, `a_S = R(q) a`, and low-passed
/// *there*. In the strapdown frame gravity is (almost) constant however fast the device turns,
/// so the low-pass does not lag under rotation — a low-pass on the raw accelerometer in the
/// sensor frame does: under a 300 °/s turn a 5 Hz biquad on the sensor-frame accelerometer is
/// 10 ms, i.e. 3°, behind — while the linear acceleration, whose integral over time is a
/// velocity change and stays bounded, averages out. The estimated up vector in the strapdown
/// frame is the low-pass output's direction, `u_S = L / |L|`; in the sensor frame it is
/// `u = R(q)ᵀ u_S`. The gyro's drift turns gravity slowly in the strapdown frame and the
/// low-pass follows it.
///
/// The filter holds the strapdown-frame vectors it needs (the two stages below and `u_S`) as
/// seen from the sensor, `R(q)ᵀ L`, and turns them by each gyro step, `v ← exp(−[ω dt]×) v`
/// (`R(q ⊗ Δq)ᵀ = R(Δq)ᵀ R(q)ᵀ`), so `q` itself is never formed. A rotation is linear and keeps
/// lengths, so the low-pass, the innovation's length and the normalisation read the same in
/// either frame; one rotation matrix per sample for three vectors is cheaper than integrating
/// `q` and rotating every sample in and the estimate out.
///
/// The low-pass is two equal one-pole stages in cascade (critically damped, no overshoot),
/// `L₁ ← L₁ + α (a_S − L₁)`, `L₂ ← L₂ + α (L₁ − L₂)`, `α = 1 − e^(−2 dt / τ)`, so that `τ` is
/// the delay it adds to a slow drift (the sum of the two stages' time constants). Unlike a
/// biquad, a cascade of convex combinations stays stable and free of overshoot when `τ`
/// changes from one sample to the next, which the adaptation below needs.
///
/// Adaptation of `τ` (one default configuration for slow and fast motion, taps, vibration):
/// - *Disturbance*: `τ = min(maxTimeConstant, 1/gain + disturbanceSeconds · σ)`, where `σ` (m/s²)
///   is the RMS of the innovation `a_S − g · u_S` (the acceleration's departure from the
///   gravity the filter expects: linear acceleration, vibration, taps and the filter's own
///   error), followed with a fast attack (`disturbanceAttack`, 0.2 s) and a slow release
///   (`disturbanceRelease`, 5 s). A quiet device corrects quickly (gyro drift, from bias,
///   scale and misalignment, grows with the rate of turn and is what the accelerometer must
///   remove), a shaken one averages longer.
///   The time constant changes slowly compared with the disturbance itself, on purpose:
///   weighting individual samples by their departure from 1 g (rejecting "bad" samples) breaks
///   the zero mean of the linear acceleration in the inertial frame — on BROAD trial 21 (fast
///   combined motion) weights `1 / (1 + (||a| − g| / 3 m/s²)²)` raised the RMS inclination error
///   from 1.6° to 13°, and shortening `τ` with the instantaneous gyro rate raised it to 8–12°.
/// - *Rest* (`RestDetector`: gyro rate or spread, `|a|` within 5 % of g, 2 s): `τ` is at least
///   `restTimeConstant` (4 s): at rest the accelerometer is gravity plus noise and the gyro
///   has no drift left to correct, so a long average lowers the jitter; and the gyro bias
///   follows the raw gyro through a one-pole low-pass of `biasTimeConstant` (10 s), as in
///   `FusionFilter` (the stationary gyroscope-offset tracking of x-io's Fusion and VQF's rest
///   bias estimation).
/// - *Rotation at a distance* (`LeverArmCompensator`): a device turned about a point away from
///   its sensor (spun at arm's length, swung) reads the tangential and centripetal acceleration
///   `ω̇ × r + ω × (ω × r)`, which turns with the device and so does not average out in the
///   strapdown frame: on the x-io spin (200 °/s, 0.66 m) it left the low-pass 3.5° off. The
///   lever arm `r` is fitted to the innovation (time constant `leverArmTimeConstant`, 0.3 s) and
///   that acceleration subtracted before the low-pass; it is zero when the device does not turn.
/// - *Start*: the first valid sample initialises both stages; while fewer than `1/α` samples
///   have been seen, the weight is `1/n` (a running mean), so the estimate settles in `τ/2`
///   rather than `τ` after a start or a gap (the role of Fusion's initial gain ramp).
///
/// `gain` (1/s) is the inverse of the base time constant, as for the other gyro filters:
/// 0.5 gives `τ = 2 s` for a quiet moving device.
public struct InertialFrameFilter: Sendable {
    /// Inverse of the base time constant of the inertial-frame low-pass, 1/s (default 0.5: 2 s).
    public var gain: Double { didSet { baseTimeConstant = Self.baseTimeConstant(gain: gain) } }
    /// Seconds added to the time constant per m/s² of RMS innovation (default 0.1).
    public var disturbanceSeconds: Double
    /// Upper bound of the time constant, seconds (default 10).
    public var maxTimeConstant: Double
    /// Lower bound of the time constant while the device is at rest, seconds (default 4).
    public var restTimeConstant: Double
    /// Time constant of the innovation's mean square when it rises, seconds (default 0.2).
    public var disturbanceAttack: Double { didSet { disturbanceStep = 0 } }
    /// Time constant of the innovation's mean square when it falls, seconds (default 5).
    public var disturbanceRelease: Double { didSet { disturbanceStep = 0 } }
    /// Time constant of the gyro-bias low-pass while at rest, seconds (default 2; 0 = off).
    /// Shorter than `FusionFilter`'s 10 s, which has Mahony's integral term besides: here a
    /// residual bias `b⊥` across gravity leaves a lag error of about `b⊥ · τ`, so an
    /// uncalibrated 0.35 rad/s offset must be learned within a few seconds of rest (with 10 s
    /// it still left 11° after 25 s at rest; with 2 s, 0.06°). Gyro noise averaged over 2 s at
    /// 100 Hz is far below 0.01 °/s.
    public var biasTimeConstant: Double { didSet { biasStep = 0 } }
    /// Time constant of the lever-arm fit, seconds (default 0.3; 0 = no compensation).
    public var leverArmTimeConstant: Double {
        didSet { if leverArmTimeConstant > 0 { lever.timeConstant = leverArmTimeConstant } }
    }
    /// The fitted lever arm, metres, sensor frame: from the centre of the device's rotation to
    /// the accelerometer (zero until the device turns, and with no compensation).
    public var leverArm: Vector3 { lever.leverArm }
    /// Rest detection; its `maxGyroBias` also bounds every bias component.
    public var rest: RestDetector
    /// Current gyro bias estimate, rad/s.
    public private(set) var gyroBias: Vector3

    private var hasAttitude = false
    // The two low-pass stages (m/s²) and the unit up vector: strapdown-frame vectors, held as
    // seen from the sensor now (see the type).
    private var stage1 = Vector3.zero, stage2 = Vector3.zero
    private var up = Vector3(0, 0, 1)
    // Mean square of the innovation, (m/s²)², and its two smoothing weights cached for one dt
    // (`disturbanceStep = 0`, a step no sample has, forces a recomputation).
    private var disturbance2 = 0.0
    private var disturbanceStep = 0.0, attackAlpha = 0.0, releaseAlpha = 0.0
    // `1/gain` (∞ for gain ≤ 0: gyro only), kept in step with `gain` by its `didSet`.
    private var baseTimeConstant: Double
    // The bias low-pass weight at rest, cached for one dt (`0` forces a recomputation).
    private var biasStep = 0.0, biasAlpha = 0.0
    // Samples since the start, while the running mean is faster than the low-pass.
    private var startSamples = 0.0, starting = false
    private var lever: LeverArmCompensator

    public init(gain: Double = 0.5, disturbanceSeconds: Double = 0.1, maxTimeConstant: Double = 10,
                restTimeConstant: Double = 4, disturbanceAttack: Double = 0.2, disturbanceRelease: Double = 5,
                biasTimeConstant: Double = 2, leverArmTimeConstant: Double = 0.3, rest: RestDetector = RestDetector(), initialGyroBias: Vector3 = .zero) {
        self.gain = gain
        self.baseTimeConstant = Self.baseTimeConstant(gain: gain)
        self.disturbanceSeconds = disturbanceSeconds
        self.maxTimeConstant = maxTimeConstant
        self.restTimeConstant = restTimeConstant
        self.disturbanceAttack = disturbanceAttack
        self.disturbanceRelease = disturbanceRelease
        self.biasTimeConstant = biasTimeConstant
        self.leverArmTimeConstant = leverArmTimeConstant
        self.lever = LeverArmCompensator(timeConstant: leverArmTimeConstant > 0 ? leverArmTimeConstant : 1)
        self.rest = rest
        self.gyroBias = initialGyroBias
    }

    /// The low-pass time constant the next sample will use if the device is moving, seconds:
    /// `min(maxTimeConstant, 1/gain + disturbanceSeconds · σ)` (∞ for gain 0: gyro only), with
    /// `σ` as measured up to the last sample.
    public var timeConstant: Double {
        guard baseTimeConstant.isFinite else { return .infinity }
        return min(maxTimeConstant, baseTimeConstant + disturbanceSeconds * disturbance2.squareRoot())
    }

    private static func baseTimeConstant(gain: Double) -> Double { gain > 0 ? 1 / gain : .infinity }

    /// RMS innovation `σ`, m/s²: how far the accelerometer departs from the expected gravity.
    public var disturbance: Double { disturbance2.squareRoot() }

    /// The estimated unit up vector in the sensor frame (nil before the first sample).
    public var upVector: Vector3? { hasAttitude ? up : nil }

    /// Starts (again) from one accelerometer sample (m/s², non-zero, finite): up = its direction.
    public mutating func initialise(accel: Vector3) {
        stage1 = accel
        stage2 = accel
        up = accel * (1 / accel.length)
        disturbance2 = 0
        lever.reset()
        startSamples = 1
        starting = gain > 0
        hasAttitude = true
        rest.reset()
    }

    /// Forgets the attitude (the bias estimate is kept: it belongs to the sensor).
    public mutating func reset() {
        hasAttitude = false
        rest.reset()
    }

    /// One filter step.
    /// - Parameters:
    ///   - accel: specific force, m/s² (non-zero and finite: the caller checks).
    ///   - gyro: angular rate, rad/s, or nil (or non-finite) for an accelerometer-only sample:
    ///     the strapdown frame then does not turn, and the low-pass runs on the raw direction.
    ///   - dt: seconds since the previous sample; 0 leaves the estimate unchanged.
    /// - Returns: the unit up vector in the sensor frame.
    public mutating func update(accel: Vector3, gyro: Vector3?, dt: Double) -> Vector3 {
        let norm = accel.length
        return update(accel: accel, direction: accel * (1 / norm), norm: norm, gyro: gyro, dt: dt)
    }

    /// `update(accel:gyro:dt:)` with the accelerometer's unit direction and norm (m/s²) as well,
    /// as `AttitudeEstimator` has them.
    @inline(__always)
    mutating func update(accel: Vector3, direction a: Vector3, norm: Double, gyro: Vector3?, dt: Double) -> Vector3 {
        guard hasAttitude else {
            initialise(accel: accel)
            return up
        }
        guard dt > 0 else { return up }

        var atRest = false
        var s1 = stage1, s2 = stage2, u = up
        var accel = accel
        let compensating = leverArmTimeConstant > 0
        var compensated = false
        if let w = gyro, FusionFilter.allFinite(w) {
            var omega = w - gyroBias
            atRest = rest.update(gyro: w, omega: omega, accelDirection: a, norm: norm, dt: dt)
            if atRest, biasTimeConstant > 0 {
                if dt != biasStep {
                    biasStep = dt
                    biasAlpha = oneMinusExpNegative(dt / biasTimeConstant)
                }
                gyroBias = RestDetector.clamped(gyroBias + (w - gyroBias) * biasAlpha, max(0, rest.maxGyroBias))
                omega = w - gyroBias
            }
            // Vectors fixed in the strapdown frame, seen from the sensor after it turned by ω dt.
            let step = RotationMatrix(rotationVector: omega * -dt)
            s1 = step.apply(s1)
            s2 = step.apply(s2)
            u = step.apply(u)
            if compensating {
                accel = accel - lever.acceleration(omega: omega, dt: dt)
                compensated = true
            }
        } else {
            lever.forgetRate()
        }

        // This step's weight uses the disturbance measured up to the previous sample (it moves
        // with a 0.2 s attack: 20 samples at 100 Hz): the square root and the division that turn
        // it into a weight then do not wait for this sample's innovation, which itself waits
        // for the previous step's up vector.
        var tau = timeConstant
        if atRest, tau < restTimeConstant { tau = restTimeConstant }
        var alpha = Self.smoothingWeight(2 * dt / tau)
        if starting {
            startSamples += 1
            let mean = 1 / startSamples
            if mean > alpha { alpha = mean } else { starting = false }
        }

        // Innovation against the gravity the filter expects (`|a_S − g u_S|`, the same in the
        // sensor frame), followed with attack and release.
        if dt != disturbanceStep {
            disturbanceStep = dt
            attackAlpha = oneMinusExpNegative(dt / disturbanceAttack)
            releaseAlpha = oneMinusExpNegative(dt / disturbanceRelease)
        }
        let innovation = accel - u * standardGravity
        if compensated { lever.adapt(innovation: innovation) }
        let d2 = innovation.dot(innovation)
        disturbance2 += (d2 - disturbance2) * (d2 > disturbance2 ? attackAlpha : releaseAlpha)

        s1 = s1 + (accel - s1) * alpha
        s2 = s2 + (s1 - s2) * alpha
        let n2 = s2.dot(s2)
        // A low-pass output near zero (a long free fall) has no direction: keep the last one.
        if n2 > 1e-12, n2.isFinite { u = s2 * (1 / n2.squareRoot()) }
        stage1 = s1
        stage2 = s2
        up = u
        return u
    }

    /// `1 − e^(−x)` for `x ≥ 0` (`x = ∞` gives 1, `x = 0` gives 0): the Taylor series to `x⁴`
    /// below 0.05 (relative error < `x⁴/120` ≈ 5e-8, far below anything that matters for a time
    /// constant), `exp` above. At 100–1000 Hz and `τ ≥ 0.2 s`, `x = 2 dt / τ` is below 0.1.
    @inline(__always) static func smoothingWeight(_ x: Double) -> Double {
        if x < 0.05 { return x * (1 - x * (0.5 - x * (1.0 / 6 - x * (1.0 / 24)))) }
        return oneMinusExpNegative(x)
    }
}
