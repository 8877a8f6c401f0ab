#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// Issue 3 point 4: the accuracy targets on real recordings.
@Suite struct RealDataTargetTests {
    static func run(_ samples: [IMUSample], _ configuration: AttitudeEstimator.Configuration = .init()) -> [TiltEstimate?] {
        var estimator = AttitudeEstimator(configuration)
        return samples.map { estimator.update($0) }
    }

    static func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
    static func std(_ v: [Double]) -> Double {
        let m = mean(v)
        return (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(v.count)).squareRoot()
    }

    /// RMS inclination error of the default estimator over the scored rows of a BROAD trial
    /// (movement phase, finite reference), degrees, and the number of scored rows.
    static func broadRMS(_ trial: String, _ configuration: AttitudeEstimator.Configuration = .init()) throws -> (rms: Double, scored: Int) {
        let broad = try Dataset.broad(trial: trial)
        #expect(broad.samples.count == broad.referenceUp.count)
        let estimates = Self.run(broad.samples, configuration)
        var sumSquares = 0.0
        var scored = 0
        for i in estimates.indices {
            let e = try #require(estimates[i], "no estimate at row \(i)")
            #expect(e.up.isFinite)
            guard broad.movement[i], let ref = broad.referenceUp[i] else { continue }
            let error = e.up.angle(to: ref) * 180 / Double.pi
            sumSquares += error * error
            scored += 1
        }
        return ((sumSquares / Double(scored)).squareRoot(), scored)
    }

