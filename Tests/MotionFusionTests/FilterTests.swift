import Testing
@testable import MotionFusion

@Suite struct FilterTests {
    struct Reference {
        var input: [Double] = [], butter: [Double] = [], ema: [Double] = []
    }

    static func reference() throws -> Reference {
        let text = try Dataset.text("references/butter2_fc5_fs100_accx.csv")
        var r = Reference()
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            r.input.append(try #require(Double(f[1])))
            r.butter.append(try #require(Double(f[2])))
            r.ema.append(try #require(Double(f[3])))
        }
        return r
    }

    @Test func butterworthCoefficientsMatchSciPy() throws {
        let text = try Dataset.text("references/butter2_fc5_fs100_coeffs.csv")
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").dropFirst().compactMap { Double($0) } }
        let b = rows[0], a = rows[1]
        let c = BiquadCoefficients.butterworthLowPass(cutoffHz: 5, sampleRateHz: 100)
        #expect(abs(c.b0 - b[0]) < 1e-15 && abs(c.b1 - b[1]) < 1e-15 && abs(c.b2 - b[2]) < 1e-15)
        #expect(a[0] == 1 && abs(c.a1 - a[1]) < 1e-14 && abs(c.a2 - a[2]) < 1e-14)
    }

    @Test func biquadReproducesLfilter() throws {
        let r = try Self.reference()
        #expect(r.input.count == 13_514)
        var f = ButterworthLowPass(cutoffHz: 5)
        f.reset(to: 0, at: -0.01)  // SciPy's zero initial state, one step before sample 0
        var worst = 0.0
        for k in r.input.indices {
            let yOptional = f.update(r.input[k], at: Double(k) / 100)
            let y = try #require(yOptional)
            worst = max(worst, abs(y - r.butter[k]))
        }
        #expect(worst < 1e-9)
        #expect(f.designStep == 0.01)  // never redesigned at a steady rate
    }

    @Test func onePoleReproducesEMA() throws {
        let r = try Self.reference()
        // y = 0.8 y[n−1] + 0.2 x[n] at dt = 0.01 s ⇔ α = 0.2 ⇔ f_c = −ln 0.8 / (2π · 0.01).
        let fc = OnePoleLowPass.cutoffHz(alpha: 0.2, dt: 0.01)
        #expect(abs(fc - 3.551_439_921_07) < 1e-9)
        var f = OnePoleLowPass(cutoffHz: fc)
        f.reset(to: 0, at: -0.01)
        var worst = 0.0
        for k in r.input.indices {
            let yOptional = f.update(r.input[k], at: Double(k) / 100)
            let y = try #require(yOptional)
            worst = max(worst, abs(y - r.ema[k]))
        }
        #expect(worst < 1e-9)  // the CSV holds 10 significant digits
    }

    @Test func onePoleDuplicatesNaNAndGaps() throws {
        var f = OnePoleLowPass(cutoffHz: OnePoleLowPass.cutoffHz(alpha: 0.2, dt: 0.01), gapSeconds: 1)
        #expect(f.update(.nan, at: 0) == nil)        // nothing valid yet: no output, not NaN
        #expect(f.update(1, at: 0) == 1)              // first sample initialises (no ramp)
        #expect(f.update(.nan, at: 0.01) == 1)        // NaN ignored, output held
        #expect(abs(f.update(3, at: 0.01)! - 1.4) < 1e-12)     // 1 + 0.2·(3 − 1)
        #expect(abs(f.update(5, at: 0.01)! - 1.4) < 1e-12)     // dt = 0: held
        #expect(abs(f.update(5, at: 0.005)! - 1.4) < 1e-12)    // dt < 0: held
        #expect(abs(f.update(2, at: 0.02)! - 1.52) < 1e-12)    // 1.4 + 0.2·0.6
        #expect(f.update(7, at: 5.0) == 7)                      // gap > 1 s: restart at the input
        // dt = 0.02 s: α = 1 − 0.8² = 0.36 → 7 + 0.36·(2 − 7) = 5.2
        #expect(abs(f.update(2, at: 5.02)! - 5.2) < 1e-12)
        #expect(f.update(.infinity, at: 5.03).map { $0.isFinite } == true)
    }

    @Test func biquadDuplicatesNaNGapsAndRedesign() throws {
        let c = BiquadCoefficients.butterworthLowPass(cutoffHz: 5, sampleRateHz: 100)
        var f = ButterworthLowPass(cutoffHz: 5, gapSeconds: 0.5)
        f.reset(to: 0, at: 0)
        // Unit step from the zero state: first output b0, second b0 + b1 − a1·b0.
        let y0Optional = f.update(1, at: 0.01)
        let y0 = try #require(y0Optional)
        #expect(abs(y0 - c.b0) < 1e-15)
        #expect(f.update(.nan, at: 0.02) == y0)
        #expect(f.update(9, at: 0.01) == y0)     // duplicate timestamp
        #expect(f.update(9, at: 0.0) == y0)      // out of order
        let y1Optional = f.update(1, at: 0.02)
        let y1 = try #require(y1Optional)
        #expect(abs(y1 - (c.b0 + c.b1 - c.a1 * c.b0)) < 1e-15)
        // Gap: restart in the steady state at the new input, and stay there for a constant input.
        #expect(f.update(4, at: 2.0) == 4)
        var last = 4.0
        for k in 1...50 { last = f.update(4, at: 2.0 + Double(k) * 0.01) ?? .nan }
        #expect(abs(last - 4) < 1e-12)
        // Rate change 100 Hz → 50 Hz: the smoothed step converges and the design follows.
        for k in 1...200 { _ = f.update(4, at: 2.5 + Double(k) * 0.02) }
        let step = try #require(f.designStep)
        #expect(abs(step - 0.02) < 0.02 * 0.021)
        #expect(abs(f.coefficients!.b0 - BiquadCoefficients.butterworthLowPass(cutoffHz: 5, sampleRateHz: 1 / step).b0) < 1e-15)
        #expect(abs(f.output! - 4) < 1e-9)
    }

    @Test func biquadOnJitteredRealTimestampsStaysFiniteAndClose() throws {
        // The x-io recording's real timestamps (7.6 ms and 30.2 ms steps): output finite and
        // within 2e-3 g of the fixed-rate reference (the design barely moves).
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        let r = try Self.reference()
        var f = ButterworthLowPass(cutoffHz: 5, nominalSampleRateHz: 100)
        f.reset(to: 0, at: -0.01)
        var worst = 0.0
        for (k, s) in samples.enumerated() {
            let yOptional = f.update(s.accel.x / standardGravity, at: s.timeSeconds)
            let y = try #require(yOptional)
            #expect(y.isFinite)
            worst = max(worst, abs(y - r.butter[k]))
        }
        #expect(worst < 0.02)
    }

    @Test func vectorLowPassEqualsThreeScalarBiquads() throws {
        // Same rules, computed together: must match per-axis ButterworthLowPass on the gait
        // recording (duplicates, jitter) to rounding.
        let samples = try Dataset.samples("xio-gait-tracking-short-walk/short_walk.csv")
        var v = VectorLowPass(cutoffHz: 8)
        var fx = ButterworthLowPass(cutoffHz: 8), fy = fx, fz = fx
        var worst = 0.0
        for s in samples {
            let t = s.timeSeconds
            let out = v.update(s.accel, at: t)
            let x = fx.update(s.accel.x, at: t), y = fy.update(s.accel.y, at: t), z = fz.update(s.accel.z, at: t)
            let o = try #require(out)
            let e = Vector3(try #require(x), try #require(y), try #require(z))
            worst = max(worst, (o - e).length)
        }
        #expect(worst < 1e-9)
    }
}
