#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

@Suite struct CalibrationTests {
    @Test func applyCorrectsAccelAndGyro() {
        let c = Calibration(gyroBias: Vector3(0.01, -0.02, 0.03), accelOffset: Vector3(0.1, -0.2, 0.3),
                            accelScale: Vector3(1.01, 0.99, 1.0))
        let s = c.apply(to: IMUSample(timestampNanoseconds: 5, accel: Vector3(1, 2, 9.81), gyro: Vector3(0.11, 0.18, 0.33)))
        // (1 − 0.1)·1.01 = 0.909; (2 + 0.2)·0.99 = 2.178; (9.81 − 0.3)·1 = 9.51
        #expect((s.accel - Vector3(0.909, 2.178, 9.51)).length < 1e-12)
        #expect((s.gyro! - Vector3(0.10, 0.20, 0.30)).length < 1e-12)
        #expect(c.isValid && Calibration.identity.isValid)
        #expect(!Calibration(accelScale: Vector3(1, 0, 1)).isValid)
        #expect(c.apply(to: IMUSample(timestampNanoseconds: 1, accel: .zero)).gyro == nil)
    }

    @Test func stillnessOnXioExample() throws {
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        let runs = StillnessDetector.stillIntervals(in: samples, detector: .tableRest)
        // README: at rest over 0–10 s and ~95–135 s. (Between the swings the device is held
        // still by hand for a few seconds; `tableRest` rejects most of that, not all.)
        let first = try #require(runs.first)
        #expect(first.lowerBound == 0)
        #expect(samples[first.upperBound - 1].timeSeconds > 9.5)
        #expect(runs.contains { samples[$0.lowerBound].timeSeconds < 103 && samples[$0.upperBound - 1].timeSeconds > 115 })
        // Independent check from the raw data: no still run contains a sample turning faster
        // than 15 °/s, and none covers the spin (66–71 s, ~200 °/s).
        let fast = 15 * Double.pi / 180
        for r in runs {
            let peak = samples[r].map { $0.gyro?.length ?? 0 }.max() ?? 0
            #expect(peak < fast, "still run \(samples[r.lowerBound].timeSeconds)…\(samples[r.upperBound - 1].timeSeconds) s peaks at \(peak) rad/s")
        }
        #expect(!runs.contains { samples[$0.lowerBound].timeSeconds < 71 && samples[$0.upperBound - 1].timeSeconds > 66 })
    }

    @Test func defaultStillnessAcceptsNoisyRestButNotMotion() throws {
        // The defaults accept the NCSU bench at rest (1 kHz, up to 0.02 g / 0.05 rad/s spread)
        // from its first sample, and still reject the lift (peaks of ±3.3 g).
        for name in ["xplus", "yplus", "zminus"] {
            let samples = try Dataset.samples("ncsu-airbrakes-six-orientations/\(name).csv")
            let runs = StillnessDetector.stillIntervals(in: samples)
            let first = try #require(runs.first, "\(name)")
            #expect(first.lowerBound == 0, "\(name)")
            for r in runs {
                let peak = samples[r].map { $0.accel.length }.max() ?? 0
                #expect(peak < 1.2 * standardGravity, "\(name): still run reaches \(peak / standardGravity) g")
            }
        }
    }

    /// Two still stretches of a recording 18e18 ns apart (its timestamps may lie anywhere):
    /// the window's span overflowed Int64 and `carouselctl calibrate` trapped. Such a gap now
    /// counts as any gap longer than the window: the detector answers exactly as across one
    /// hour.
    @Test func stillnessAcrossAGapBeyondInt64() {
        func answers(first: Int64, second: Int64) -> ([Bool], Int) {
            var detector = StillnessDetector()
            var still: [Bool] = []
            for base in [first, second] {
                for k in 0..<60 {
                    still.append(detector.update(IMUSample(timestampNanoseconds: base + Int64(k) * 10_000_000,
                                                           accel: Vector3(0, 0, 9.81), gyro: Vector3(0, 0, 0))))
                }
            }
            return (still, detector.windowStartIndex)
        }
        let huge = answers(first: -9_000_000_000_000_000_000, second: 9_000_000_000_000_000_000)
        let hour = answers(first: 0, second: 3_600_000_000_000)
        #expect(huge.0 == hour.0)
        #expect(huge.1 == hour.1)
        // Still from 0.45 s (45 samples 10 ms apart) into the first stretch.
        #expect(huge.0.prefix(60) == ArraySlice((0..<60).map { $0 >= 45 }))
        // After the gap the window starts again: still only once 0.45 s has passed again, not
        // on the sample before the gap and two after it.
        #expect(Array(hour.0.suffix(60)) == (0..<60).map { $0 >= 45 })
    }