    /// Issue 26: below VQF in real time on every trial (`vqf` 2.1.2 from PyPI, its authors'
    /// package, 6D with default parameters, stepped at 1/fs from the first row, scored the same
    /// way; `scripts/fusion-anchors` reproduces it): 01 0.599, 06 0.804, 21 1.716, 24 0.607,
    /// 26 0.561, 10 0.299, 15 0.470; and trial 01 at most 0.6 (issue 14), one default
    /// configuration. The best of imufusion and Madgwick is above VQF on every trial (0.675,
    /// 1.032, 3.811, 1.094, 1.433, docs/FUSION.md §8), so this holds that too. Measured at this
    /// commit: 0.463, 0.782, 1.388, 0.606, 0.552, 0.266, 0.464 (mean 0.646; VQF 0.722).
    @Test(arguments: [("01", 0.599, 35_855), ("06", 0.804, 34_882), ("21", 1.716, 33_488), ("24", 0.607, 34_471),
                      ("26", 0.561, 34_233), ("10", 0.299, 34_819), ("15", 0.470, 30_140)])
    func broadInclinationRMS(trial: String, vqf: Double, rows: Int) throws {
        let (rms, scored) = try Self.broadRMS(trial)
        print("BROAD trial \(trial): RMS inclination error \(rms)° over \(scored) rows (VQF \(vqf)°)")
        #expect(scored == rows)  // the scored-row counts of the datasets' READMEs
        #expect(rms < vqf)
        if trial == "01" { #expect(rms <= 0.6) }
    }

    /// Issue 26: the mean over the seven trials at most 0.9 times VQF's in real time (the
    /// figures above: 5.056 / 7 = 0.72229°, so at most 0.65006°).
    @Test func broadMeanIsAtMostNineTenthsOfVQF() throws {
        let trials = ["01", "06", "21", "24", "26", "10", "15"]
        let figures = try trials.map { try Self.broadRMS($0).rms }
        let vqfMean = (0.599 + 0.804 + 1.716 + 0.607 + 0.561 + 0.299 + 0.470) / 7
        let mean = Self.mean(figures)
        print("BROAD mean over \(trials.count) trials: \(mean)° (VQF \(vqfMean)°, ratio \(mean / vqfMean))")
        #expect(mean <= 0.9 * vqfMean)
    }

    /// Rest jitter (issue 14: ≤ 0.02° for the default) and the spin's largest deviation from
    /// rest over roll and pitch (60–80 s). Issue 26: below VQF's 3.29° in real time on the same
    /// file for the default `inertial` (which measures 3.01° / 2.13°); 3° for `fusion`. The
    /// device itself tilts 1.06° from its rest attitude while it spins
    /// (`XioSpinGeometryTests`), and no anchor stays within ±1° over both axes (docs/FUSION.md).
    @Test(arguments: [(EstimationMethod.inertial, 0.02, 3.29), (.fusion, 0.05, 3.0)])
    func xioRestAndSpin(method: EstimationMethod, restTarget: Double, spinTarget: Double) throws {
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        let estimates = Self.run(samples, .init(method: method))
        var restRoll: [Double] = [], restPitch: [Double] = []
        var spin: [TiltEstimate] = []
        for e in estimates {
            let e = try #require(e)
            if e.timeSeconds < 10 { restRoll.append(e.rollDegrees); restPitch.append(e.pitchDegrees) }
            if e.timeSeconds >= 60 && e.timeSeconds <= 80 { spin.append(e) }
        }
        let rollRest = Self.mean(restRoll), pitchRest = Self.mean(restPitch)
        let rollStd = Self.std(restRoll), pitchStd = Self.std(restPitch)
        let rollDev = spin.map { abs($0.rollDegrees - rollRest) }.max() ?? .infinity
        let pitchDev = spin.map { abs($0.pitchDegrees - pitchRest) }.max() ?? .infinity
        print("x-io \(method) rest: roll std \(rollStd)°, pitch std \(pitchStd)° (means \(rollRest)°, \(pitchRest)°); spin 60–80 s: max |Δroll| \(rollDev)°, max |Δpitch| \(pitchDev)°")
        #expect(rollStd <= restTarget && pitchStd <= restTarget)
        #expect(rollDev < spinTarget && pitchDev < spinTarget)
        // The resting attitude itself is the accelerometer's: pitch = atan2(a_y, a_z) with the
        // README's rest mean a ≈ (0.0002, −0.0207, 0.9932) g → −1.19°.
        #expect(abs(pitchRest - -1.19) < 0.1 && abs(rollRest) < 0.1)
        #expect(spin.count > 1900)
    }

    @Test func accelerometerOnlyIsFooledBySpin() throws {
        // Sanity check of the need for rejection: the README says accelerometer tilt is pulled
        // tens of degrees off during the spin.
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        let estimates = Self.run(samples, .init(method: .accel))
        let spinMax = estimates.compactMap { $0 }.filter { $0.timeSeconds >= 60 && $0.timeSeconds <= 80 }
            .map { abs($0.rollDegrees) }.max() ?? 0
        #expect(spinMax > 30)
    }

    @Test func fusionBiasTracksStillGyroMean() throws {
        // After the long rest at the end of the x-io example (≈ 95–135 s) the tracked bias must
        // equal the mean gyro of that rest (computed independently by StillStatistics) to within
        // the low-pass's noise (≈ 0.1 °/s per sample / √(2·10 s·100 Hz) ≈ 0.007 °/s).
        let samples = try Dataset.samples("xio-fusion-example/sensor_data.csv")
        for method in [EstimationMethod.inertial, .fusion] {
        var estimator = AttitudeEstimator(.init(method: method))
        for s in samples { _ = estimator.update(s) }
        let rest = try #require(StillStatistics(samples.filter { $0.timeSeconds >= 110 }))
        let mean = try #require(rest.gyroBias)
        let difference = (estimator.gyroBias - mean).length * 180 / Double.pi
        print("x-io tracked gyro bias \(estimator.gyroBias * (180 / Double.pi)) °/s vs rest mean \(mean * (180 / Double.pi)) °/s")
        #expect(difference < 0.03, "\(method)")
        #expect(estimator.gyroBias != .zero)
        }
    }

    @Test func gaitDuplicatesNeverProduceNaN() throws {
        let samples = try Dataset.samples("xio-gait-tracking-short-walk/short_walk.csv")
        #expect(samples.count == 16_539)
        let duplicates = zip(samples, samples.dropFirst()).filter { $0.timestampNanoseconds == $1.timestampNanoseconds }.count
        #expect(duplicates >= 205)
        for method in EstimationMethod.allCases {
            for lowpass in [nil, 5.0] {
                var estimator = AttitudeEstimator(.init(method: method, lowpassCutoffHz: lowpass))
                var count = 0
                for s in samples {
                    let estimate = estimator.update(s)
                    let e = try #require(estimate)
                    if !e.up.isFinite || !e.roll.isFinite || !e.pitch.isFinite { count += 1 }
                }
                #expect(count == 0, "\(method) lowpass \(String(describing: lowpass))")
            }
        }
    }
}
