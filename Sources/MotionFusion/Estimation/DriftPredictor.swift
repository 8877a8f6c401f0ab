/// Removes the lag of `InertialFrameFilter`'s low-pass behind gravity drifting in the strapdown
/// frame while the device keeps turning the same way.
///
/// *Why.* The gyro's own errors (scale, misalignment, timing: `ε` per radian turned) turn the
/// strapdown frame slowly against the world while the device turns, so gravity, fixed in the
/// world, drifts there at about `ε Ω̄`, with `Ω̄` the device's sustained rate of turn (its rate
/// averaged in the strapdown frame, where a hand's back-and-forth turns cancel). A low-pass
/// with the group delay `τ` follows a steady drift `d` (rad/s, the drift's rotation vector
/// rate) `τ |d|` behind (a second-order low-pass follows a ramp with exactly its delay at 0
/// Hz), so the estimate is `τ d` late: on BROAD trial 01 (41 °/s sustained) the drift is
/// 0.07 °/s on average, 0.19° of lag at `τ` ≈ 2.6 s; on 21 (196 °/s) 0.15 °/s and 0.28°.
///
/// *How.* The drift is the rate of turn of the filter's own up vector in the strapdown frame,
/// `w = u_{k−1} × u_k / dt` (the component across `u`, the only one gravity shows), averaged by
/// two one-pole stages of `averagingTime` (a 20 s group delay): over that long, the up vector's
/// wander from linear acceleration and taps, which the low-pass keeps bounded, averages out,
/// and a drift that persists does not. The drift comes from the gyro's error per radian turned,
/// so at each step it is taken as `d` scaled to this step's turn along the sustained one,
/// `r = d (ω · Ω̄) / |Ω̄|²` (`r = d` in a steady turn, 0 once the device stops), and the lag is
/// what the filter's own low-pass leaves behind that rate: `r` is fed, as the rate of a ramp
/// `θ`, through the same state-variable filter at the same `τ` as the low-pass, and the lag is
/// `L = θ − y`, kept as the two state differences (`θ − z₂`, and `z₁`) so that `θ` itself is
/// never held. In a steady turn `L = τ d` (a second-order low-pass follows a ramp with exactly
/// its delay at 0 Hz); when the turn stops, `L` decays as the low-pass's own lag does, so the
/// prediction does not push on past the stop (a prediction of `τ d` with the 20 s average did:
/// a 2 rad/s tumble with a gyro 1 % high overshot by 2.5–2.8° for 2–3 s after the stop). The
/// prediction turns the estimate forward by the lag, `u + L × u`, normalised; the filter's
/// state keeps the unpredicted `u`, so the prediction never feeds back. At rest and on samples
/// without gyro the lag keeps decaying at that step's `τ` (no turn: `r = 0`), so the output
/// joins `u` smoothly.
///
/// *When.* The drift comes from turning, the averaged wander does not: `r` is weighted by
/// `clamp((|Ω̄| − onsetRate) / onsetRate, 0, 1)`, nothing below `onsetRate` (30 °/s) of
/// sustained turn, all from twice that, so that the weight changes smoothly. On the BROAD
/// trials that do not keep turning (sustained rate 1.8–22 °/s: translation, taps, vibration),
/// the averaged wander is of the same size as the drift it would correct (0.01–0.02 °/s) and
/// predicting it out raised the error (trial 10: 0.266° → 0.284°; 24: 0.606° → 0.619°).
///
/// All vectors are strapdown-frame vectors held as seen from the sensor now (as in
/// `InertialFrameFilter`): each gyro step turns them with `rotate(by:)`.
struct DriftPredictor: Sendable {
    /// Time constant of each of the two averaging stages of the drift, seconds (default 10).
    var averagingTime: Double { didSet { averageStep = 0 } }
    /// Sustained rate of turn below which nothing is predicted, rad/s (default 30 °/s); the
    /// prediction is whole from twice this.
    var onsetRate: Double
    /// Time constant of the sustained rate of turn `Ω̄`, seconds (default 5, as the filter's `ρ`).
    var spinTime: Double { didSet { spinStep = 0 } }

