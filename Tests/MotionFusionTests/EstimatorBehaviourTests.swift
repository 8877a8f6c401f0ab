#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

@Suite struct EstimatorBehaviourTests {
    static let g = standardGravity
    static let deg = Double.pi / 180

    static func accel(roll: Double, pitch: Double = 0) -> Vector3 {
        TiltEstimate(timeSeconds: 0, roll: roll * deg, pitch: pitch * deg).up * g
    }

    static func sample(_ ms: Int64, _ a: Vector3, _ w: Vector3? = Vector3.zero) -> IMUSample {
        IMUSample(timestampNanoseconds: ms * 1_000_000, accel: a, gyro: w)
    }

    @Test(arguments: EstimationMethod.allCases)
    func startsFromFirstValidSampleWithoutRamp(method: EstimationMethod) throws {
        var e = AttitudeEstimator(method: method)
        let first = e.update(Self.sample(0, Self.accel(roll: 30, pitch: -20)))
        let est = try #require(first)
        #expect(abs(est.rollDegrees - 30) < 1e-9 && abs(est.pitchDegrees + 20) < 1e-9)
        #expect(est.timeSeconds == 0)
    }

    @Test(arguments: EstimationMethod.allCases, [nil, 5.0])
    func zeroVectorIsNoDataAndHolds(method: EstimationMethod, lowpass: Double?) throws {
        var e = AttitudeEstimator(method: method, lowpassCutoffHz: lowpass)
        #expect(e.update(Self.sample(0, .zero)) == nil)
        #expect(e.estimate == nil)
        let r1 = e.update(Self.sample(10, Self.accel(roll: 12)))
        let held = try #require(r1)
        #expect(abs(held.rollDegrees - 12) < 1e-9)
        #expect(e.update(Self.sample(20, .zero)) == nil)
        #expect(e.update(Self.sample(30, Vector3(.nan, 0, 9.8))) == nil)
        #expect(e.update(Self.sample(40, Vector3(0, .infinity, 9.8))) == nil)
        #expect(e.estimate == held)  // held, not NaN and not a fake 0°
    }

    @Test func gyroIntegrationSignAndMagnitude() throws {
        // Rotating about +y at 0.5 rad/s for 1 s turns +x toward −z: right edge down, roll +0.5 rad.
        for method in [EstimationMethod.fusion, .complementary] {
            var e = AttitudeEstimator(method: method, gain: 0)
            var last: TiltEstimate?
            for k in 0...100 {
                last = e.update(Self.sample(Int64(k) * 10, Vector3(0, 0, Self.g), Vector3(0, 0.5, 0))) ?? last
            }
            let est = try #require(last)
            #expect(abs(est.roll - 0.5) < 1e-9, "\(method)")
            #expect(abs(est.pitch) < 1e-9)
        }
        // About +x at 0.3 rad/s for 1 s: the top edge rises, pitch +0.3 rad.
        var e = AttitudeEstimator(method: .fusion, gain: 0)
        var last: TiltEstimate?
        for k in 0...100 { last = e.update(Self.sample(Int64(k) * 10, Vector3(0, 0, Self.g), Vector3(0.3, 0, 0))) ?? last }
        #expect(abs(try #require(last).pitch - 0.3) < 1e-9)
    }

