/// Removes from the accelerometer the acceleration that the device's own rotation gives a sensor
/// held away from the centre of rotation, with the lever arm fitted online: the accelerometer
/// stage of `InertialFrameFilter`.
///
/// A point at `r` (metres, sensor frame) from a fixed pivot of a rigid body turning at `ω`
/// (rad/s) with angular acceleration `ω̇` (rad/s²) has the acceleration
/// `ω̇ × r + ω × (ω × r)` (tangential plus centripetal; any mechanics text, e.g. Goldstein,
/// *Classical Mechanics*, §4.10): `M r` with the 3 × 3 matrix `M = [ω̇]× + ωωᵀ − |ω|² I`. A device
/// spun at arm's length (the x-io recording's spin: 200 °/s at 0.66 m, 0.85 g centripetal) reads
/// that on top of gravity; in the strapdown frame it turns with the device and does not average
/// out within the low-pass's time constant. Subtracting `M r` removes it, and it is zero when
/// the device does not turn, so a still or translating device is left as it is.
///
/// `r` is fitted by normalised least mean squares (Widrow and Hoff's LMS, normalised as in
/// Haykin, *Adaptive Filter Theory*, ch. 6) on the filter's innovation `e = a − M r − g u`:
/// `r ← r + (dt / T) Mᵀ e / (‖M‖² + ε)`, with `‖M‖` the Frobenius norm, `T` the fitting time
/// constant and `ε` (rad²/s⁴) a regularisation that keeps a slowly turning device (whose `M` is
/// small and says little about `r`) from moving `r` on noise. `ω̇` is the difference of
/// successive bias-corrected rates, bounded to `maxAngularAcceleration`; `|r|` to `maxLeverArm`.
struct LeverArmCompensator: Sendable {
    /// Fitting time constant `T`, seconds (> 0).
    var timeConstant: Double { didSet { cachedStep = 0 } }
    /// Regularisation `ε` of the normalised step, rad²/s⁴ (1: rates below about 1 rad/s fit slowly).
    var regularisation: Double
    /// Bound of `|r|`, metres (2: beyond arm's length).
    var maxLeverArm: Double
    /// Bound of each component of `ω̇`, rad/s² (1000: taps on BROAD trial 24 give 260 at the
    /// 99.9th percentile and 1,370 at the sharpest; two rates a few µs apart on jittered
    /// timestamps would give far more).
    var maxAngularAcceleration: Double

    /// The fitted lever arm `r`, metres, sensor frame (from the centre of rotation to the sensor).
    private(set) var leverArm = Vector3.zero
    private var previousOmega = Vector3.zero, hasPrevious = false
    // This sample's `ω` and `ω̇`, which define `M`.
    private var omega = Vector3.zero, omegaDot = Vector3.zero
    // `1/dt` and `dt/T` cached for one dt (`cachedStep = 0`, a step no sample has, forces a
    // recomputation): at a steady sample rate the two divisions are made once.
    private var cachedStep = 0.0, inverseStep = 0.0, stepWeight = 0.0

    init(timeConstant: Double, regularisation: Double = 1, maxLeverArm: Double = 2, maxAngularAcceleration: Double = 1000) {
        self.timeConstant = timeConstant
        self.regularisation = regularisation
        self.maxLeverArm = maxLeverArm
        self.maxAngularAcceleration = maxAngularAcceleration
    }

    /// The rotational acceleration `M r = ω̇ × r + ω (ω · r) − |ω|² r` at this sample, m/s²
    /// (sensor frame), from the bias-corrected rate `omega` (rad/s) and the seconds `dt` (> 0)
    /// since the previous rate.
    @inline(__always)
    mutating func acceleration(omega o: Vector3, dt: Double) -> Vector3 {
        if dt != cachedStep {
            cachedStep = dt
            inverseStep = 1 / dt
            stepWeight = dt / timeConstant
        }
        var d = Vector3.zero
        if hasPrevious {
            let limit = maxAngularAcceleration
            d = (o - previousOmega) * inverseStep
            d = Vector3(min(max(d.x, -limit), limit), min(max(d.y, -limit), limit), min(max(d.z, -limit), limit))
        }
        previousOmega = o
        hasPrevious = true
        omega = o
        omegaDot = d
        let r = leverArm
        return d.cross(r) + o * o.dot(r) - r * o.dot(o)
    }

    /// One LMS step on the innovation `e` (m/s²) left after `acceleration(omega:dt:)`'s `M r`
    /// and gravity were subtracted from this sample (the step is that call's `dt`).
    /// `Mᵀ e = e × ω̇ + ω (ω · e) − |ω|² e` (`[ω̇]×` is antisymmetric, the rest symmetric), and
    /// `‖M‖² = 2 |ω̇|² + 2 |ω|⁴` (the antisymmetric and symmetric parts are orthogonal, and
    /// `ωωᵀ − |ω|² I` has the eigenvalues 0, −|ω|², −|ω|²).
    @inline(__always)
    mutating func adapt(innovation e: Vector3) {
        let o = omega, d = omegaDot, o2 = o.dot(o)
        let gradient = e.cross(d) + o * o.dot(e) - e * o2
        let norm2 = 2 * (d.dot(d) + o2 * o2)
        var r = leverArm + gradient * (stepWeight / (norm2 + regularisation))
        let r2 = r.dot(r)
        if r2 > maxLeverArm * maxLeverArm { r = r * (maxLeverArm / r2.squareRoot()) }
        if r2.isFinite { leverArm = r }
    }

    /// Forgets the previous rate (after a gap or a sample without gyro: no `ω̇` across it).
    mutating func forgetRate() { hasPrevious = false }

    /// Forgets the lever arm as well (a new start).
    mutating func reset() {
        leverArm = .zero
        hasPrevious = false
    }
}