    /// The drift `d` of gravity in the strapdown frame, rad/s (rotation vector rate, sensor frame now).
    private(set) var drift = Vector3.zero
    /// The sustained rate of turn `Ω̄`, rad/s (the rate's mean in the strapdown frame).
    private(set) var spin = Vector3.zero
    private var firstStage = Vector3.zero
    private var averageStep = 0.0, averageAlpha = 0.0, averageRateWeight = 0.0
    private var spinStep = 0.0, spinAlpha = 0.0
    // The lag model's states: the ramp minus the second integrator, `θ − z₂`, and the first
    // integrator `z₁`, rad (rotation vectors).
    private var lagDifference = Vector3.zero, lagBand = Vector3.zero
    /// The low-pass's lag behind gravity `L`, rad (rotation vector, sensor frame now): gravity
    /// is about `u` turned by `L`.
    private(set) var lag = Vector3.zero

    init(averagingTime: Double = 10, onsetRate: Double = 30 * .pi / 180, spinTime: Double = 5) {
        self.averagingTime = averagingTime
        self.onsetRate = onsetRate
        self.spinTime = spinTime
    }

    /// Forgets the drift and the sustained turn (a new start of the filter), or only the lag.
    mutating func reset(lagOnly: Bool = false) {
        if !lagOnly {
            drift = .zero
            firstStage = .zero
            spin = .zero
        }
        lagDifference = .zero
        lagBand = .zero
        lag = .zero
    }

    /// Turns the held vectors by one gyro step (the filter's `exp(−[φ]×)`) and takes the step's
    /// bias-corrected rate `omega` (rad/s, sensor frame) into `Ω̄`.
    @inline(__always) mutating func rotate(by step: RotationMatrix, omega: Vector3, dt: Double) {
        drift = step.apply(drift)
        firstStage = step.apply(firstStage)
        spin = step.apply(spin)
        lagDifference = step.apply(lagDifference)
        lagBand = step.apply(lagBand)
        lag = step.apply(lag)
        if dt != spinStep {
            spinStep = dt
            spinAlpha = oneMinusExpNegative(dt / spinTime)
        }
        spin = spin + (omega - spin) * spinAlpha
    }

    /// Takes one step of the estimate, `previous` (turned into this sample's frame) to `up`
    /// (unit vectors), `dt` seconds apart, into the drift.
    @inline(__always) mutating func observe(previous: Vector3, up: Vector3, dt: Double) {
        if dt != averageStep {
            averageStep = dt
            averageAlpha = oneMinusExpNegative(dt / averagingTime)
            // The step's rate `Δu / dt` enters the mean with weight `α`: as `Δu (α / dt)`,
            // which tends to `Δu / averagingTime` as `dt → 0`, where `1 / dt` overflows.
            averageRateWeight = averageAlpha / dt
        }
        firstStage = firstStage * (1 - averageAlpha) + previous.cross(up) * averageRateWeight
        drift = drift + (firstStage - drift) * averageAlpha
    }

    /// Takes one step of the lag model with the low-pass's coefficients of this step
    /// (`InertialFrameFilter`: `a₁ = 1 / (1 + g (g + 2ζ))`, `a₂ = g a₁`, `a₃ = g a₂`) and the
    /// step's bias-corrected rate `omega` (rad/s, sensor frame; zero at rest or without gyro).
    @inline(__always) mutating func followLag(omega: Vector3, dt: Double, a1: Double, a2: Double, a3: Double) {
        var rate = Vector3.zero
        let spin2 = spin.dot(spin)
        if onsetRate > 0, spin2 > onsetRate * onsetRate {
            let weight = min(1, (spin2.squareRoot() - onsetRate) / onsetRate)
            rate = drift * (weight * omega.dot(spin) / spin2)
        } else if lag.dot(lag) < 1e-24 {
            // Nothing to predict and under 1e-12 rad left: the states end at zero rather than
            // decaying on into subnormal numbers.
            if lag.dot(lag) > 0 { reset(lagOnly: true) }
            return
        }
        // The state-variable filter on a ramp whose step is `rate dt`, in differences from it.
        let v3 = lagDifference + rate * dt
        let v1 = lagBand * a1 + v3 * a2
        let followed = lagBand * a2 + v3 * a3
        lagBand = v1 * 2 - lagBand
        lagDifference = v3 - followed * 2
        lag = v3 - followed
    }

    /// The unit up vector `u` turned forward by the lag (`u` itself while there is none).
    @inline(__always) func predict(_ u: Vector3) -> Vector3 {
        guard lag.dot(lag) > 0 else { return u }
        let p = u + lag.cross(u)
        return p * (1 / p.length)
    }
}
