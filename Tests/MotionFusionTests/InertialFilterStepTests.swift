#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `InertialFrameFilter` caches `√referenceRate / gain` and its per-`dt` smoothing weights
/// (innovation attack and release, rate, gyro bias at rest); a change of the setting between samples must take effect on
/// the next sample, as `FusionCorrectionStepTests` checks for `FusionFilter`.
@Suite struct InertialFilterStepTests {
    static let g = standardGravity

    @Test func timeConstantFollowsGainRateAndDisturbance() {
        // τ = clamp((1/gain) √(2.25 rad/s / (ρ + 0.05 rad/s)) + 0.05 s/(m/s²) · σ, 1 s, 10 s).
        var filter = InertialFrameFilter(gain: 4)
        filter.initialise(accel: Vector3(0, 0, Self.g))
        // After a start ρ = σ = 0: 1.5 / (4 √0.05) = 1.677 s.
        #expect(abs(filter.timeConstant - 1.5 / (4 * 0.05.squareRoot())) < 1e-12)
        filter.gain = 0.5
        #expect(filter.timeConstant == 10)  // 13.4 s, bounded
        filter.gain = 0
        #expect(filter.timeConstant == .infinity)  // gyro only
        filter.gain = 1
        // One sample 3 m/s² above g along the estimated up, turning at 2 rad/s about it (the
        // up vector, along the turn's axis, does not move): innovation² = 9 (m/s²)², so
        // σ = √(9 (1 − e^(−dt/1 s))); rate² = 4 (rad/s)², so ρ = √(4 (1 − e^(−dt/5 s))).
        let dt = 0.01
        _ = filter.update(accel: Vector3(0, 0, Self.g + 3), gyro: Vector3(0, 0, 2), dt: dt)
        let sigma = (9 * (1 - exp(-dt / 1))).squareRoot(), rho = (4 * (1 - exp(-dt / 5))).squareRoot()
        #expect(abs(filter.disturbance - sigma) < 1e-12)
        #expect(abs(filter.rate - rho) < 1e-12)
        #expect(abs(filter.timeConstant - (1.5 / (rho + 0.05).squareRoot() + 0.05 * sigma)) < 1e-12)
        filter.gain = 100
        #expect(filter.timeConstant == 1)  // bounded below
    }

    /// At a fixed time constant the state-variable low-pass is the bilinear-transform
    /// Butterworth biquad prewarped at `ω₀ = √2 / τ` (docs/FUSION.md §4's coefficients with
    /// `K = tan(ω₀ dt / 2)`, direct form I, started at steady state): without gyro the
    /// strapdown frame does not turn, so the estimate is the direction of that biquad's output;
    /// and without gyro the time constant is `1/gain` (2 s at the default 0.5, with the
    /// disturbance term off here), whatever the rate rule would say for a device that never
    /// turned (10 s).
    @Test func lowPassAtAFixedTimeConstantIsTheButterworthBiquad() {
        let tau = 2.0, dt = 0.01
        var filter = InertialFrameFilter(gain: 1 / tau, disturbanceSeconds: 0)
        let rest = Vector3(0, 0, Self.g)
        filter.initialise(accel: rest)
        for _ in 0..<300 { _ = filter.update(accel: rest, gyro: nil, dt: dt) }  // the 2 s running mean, then steady
        let k = tan(dt / (2.0.squareRoot() * tau)), n = 1 / (1 + 2.0.squareRoot() * k + k * k)
        let b0 = k * k * n, b1 = 2 * b0, a1 = 2 * (k * k - 1) * n, a2 = (1 - 2.0.squareRoot() * k + k * k) * n
        var x1 = rest, x2 = rest, y1 = rest, y2 = rest
        var worst = 0.0
        for i in 1...2000 {
            let t = Double(i) * dt
            let a = Vector3(3 * sin(2 * Double.pi * 0.7 * t), 2 * cos(2 * Double.pi * 0.3 * t), Self.g + sin(2 * Double.pi * 1.9 * t))
            let up = filter.update(accel: a, gyro: nil, dt: dt)
            let y = a * b0 + x1 * b1 + x2 * b0 - y1 * a1 - y2 * a2
            x2 = x1; x1 = a; y2 = y1; y1 = y
            worst = max(worst, (up - y * (1 / y.length)).length)
        }
        #expect(worst < 1e-10, "largest difference \(worst)")
    }

    @Test func disturbanceAttackChangeTakesEffectOnTheNextSample() {
        // Samples 3 m/s² above g along the estimated up, no gyro: the strapdown frame does not
        // turn and the direction does not change, so every innovation² is exactly 9 (m/s²)²
        // and the mean square rises as D ← D + (9 − D)(1 − e^(−dt/attack)).
        var filter = InertialFrameFilter()
        filter.initialise(accel: Vector3(0, 0, Self.g))
        let a = Vector3(0, 0, Self.g + 3), dt = 0.01
        _ = filter.update(accel: a, gyro: nil, dt: dt)
        let first = 9 * (1 - exp(-dt / 1))
        #expect(abs(filter.disturbance - first.squareRoot()) < 1e-12)
        filter.disturbanceAttack = 0.05
        _ = filter.update(accel: a, gyro: nil, dt: dt)
        let second = first + (9 - first) * (1 - exp(-dt / 0.05))
        #expect(abs(filter.disturbance - second.squareRoot()) < 1e-12)
    }

    @Test func biasTimeConstantChangeTakesEffectOnTheNextSample() {
        // Flat and still at 100 Hz with a 0.01 rad/s offset on x: at rest after 2 s, then the
        // bias follows the raw gyro, b ← b + (w − b)(1 − e^(−dt/T)).
        var filter = InertialFrameFilter(biasTimeConstant: 2)
        let a = Vector3(0, 0, Self.g), w = Vector3(0.01, 0, 0), dt = 0.01
        filter.initialise(accel: a)
        for _ in 0..<250 { _ = filter.update(accel: a, gyro: w, dt: dt) }
        let before = filter.gyroBias.x
        #expect(before > 0.001 && before < 0.005)  // learning for about 0.5 s of the 2 s constant
        filter.biasTimeConstant = 0.5
        _ = filter.update(accel: a, gyro: w, dt: dt)
        #expect(abs(filter.gyroBias.x - (before + (0.01 - before) * (1 - exp(-dt / 0.5)))) < 1e-15)
        #expect(filter.gyroBias.y == 0 && filter.gyroBias.z == 0)
    }
}
