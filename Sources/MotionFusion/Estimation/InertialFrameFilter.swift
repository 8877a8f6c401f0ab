#if canImport(Glibc)
import Glibc // libm only (tan): MotionFusion imports no Foundation
#elseif canImport(Darwin)
import Darwin
#endif

/// Gyro + accelerometer tilt filter that low-passes the accelerometer in an almost-inertial
/// frame, with a time constant that adapts to the rate of turn, the disturbance and rest: the
/// default tilt estimator (`EstimationMethod.inertial`).
///
/// The idea is the one of D. Laidig and T. Seel, "VQF: Highly accurate IMU orientation
/// estimation with bias estimation and magnetic disturbance rejection", Information Fusion 91,
/// 2023, sec. 3 (written independently here, tilt only): the gyroscope alone is integrated into
/// a strapdown attitude `q` (sensor frame → a frame that is inertial up to the gyro's slow
/// drift), every accelerometer sample is rotated into that frame, `a_S = R(q) a`, and low-passed
/// *there* by a second-order Butterworth filter. In the strapdown frame gravity is (almost)
/// constant however fast the device turns, so the low-pass does not lag under rotation, while
/// the linear acceleration, whose integral over time is a velocity change and stays bounded,
/// averages out. The estimated up vector in the strapdown frame is the low-pass output's
/// direction, `u_S = L / |L|`; in the sensor frame it is `u = R(q)ᵀ u_S`.
///
/// The filter holds the strapdown-frame vectors it needs (the low-pass's two states and `u_S`)
/// as seen from the sensor, `R(q)ᵀ v`, and turns them by each gyro step, `v ← exp(−[φ]×) v`
/// (`R(q ⊗ Δq)ᵀ = R(Δq)ᵀ R(q)ᵀ`), so `q` itself is never formed. A rotation is linear and keeps
/// lengths, so the low-pass, the innovation's length and the normalisation read the same in
/// either frame.
///
/// *The step's rotation vector* is the gyro increment with the two-sample coning correction,
/// `φ_k = Δθ_k + (1/12) Δθ_{k−1} × Δθ_k`, `Δθ_k = (ω_k − b) dt_k` (J. E. Bortz, "A new
/// mathematical formulation for strapdown inertial navigation", IEEE Trans. AES-7(1), 1971;
/// the two-sample form as in P. G. Savage, "Strapdown inertial navigation integration algorithm
/// design part 1: attitude algorithms", J. Guidance, Control, and Dynamics 21(1), 1998). A gyro
/// sample is the rate over the step that ends at it; when the axis of rotation moves within the
/// step, the rotation is not the integral of the rate (rotations do not commute), and for a rate
/// that varies linearly over two steps the difference is exactly that cross product, so `φ` is
/// right to third order where `Δθ` alone is right to second. Without it a classic coning motion
/// (2 Hz, 10° half-angle, 100 Hz) drifts 1.71° in 60 s, with it 0.006° (`ConingCorrectionTests`);
/// on BROAD trial 21 (fast combined, up to 811 °/s) the error falls from 1.478° to 1.475°, the
/// other trials move by less than 0.001°. About a fixed axis (a turn, a spin) the term is zero.
///
/// The low-pass is a second-order Butterworth (damping `ζ = 1/√2`, as VQF's, sec. 3.2), written
/// as the trapezoidal state-variable filter of A. Simper, "Linear trapezoidal integrated state
/// variable filter" (Cytomic technical paper, 2013): `k = 2ζ`, `g = tan(ω₀ dt / 2)`,
/// `a₁ = 1 / (1 + g (g + k))`, `a₂ = g a₁`, `a₃ = g a₂`; per sample `v₃ = x − z₂`,
/// `v₁ = a₁ z₁ + a₂ v₃`, `v₂ = z₂ + a₂ z₁ + a₃ v₃`, `z₁ ← 2 v₁ − z₁`, `z₂ ← 2 v₂ − z₂`, output
/// `v₂`. At a fixed time constant this is exactly the bilinear-transform biquad with prewarping;
/// unlike a biquad's direct forms, its states are the two integrators of the analogue filter,
/// so a time constant that changes from one sample to the next changes the dynamics without a
/// jump in the output (a direct form II biquad under the adaptive rule below left transients
/// where `τ` fell after a rest: BROAD 15 0.48° instead of 0.46°). `ω₀ = 2ζ / τ`, so `τ` is the delay the filter adds to a slow drift
/// (its group delay at 0 Hz), as in VQF's `tauAcc`.
/// Why second order Butterworth rather than two critically damped one-pole stages with the
/// same delay: both pass a drift alike, but above the cut-off the Butterworth passes
/// `2/(ωτ)²` of the linear acceleration, the cascade `4/(ωτ)²`: twice the residual of a device
/// moved back and forth (BROAD 10, slow translation: 0.45° → 0.29° at a fixed `τ` of 3 s).
///
/// Time constant (one default configuration for slow and fast turns, translation, taps,
/// vibration): `τ = clamp(τ_rate + disturbanceSeconds · σ, minTimeConstant, maxTimeConstant)`,
/// with `τ_rate = (1/gain) · √(referenceRate / (ρ + rateFloor))`:
/// - `ρ` (rad/s) is the RMS bias-corrected rate of turn over `rateTimeConstant` (5 s). The
///   estimate's error has two parts that `τ` trades against each other: the gyro's own error,
///   which the accelerometer must remove and which grows with the rate of turn (scale and
///   misalignment errors `ε` drift the attitude by about `ε ρ τ` over the filter's memory: on
///   BROAD 01 the error rises from 0.36° below 50 °/s to 0.57° at 100–200 °/s), and the linear
///   acceleration left in the low-pass, about `Δv / (g τ)` for a velocity change `Δv`. Their
///   sum is smallest at `τ = √(Δv / (g ε ρ))`: a device that turns slowly (carried, slid,
///   walked with) can average longer. `gain` is `1/τ_rate` at `referenceRate` (2.25 rad/s,
///   129 °/s): 0.5 gives 2 s there, 3 s at 1 rad/s, 10 s (the bound) below 0.04 rad/s.
///   `rateFloor` (0.05 rad/s) stands for the residual gyro bias, which drifts even without a
///   turn.
/// - `σ` (m/s²) is the RMS innovation `|a_S − g u_S|` (the acceleration's departure from the
///   gravity the filter expects: linear acceleration, vibration, taps and the filter's own
///   error), followed with a 1 s attack and a 5 s release: a device under sustained large
///   acceleration averages longer. Both `σ` and `ρ` vary slowly, on purpose: weighting
///   individual samples by their departure from 1 g breaks the zero mean of the linear
///   acceleration in the inertial frame (on BROAD 21 weights `1 / (1 + (||a| − g| / 3 m/s²)²)`
///   raised the error from 1.6° to 13°), and shortening `τ` with the instantaneous rate of turn
///   raised it to 8–12°. Each step uses `σ` and `ρ` as measured up to the previous sample.
/// - *Rest* (`RestDetector`: gyro rate or spread, `|a|` within 5 % of g, 2 s): `τ` is
///   `restTimeConstant` (4 s): at rest there is no linear acceleration to average out, only
///   noise, and what the gyro drifted before (an uncalibrated offset, until its bias is
///   learned) must still be corrected: with the moving rule's 10 s a 0.1 rad/s offset left
///   1.4° after 25 s at rest, with 4 s under 1°. The gyro bias follows the raw gyro through a
///   one-pole low-pass of `biasTimeConstant` (the stationary gyroscope-offset tracking of x-io's Fusion
///   and VQF's rest bias estimation, sec. 3.4).
/// - *No gyro* in a sample: the strapdown frame does not turn and the low-pass runs on the raw
///   accelerometer with `τ = 1/gain + disturbanceSeconds · σ` (bounded as above): without a
///   gyro a longer average is lag under rotation, not drift, and `ρ` is unknown.
/// - *Start*: the first valid sample initialises the low-pass; until `τ` seconds have passed,
///   the estimate is the running mean of the strapdown-frame accelerometer (as VQF starts its
///   low-pass), then the filter takes over from that mean at steady state.
///
/// *Drift prediction* (`DriftPredictor`, on by default): while the device keeps turning the
/// same way, the gyro's errors make gravity drift in the strapdown frame, and the low-pass
/// follows that drift `τ` behind; the estimate returned is `u` turned forward by the lag the
/// low-pass leaves behind the drift measured over 20 s, scaled to the present turn and
/// weighted by the sustained rate of turn (nothing below 30 °/s), so the lag ends with the
/// turn. The filter's own state keeps `u`. BROAD 01: 0.553° → 0.463°; 21: 1.475° → 1.388°.
///
/// *Rotation at a distance* (`LeverArmCompensator`, off by default: `leverArmTimeConstant` 0):
/// the tangential and centripetal acceleration `ω̇ × r + ω × (ω × r)` of a sensor turned about
/// a point at `r`, fitted online and subtracted before the low-pass. It is off because on a
/// translating device the fit takes the part of the linear acceleration that correlates with
/// the hand's small turns for a lever arm (0.1–0.4 m on BROAD 15 against 5 cm on the rotation
/// trials), and subtracting that sample by sample, unlike the translation itself, does not
/// integrate to a bounded velocity in the strapdown frame: BROAD 15 went from 0.46° to 0.89°.
/// Without it the x-io spin stays below VQF's deviation (docs/FUSION.md).
public struct InertialFrameFilter: Sendable {
    /// `1/τ_rate` at `referenceRate`, 1/s (default 0.5: 2 s at 129 °/s; 0: gyro only).
    public var gain: Double { didSet { baseTimeConstant = Self.baseTimeConstant(gain: gain, referenceRate: referenceRate) } }
    /// Rate of turn at which `τ_rate = 1/gain`, rad/s (default 2.25).
    public var referenceRate: Double { didSet { baseTimeConstant = Self.baseTimeConstant(gain: gain, referenceRate: referenceRate) } }
    /// Rate added to `ρ` for the residual gyro bias, rad/s (default 0.05).
    public var rateFloor: Double
    /// Time constant of the rate's mean square `ρ²`, seconds (default 5).
    public var rateTimeConstant: Double { didSet { rateStep = 0 } }
    /// Seconds added to the time constant per m/s² of RMS innovation (default 0.05).
    public var disturbanceSeconds: Double
    /// Bounds of the time constant while moving, seconds (defaults 1 and 10).
    public var minTimeConstant: Double
    public var maxTimeConstant: Double
    /// The time constant while the device is at rest, seconds (default 4; see the type).
    public var restTimeConstant: Double
    /// Time constant of the innovation's mean square when it rises, seconds (default 1).
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
    /// Time constant of the lever-arm fit, seconds (default 0: no compensation; see the type).
    public var leverArmTimeConstant: Double {
        didSet { if leverArmTimeConstant > 0 { lever.timeConstant = leverArmTimeConstant } }
    }
    /// Sustained rate of turn from which the estimate is predicted along gravity's drift in the
    /// strapdown frame, rad/s (default 30 °/s, whole from twice that; 0: no prediction). See
    /// `DriftPredictor`.
    public var driftOnsetRate: Double {
        get { drift.onsetRate }
        set { drift.onsetRate = max(0, newValue) }
    }
    /// The fitted lever arm, metres, sensor frame: from the centre of the device's rotation to
    /// the accelerometer (zero until the device turns, and with no compensation).
    public var leverArm: Vector3 { lever.leverArm }
    /// Rest detection; its `maxGyroBias` also bounds every bias component.
    public var rest: RestDetector
    /// Current gyro bias estimate, rad/s.
    public private(set) var gyroBias: Vector3

