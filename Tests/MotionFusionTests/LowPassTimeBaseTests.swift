import Testing
@testable import MotionFusion

/// `VectorLowPass.update(finite:timestampNanoseconds:)`, the entry point `AttitudeEstimator`
/// uses (integer nanosecond steps), must follow the same rules as the public `update(_:at:)`.
@Suite struct LowPassTimeBaseTests {
    @Test func integerTimeBaseFollowsTheSameRules() throws {
        // Hand-made timeline (ms): steady 10 ms steps, a duplicate, an out-of-order sample,
        // jitter, a 1.5 s gap (> gapSeconds = 1: restart), a 0.9 s step (not a gap: a redesign).
        let times: [Int64] = [0, 10, 20, 20, 15, 30, 41, 49, 60, 1560, 1570, 1580, 2480, 2490]
        var byTime = VectorLowPass(cutoffHz: 5), byTimestamp = VectorLowPass(cutoffHz: 5)
        var worst = 0.0
        for (k, ms) in times.enumerated() {
            let v = Vector3(Double(k % 4) - 1.5, 0.3 * Double(k), 9.8 - 0.1 * Double(k))
            let output = byTime.update(v, at: Double(ms) / 1000)
            let expected = try #require(output)
            let actual = byTimestamp.update(finite: v, timestampNanoseconds: ms * 1_000_000)
            worst = max(worst, (actual - expected).length)
            switch ms {
            case 0, 1560: #expect(actual == v, "restart in the steady state at \(ms) ms")
            default: break
            }
        }
        #expect(worst < 1e-12)
        let last = try #require(byTime.output), lastByTimestamp = try #require(byTimestamp.output)
        #expect((last - lastByTimestamp).length < 1e-12)  // the two step sums differ by rounding
    }

    @Test func duplicateHoldsTheLastOutput() {
        var f = VectorLowPass(cutoffHz: 5)
        let first = f.update(finite: Vector3(0, 0, 1), timestampNanoseconds: 5_000_000_000)
        #expect(first == Vector3(0, 0, 1))
        let step = f.update(finite: Vector3(0, 0, 3), timestampNanoseconds: 5_010_000_000)
        // One step from the steady state at 1 with input 3: y = b0·3 + (b1 + b2)·1 − (a1 + a2)·1.
        let c = BiquadCoefficients.butterworthLowPass(cutoffHz: 5, sampleRateHz: 100)
        #expect(abs(step.z - (3 * c.b0 + c.b1 + c.b2 - c.a1 - c.a2)) < 1e-15)
        #expect(f.update(finite: Vector3(0, 0, 7), timestampNanoseconds: 5_010_000_000) == step)
        #expect(f.update(finite: Vector3(0, 0, 7), timestampNanoseconds: 4_000_000_000) == step)
    }
}