    @Test func gyroBiasAndNeutralFromStillInterval() throws {
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        let rest = samples.filter { $0.timeSeconds < 10 }
        let stats = try #require(StillStatistics(rest))
        // Means over 0–10 s computed with NumPy from the CSV: gyro (−0.00532452, 0.01037189,
        // 0.02387398) °/s; accel (0.000237239, −0.0206971, 0.993221) g.
        let bias = try #require(stats.gyroBias) * (180 / Double.pi)
        #expect((bias - Vector3(-0.00532452, 0.01037189, 0.02387398)).length < 1e-7)
        let neutral = try #require(stats.neutralTilt)
        let expectedPitch = atan2(-0.0206971, 0.993221) * 180 / Double.pi
        #expect(abs(neutral.pitchDegrees - expectedPitch) < 1e-4)
        let horizontal: Double = (0.0206971 * 0.0206971 + 0.993221 * 0.993221).squareRoot()
        let expectedRoll: Double = atan2(-0.000237239, horizontal) * 180 / Double.pi
        #expect(abs(neutral.rollDegrees - expectedRoll) < 1e-4)
        // Per-axis gyro std, NumPy: (0.10134068, 0.12319184, 0.10711539) °/s.
        #expect(abs(stats.gyroStd.y * 180 / Double.pi - 0.12319184) < 1e-6)
    }

    @Test func sixPositionOnNCSU() throws {
        // Fit on the first 60 % of each capture's initial still run, check |a| on the last
        // 40 % of that run (not used for the fit).
        let names = ["xplus", "xminus", "yplus", "yminus", "zplus", "zminus"]
        // The NCSU bench vibrates more than a phone on a table (per-axis std up to 0.022 g at rest).
        let detector = StillnessDetector(windowSeconds: 0.3, accelStdLimit: 0.3, gyroStdLimit: 0.1, gyroMeanLimit: 0.3)
        var fitMeans: [Vector3] = []
        var checks: [(String, [IMUSample])] = []
        for name in names {
            let samples = try Dataset.samples("ncsu-airbrakes-six-orientations/\(name).csv")
            let run = try #require(StillnessDetector.stillIntervals(in: samples, detector: detector).first)
            #expect(run.lowerBound == 0, "\(name) starts at rest")
            let duration = samples[run.upperBound - 1].timeSeconds - samples[run.lowerBound].timeSeconds
            #expect(duration > 0.9, "\(name): still for \(duration) s")
            // A run can reach up to one window into a gradual motion onset: drop its last window.
            let endTime = samples[run.upperBound - 1].timeSeconds - detector.windowSeconds
            let usable = run.lowerBound..<(samples[run].firstIndex { $0.timeSeconds > endTime } ?? run.upperBound)
            let split = usable.lowerBound + (usable.count * 6) / 10
            fitMeans.append(try #require(StillStatistics(samples[usable.lowerBound..<split])).meanAccel)
            checks.append((name, Array(samples[split..<usable.upperBound])))
        }
        let (offset, scale) = try SixPositionCalibration.fit(means: fitMeans)
        let calibration = Calibration(accelOffset: offset, accelScale: scale)
        for (name, held) in checks {
            let norms = held.map { calibration.applyToAccel($0.accel).length / standardGravity }
            let mean = norms.reduce(0, +) / Double(norms.count)
            print("NCSU \(name): \(norms.count) held-out samples, mean |a| = \(mean) g")
            #expect(abs(mean - 1) <= 0.005, "\(name): mean |a| = \(mean) g")
            // The least-squares fit does much better than the 0.5 % target (≈ 0.03 % here).
            #expect(abs(mean - 1) <= 0.001, "\(name): mean |a| = \(mean) g")
        }
        // The fit is a small correction: offsets below 0.03 m/s², scales within 0.3 % of 1.
        #expect(max(abs(offset.x), abs(offset.y), abs(offset.z)) < 0.03)
        #expect(max(abs(scale.x - 1), abs(scale.y - 1), abs(scale.z - 1)) < 0.003)
    }

    @Test func sixPositionIsExactOnSyntheticData() throws {
        // Raw = true / scale + offset, with true = ±g on each axis.
        let g = standardGravity
        let offset = Vector3(0.12, -0.05, 0.3), scale = Vector3(1.02, 0.97, 1.005)
        let truths = [Vector3(g, 0, 0), Vector3(-g, 0, 0), Vector3(0, g, 0), Vector3(0, -g, 0), Vector3(0, 0, g), Vector3(0, 0, -g)]
        let raw = truths.map { Vector3($0.x / scale.x, $0.y / scale.y, $0.z / scale.z) + offset }
        let fit = try SixPositionCalibration.fit(means: raw)
        #expect((fit.offset - offset).length < 1e-9 && (fit.scale - scale).length < 1e-9)
        #expect(throws: SixPositionError.missingOrientation(axis: "-z")) {
            try SixPositionCalibration.fit(means: Array(raw.dropLast()))
        }
    }
}