    /// Damping of the low-pass: `2ζ` with `ζ = 1/√2` (Butterworth).
    static let damping2 = 2.0.squareRoot()

    private var hasAttitude = false
    // The low-pass's two integrator states (m/s²; at steady state `low` is its output) and the unit up vector:
    // strapdown-frame vectors, held as seen from the sensor now (see the type).
    private var band = Vector3.zero, low = Vector3.zero
    private var up = Vector3(0, 0, 1)
    // Mean square of the innovation, (m/s²)², and its two smoothing weights cached for one dt
    // (`disturbanceStep = 0`, a step no sample has, forces a recomputation).
    private var disturbance2 = 0.0
    private var disturbanceStep = 0.0, attackAlpha = 0.0, releaseAlpha = 0.0
    // Mean square of the bias-corrected rate, (rad/s)², and its weight cached for one dt.
    private var rate2 = 0.0
    private var rateStep = 0.0, rateAlpha = 0.0
    // `√referenceRate / gain` (∞ for gain ≤ 0: gyro only), kept in step by the `didSet`s.
    private var baseTimeConstant: Double
    // The bias low-pass weight at rest, cached for one dt (`0` forces a recomputation).
    private var biasStep = 0.0, biasAlpha = 0.0
    // The start: seconds since it and the number of samples of the running mean in `low`.
    private var startSeconds = 0.0, startSamples = 0.0, starting = false
    private var lever: LeverArmCompensator
    private var drift = DriftPredictor()
    // The estimate returned last: `up`, or `up` predicted along the drift.
    private var estimate = Vector3(0, 0, 1)
    // The previous step's bias-corrected gyro increment `Δθ_{k−1}`, rad (zero after a start or a
    // sample without gyro: no coning term for the first step).
    private var previousIncrement = Vector3.zero