    @Test func fusionCorrectionFollowsClosedForm() throws {
        // Device still at roll 5°, filter started flat: dθ/dt = −gain·sin θ, so
        // θ(t) = 2·atan(tan(θ₀/2)·e^(−gain·t)). 1 kHz samples, gain 0.5, t = 2 s. The closed
        // form is that of the proportional term, so the integral bias term is switched off.
        var f = AttitudeEstimator(.init(method: .fusion, gain: 0.5, integralGain: 0))
        _ = f.update(Self.sample(0, Vector3(0, 0, Self.g)))
        var proportional: TiltEstimate?
        for k in 1...2000 { proportional = f.update(Self.sample(Int64(k), Self.accel(roll: 5))) ?? proportional }
        let expected = 2 * atan(tan(2.5 * Self.deg) * exp(-1.0)) / Self.deg
        let error = 5 - (try #require(proportional)).rollDegrees
        #expect(abs(error - expected) < 1e-3)
        // With the default integral term (k_I = gain²/4) the bias absorbs part of the error:
        // the tilt converges faster, never slower, and does not overshoot within 2 s.
        var e = AttitudeEstimator(method: .fusion, gain: 0.5)
        _ = e.update(Self.sample(0, Vector3(0, 0, Self.g)))
        var last: TiltEstimate?
        for k in 1...2000 { last = e.update(Self.sample(Int64(k), Self.accel(roll: 5))) ?? last }
        let withIntegral = 5 - (try #require(last)).rollDegrees
        #expect(withIntegral < expected && withIntegral > 0)
    }

    @Test func duplicatesAndGaps() throws {
        var e = AttitudeEstimator(method: .fusion)
        _ = e.update(Self.sample(0, Self.accel(roll: 0)))
        let r1 = e.update(Self.sample(10, Self.accel(roll: 0)))
        let before = try #require(r1)
        // Same timestamp, very different reading: ignored (dt = 0).
        let r2 = e.update(Self.sample(10, Self.accel(roll: 60)))
        #expect(r2 == before)
        // Earlier timestamp: ignored as well.
        #expect(e.update(Self.sample(5, Self.accel(roll: 60))) == before)
        // A gap longer than 0.5 s restarts from the accelerometer at once.
        let r3 = e.update(Self.sample(2_000, Self.accel(roll: 40)))
        #expect(abs(try #require(r3).rollDegrees - 40) < 1e-9)
    }

    @Test func fusionRejectsAccelerationAndTracksBias() throws {
        // Level device, a constant gyro offset of 0.01 rad/s on x and 0.3 g of sideways
        // acceleration for 1 s: the rejected accelerometer must not pull the tilt.
        var e = AttitudeEstimator(method: .fusion)
        let bias = Vector3(0.01, 0, 0)
        var k: Int64 = 0
        // 20 s still: bias converges (still after 2 s, then τ = 10 s → 1 − e^(−1.8) ≈ 83 %).
        while k <= 20_000 { _ = e.update(Self.sample(k, Vector3(0, 0, Self.g), bias)); k += 10 }
        #expect(abs(e.gyroBias.x - 0.01) < 0.01 * 0.2)
        var worst = 0.0
        for _ in 0..<100 {
            let est = e.update(Self.sample(k, Vector3(0.3 * Self.g, 0, Self.g), bias + Vector3(0, 0, 0.5)))
            worst = max(worst, abs(try #require(est).rollDegrees))
            k += 10
        }
        // Residual bias ≈ 17 % of 0.01 rad/s for 1 s ≈ 0.1°: the tilt stays within 0.25°.
        #expect(worst < 0.25)
        // The accelerometer-only estimate would read atan(0.3) = 16.7°.
    }

    @Test(arguments: [0.5, 20.0, 1000.0])
    func fusionCorrectionNeverOvershoots(gain: Double) throws {
        // Started flat, then held still at roll 5° (inside the 10° rejection cone), 100 Hz.
        // Each step turns v toward â by (1 − e^(−gain·dt)) · sin θ ≤ θ, so roll rises
        // monotonically toward 5° and never passes it; the first step reaches exactly
        // (1 − e^(−gain·0.01)) · sin 5° rad. (With gain itself as the rate, gain·dt = 10 threw
        // the estimate to ≈ 45°, where rejection then held it.) This is the proportional law, so
        // the integral bias term is off; with it on, see the end.
        var e = AttitudeEstimator(.init(method: .fusion, gain: gain, integralGain: 0))
        _ = e.update(Self.sample(0, Vector3(0, 0, Self.g)))
        var previous = 0.0
        for k in 1...300 {
            let result = e.update(Self.sample(Int64(k) * 10, Self.accel(roll: 5)))
            let roll = try #require(result).rollDegrees
            #expect(roll >= previous - 1e-12 && roll <= 5 + 1e-9, "step \(k)")
            if k == 1 {
                let expected = (1 - exp(-gain * 0.01)) * sin(5 * Self.deg) / Self.deg
                #expect(abs(roll - expected) < 1e-9, "first step, gain \(gain)")
            }
            previous = roll
        }
        if gain >= 20 { #expect(abs(previous - 5) < 1e-9) }
        // Default integral term: still stable at any gain; the overshoot is bounded by e^(−2)
        // of the 5° error (critically damped loop) and it settles back on 5°.
        var withIntegral = AttitudeEstimator(method: .fusion, gain: gain)
        _ = withIntegral.update(Self.sample(0, Vector3(0, 0, Self.g)))
        var worst = 0.0, roll = 0.0
        for k in 1...6000 {
            let result = withIntegral.update(Self.sample(Int64(k) * 10, Self.accel(roll: 5)))
            roll = try #require(result).rollDegrees
            worst = max(worst, roll - 5)
        }
        #expect(worst <= 5 * exp(-2.0) + 0.05, "gain \(gain): overshoot \(worst)°")
        #expect(abs(roll - 5) < 0.05, "gain \(gain): \(roll)° after 60 s")
    }

    @Test func timestampsThatOverflowAreAGapNotATinyStep() throws {
        // Int64.max then Int64.min: `&-` wrapped this to a 1 ns step; it is −1.8e10 s (ignored
        // as out of order), and Int64.min then Int64.max is a gap (restart at the new sample).
        var e = AttitudeEstimator(method: .fusion)
        _ = e.update(IMUSample(timestampNanoseconds: .max, accel: Self.accel(roll: 0), gyro: .zero))
        let back = e.update(IMUSample(timestampNanoseconds: .min, accel: Self.accel(roll: 40), gyro: .zero))
        #expect(abs(try #require(back).rollDegrees) < 1e-9)
        var f = AttitudeEstimator(method: .fusion)
        _ = f.update(IMUSample(timestampNanoseconds: .min, accel: Self.accel(roll: 0), gyro: .zero))
        let jump = f.update(IMUSample(timestampNanoseconds: .max, accel: Self.accel(roll: 40), gyro: .zero))
        #expect(abs(try #require(jump).rollDegrees - 40) < 1e-9)
        #expect(AttitudeEstimator.seconds(from: .min, to: .max) == 18_446_744_073.709_553)
    }

    @Test(arguments: [50, 200])
    func fusionCorrectionIsRateIndependent(rateHz: Int) throws {
        // Same closed form as at 1 kHz: θ(2 s) = 2·atan(tan(2.5°)·e^(−1)) from 5°, gain 0.5
        // (proportional law: integral term off).
        var e = AttitudeEstimator(.init(method: .fusion, gain: 0.5, integralGain: 0))
        _ = e.update(Self.sample(0, Vector3(0, 0, Self.g)))
        var last: TiltEstimate?
        let stepMs = Int64(1000 / rateHz)
        for k in 1...(2 * rateHz) { last = e.update(Self.sample(Int64(k) * stepMs, Self.accel(roll: 5))) ?? last }
        let expected = 2 * atan(tan(2.5 * Self.deg) * exp(-1.0)) / Self.deg
        #expect(abs(5 - (try #require(last)).rollDegrees - expected) < 1e-3)
    }
}
