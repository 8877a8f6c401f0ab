#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `FusionFilter` caches its correction rate `k = (1 − e^(−gain·dt)) / dt` and integral step per
/// `dt`; a change of `gain` (or `integralGain`) between samples must take effect at once.
@Suite struct FusionCorrectionStepTests {
    /// One step with a zero gyro from an estimate `angle` radians away from the accelerometer
    /// (about x): the correction turns `v` toward `â` by `k · dt · sin(angle)` radians.
    static func stepAngle(_ filter: inout FusionFilter, from angle: Double, dt: Double) -> Double {
        let g = standardGravity
        filter.initialise(accelDirection: Vector3(0, sin(angle), cos(angle)))
        let up = filter.update(accel: Vector3(0, 0, g), gyro: .zero, dt: dt)
        return up.angle(to: Vector3(0, 0, 1))
    }

    @Test func gainChangeTakesEffectOnTheNextSample() {
        var filter = FusionFilter(gain: 0.5, biasTimeConstant: 0, integralGain: 0)
        let e = 5 * Double.pi / 180, dt = 0.01
        let first = Self.stepAngle(&filter, from: e, dt: dt)
        #expect(abs(first - (e - (1 - exp(-0.5 * dt)) * sin(e))) < 1e-15)
        filter.gain = 20
        let second = Self.stepAngle(&filter, from: e, dt: dt)
        #expect(abs(second - (e - (1 - exp(-20 * dt)) * sin(e))) < 1e-15)
        filter.gain = 0
        #expect(abs(Self.stepAngle(&filter, from: e, dt: dt) - e) < 1e-15)
    }

    @Test func integralGainChangeTakesEffectOnTheNextSample() {
        // A zero gyro and a tilt error about x: the integral term moves the bias by
        // −k_I·dt·(â × v), i.e. along x by k_I·dt·sin(e) (â × v = (−sin e, 0, 0) here).
        var filter = FusionFilter(gain: 0.5, biasTimeConstant: 0, integralGain: 0)
        let e = 5 * Double.pi / 180, dt = 0.01
        _ = Self.stepAngle(&filter, from: e, dt: dt)
        #expect(filter.gyroBias == .zero)
        filter.integralGain = 3
        _ = Self.stepAngle(&filter, from: e, dt: dt)
        #expect(abs(filter.gyroBias.x - 3 * dt * sin(e)) < 1e-15)
        #expect(filter.gyroBias.y == 0 && filter.gyroBias.z == 0)
    }

    @Test func gyroFinitenessTest() {
        #expect(FusionFilter.allFinite(Vector3(0, -0.0, 3)))
        #expect(FusionFilter.allFinite(Vector3(1e308, -1e308, .leastNonzeroMagnitude)))
        #expect(!FusionFilter.allFinite(Vector3(.infinity, 0, 0)))
        #expect(!FusionFilter.allFinite(Vector3(0, -.infinity, 0)))
        #expect(!FusionFilter.allFinite(Vector3(0, 0, .nan)))
        #expect(!FusionFilter.allFinite(Vector3(.infinity, -.infinity, 0)))
    }

    @Test func nonFiniteGyroIsIgnored() {
        // A non-finite rate is treated as no gyro: correction only, bias and stillness untouched.
        var withNaN = FusionFilter(biasTimeConstant: 0), without = FusionFilter(biasTimeConstant: 0)
        let e = 5 * Double.pi / 180
        let a = Vector3(0, 0, standardGravity)
        withNaN.initialise(accelDirection: Vector3(0, sin(e), cos(e)))
        without.initialise(accelDirection: Vector3(0, sin(e), cos(e)))
        let u = withNaN.update(accel: a, gyro: Vector3(0.1, .nan, 0), dt: 0.01)
        let v = without.update(accel: a, gyro: nil, dt: 0.01)
        #expect(u == v)
        #expect(withNaN.gyroBias == .zero && withNaN.stillSeconds == 0)
    }
}