    public init(gain: Double = 0.5, referenceRate: Double = 2.25, rateFloor: Double = 0.05, rateTimeConstant: Double = 5,
                disturbanceSeconds: Double = 0.05, minTimeConstant: Double = 1, maxTimeConstant: Double = 10,
                restTimeConstant: Double = 4, disturbanceAttack: Double = 1, disturbanceRelease: Double = 5,
                biasTimeConstant: Double = 2, leverArmTimeConstant: Double = 0, rest: RestDetector = RestDetector(),
                initialGyroBias: Vector3 = .zero) {
        self.gain = gain
        self.referenceRate = referenceRate
        self.baseTimeConstant = Self.baseTimeConstant(gain: gain, referenceRate: referenceRate)
        self.rateFloor = rateFloor
        self.rateTimeConstant = rateTimeConstant
        self.disturbanceSeconds = disturbanceSeconds
        self.minTimeConstant = minTimeConstant
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
    /// `clamp((1/gain) √(referenceRate / (ρ + rateFloor)) + disturbanceSeconds · σ, minTimeConstant,
    /// maxTimeConstant)` (∞ for gain 0: gyro only), with `ρ` and `σ` as measured up to the last
    /// sample.
    public var timeConstant: Double {
        guard baseTimeConstant.isFinite else { return .infinity }
        let tau = baseTimeConstant / (rate2.squareRoot() + rateFloor).squareRoot()
            + disturbanceSeconds * disturbance2.squareRoot()
        return min(maxTimeConstant, max(minTimeConstant, tau))
    }

    private static func baseTimeConstant(gain: Double, referenceRate: Double) -> Double {
        gain > 0 ? referenceRate.squareRoot() / gain : .infinity
    }

    /// RMS innovation `σ`, m/s²: how far the accelerometer departs from the expected gravity.
    public var disturbance: Double { disturbance2.squareRoot() }

    /// RMS bias-corrected rate of turn `ρ`, rad/s.
    public var rate: Double { rate2.squareRoot() }

    /// The estimated unit up vector in the sensor frame (nil before the first sample).
    public var upVector: Vector3? { hasAttitude ? estimate : nil }

    /// Starts (again) from one accelerometer sample (m/s², non-zero, finite): up = its direction.
    public mutating func initialise(accel: Vector3) {
        band = .zero
        low = accel
        up = accel * (1 / accel.length)
        estimate = up
        drift.reset()
        disturbance2 = 0
        rate2 = 0
        previousIncrement = .zero
        lever.reset()
        startSeconds = 0
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
        guard dt > 0 else { return estimate }

        var atRest = false
        var z1 = band, z2 = low, u = up
        var accel = accel
        let compensating = leverArmTimeConstant > 0
        var compensated = false
        var turned = false
        var omega = Vector3.zero
        // This step's low-pass coefficients, which the drift's lag model follows too.
        var a1 = 0.0, a2 = 0.0, a3 = 0.0, filtered = false
        // This step's time constant uses the rate and the disturbance measured up to the
        // previous sample: the square roots and the division that make it do not wait for this
        // sample's innovation, which itself waits for the previous step's up vector.
        var tau = timeConstant
        if let w = gyro, FusionFilter.allFinite(w) {
            omega = w - gyroBias
            atRest = rest.update(gyro: w, omega: omega, accelDirection: a, norm: norm, dt: dt)
            if atRest, biasTimeConstant > 0 {
                if dt != biasStep {
                    biasStep = dt
                    biasAlpha = oneMinusExpNegative(dt / biasTimeConstant)
                }
                gyroBias = RestDetector.clamped(gyroBias + (w - gyroBias) * biasAlpha, max(0, rest.maxGyroBias))
                omega = w - gyroBias
            }
            // Vectors fixed in the strapdown frame, seen from the sensor after it turned by this
            // step's rotation vector (the increment plus the two-sample coning term).
            let increment = omega * dt
            let step = RotationMatrix(rotationVector: -(increment + previousIncrement.cross(increment) * (1.0 / 12)))
            previousIncrement = increment
            z1 = step.apply(z1)
            z2 = step.apply(z2)
            u = step.apply(u)
            drift.rotate(by: step, omega: omega, dt: dt)
            turned = true
            if compensating {
                accel = accel - lever.acceleration(omega: omega, dt: dt)
                compensated = true
            }
            if dt != rateStep {
                rateStep = dt
                rateAlpha = oneMinusExpNegative(dt / rateTimeConstant)
            }
            rate2 += (omega.dot(omega) - rate2) * rateAlpha
        } else {
            // No gyro: no strapdown frame and no rate, so the low-pass runs on the raw
            // accelerometer, where a longer `τ` is lag under rotation: `1/gain` as for the other
            // filters (plus the disturbance term).
            lever.forgetRate()
            previousIncrement = .zero
            if tau.isFinite {
                tau = min(maxTimeConstant, max(minTimeConstant, baseTimeConstant / referenceRate.squareRoot()
                    + disturbanceSeconds * disturbance2.squareRoot()))
            }
        }
        if atRest, tau.isFinite { tau = restTimeConstant }

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

        var output = z2
        let previous = u
        if starting {
            // Running mean of the strapdown-frame accelerometer, then the filter at steady
            // state on that mean (integrators: band 0, low = the mean).
            startSamples += 1
            startSeconds += dt
            z2 = z2 + (accel - z2) * (1 / startSamples)
            output = z2
            if startSeconds >= tau { starting = false }
        } else if tau.isFinite {
            let g = Self.tanHalf(dt / tau)
            a1 = 1 / (1 + g * (g + Self.damping2))
            a2 = g * a1
            a3 = g * a2
            filtered = true
            let v3 = accel - z2
            let v1 = z1 * a1 + v3 * a2
            output = z2 + z1 * a2 + v3 * a3
            z1 = v1 * 2 - z1
            z2 = output * 2 - z2
        }
        let n2 = output.dot(output)
        // A low-pass output near zero (a long free fall) has no direction: keep the last one.
        if n2 > 1e-12, n2.isFinite { u = output * (1 / n2.squareRoot()) }
        band = z1
        low = z2
        up = u
        // Gravity's drift is learned only while the device moves under the moving rule (not at
        // rest, nor in the start's running mean) with a gyro; the lag behind it is followed on
        // every step of the low-pass, so that it decays at rest and without gyro.
        if turned, !atRest, !starting, tau.isFinite {
            drift.observe(previous: previous, up: u, dt: dt)
        }
        if filtered {
            drift.followLag(omega: atRest ? .zero : omega, dt: dt, a1: a1, a2: a2, a3: a3)
            estimate = drift.predict(u)
        } else {
            estimate = u
        }
        return estimate
    }

    /// `g = tan(ω₀ dt / 2)` of the state-variable filter for `x = dt / τ` (`ω₀ = 2ζ / τ`, so
    /// the angle is `ζ x`): the Taylor series `y + y³/3 + 2y⁵/15` below `y = 0.05` (relative
    /// error < `17 y⁶/315` ≈ 1e-9), `tan` above. At 100–1000 Hz and `τ ≥ 1 s`, `y < 0.01`.
    @inline(__always) static func tanHalf(_ x: Double) -> Double {
        let y = x * (0.5 * damping2)
        if y < 0.05 {
            let y2 = y * y
            return y * (1 + y2 * (1.0 / 3 + y2 * (2.0 / 15)))
        }
        return tan(y)
    }
}
