#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `InertialFrameFilter` caches `1/gain` and its per-`dt` smoothing weights (innovation attack
/// and release, gyro bias at rest); a change of the setting between samples must take effect on
/// the next sample, as `FusionCorrectionStepTests` checks for `FusionFilter`.
@Suite struct InertialFilterStepTests {
    static let g = standardGravity

    @Test func timeConstantFollowsGain() {
        var filter = InertialFrameFilter(gain: 0.5)
        filter.initialise(accel: Vector3(0, 0, Self.g))
        #expect(filter.timeConstant == 2)  // 1/gain + 0.1 s/(m/s²) · σ, σ = 0 after a start
        filter.gain = 4
        #expect(filter.timeConstant == 0.25)
        filter.gain = 0
        #expect(filter.timeConstant == .infinity)  // gyro only
        filter.gain = 1
        // One sample 3 m/s² above g along the estimated up (no gyro): innovation² = 9 (m/s²)²,
        // so σ = √(9 (1 − e^(−dt/0.2))), and the next sample's time constant is 1 + 0.1 σ.
        _ = filter.update(accel: Vector3(0, 0, Self.g + 3), gyro: nil, dt: 0.01)
        let sigma = (9 * (1 - exp(-0.01 / 0.2))).squareRoot()
        #expect(abs(filter.disturbance - sigma) < 1e-12)
        #expect(abs(filter.timeConstant - (1 + 0.1 * sigma)) < 1e-12)
    }

    @Test func disturbanceAttackChangeTakesEffectOnTheNextSample() {
        // Samples 3 m/s² above g along the estimated up, no gyro: the strapdown frame does not
        // turn and the direction does not change, so every innovation² is exactly 9 (m/s²)²
        // and the mean square rises as D ← D + (9 − D)(1 − e^(−dt/attack)).
        var filter = InertialFrameFilter()
        filter.initialise(accel: Vector3(0, 0, Self.g))
        let a = Vector3(0, 0, Self.g + 3), dt = 0.01
        _ = filter.update(accel: a, gyro: nil, dt: dt)
        let first = 9 * (1 - exp(-dt / 0.2))
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
