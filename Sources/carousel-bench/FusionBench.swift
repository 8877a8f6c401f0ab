import Glibc
import MotionFusion

/// MotionFusion throughput (issue 3 "Benchmark", issue 7, issue 14): samples per second through
/// the default estimator (`AttitudeEstimator`, method `inertial`, gain 0.5) with the
/// accelerometer Butterworth biquad at 5 Hz (the target's figure; the daemon's default since
/// issue 14 is `lowpass_hz = 0`, measured too), fed 100 Hz accel + gyro samples. The parts and
/// the `fusion` method (the default before issue 14) are measured separately as well.
///
/// Times are CPU time of this thread (CLOCK_THREAD_CPUTIME_ID).
struct FusionBench {
    var reporter: Reporter
    var warmups = 2
    var runs = 7
    /// Samples per run.
    var samplesPerRun = 2_000_000

    /// A deterministic synthetic 100 Hz IMU stream: roll and pitch swing ±30° / ±20° at 0.2 and
    /// 0.13 Hz (the gyro carries their rates plus a 0.01 rad/s bias), with ±0.05 m/s² and
    /// ±0.005 rad/s of uniform noise from a 64-bit LCG, so every branch of the filter (accepted,
    /// rejected, still) is exercised the way a handheld device would.
    static func samples(count: Int) -> [IMUSample] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        let g = standardGravity
        return (0..<count).map { k in
            let t = Double(k) / 100
            let roll = 30 * Double.pi / 180 * sin(2 * Double.pi * 0.2 * t)
            let pitch = 20 * Double.pi / 180 * sin(2 * Double.pi * 0.13 * t)
            let rollRate = 30 * Double.pi / 180 * 2 * Double.pi * 0.2 * cos(2 * Double.pi * 0.2 * t)
            let pitchRate = 20 * Double.pi / 180 * 2 * Double.pi * 0.13 * cos(2 * Double.pi * 0.13 * t)
            let up = Vector3(-sin(roll), cos(roll) * sin(pitch), cos(roll) * cos(pitch))
            let accel = up * g + Vector3(noise(), noise(), noise()) * 0.05
            let gyro = Vector3(pitchRate + 0.01 + noise() * 0.005, rollRate + 0.01 + noise() * 0.005, 0.01 + noise() * 0.005)
            return IMUSample(timestampNanoseconds: Int64(k) * 10_000_000, accel: accel, gyro: gyro)
        }
    }

    func run() {
        reporter.section("fusion (CPU time of one thread; 100 Hz accel+gyro, synthetic ±30° motion)")
        let stream = Self.samples(count: 100_000)
        let full = throughput(stream, readAngles: false) { AttitudeEstimator(.init(lowpassCutoffHz: 5)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.default_estimator_biquad", unit: "samples/s",
                                    samples: full, target: "≥ 2000000", check: { $0 >= 2e6 }))
        let withAngles = throughput(stream) { AttitudeEstimator(.init(lowpassCutoffHz: 5)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.default_estimator_biquad_roll_pitch", unit: "samples/s",
                                    samples: withAngles))
        let fusion = throughput(stream, readAngles: false) { AttitudeEstimator(.init(method: .fusion, lowpassCutoffHz: 5)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.fusion_biquad", unit: "samples/s", samples: fusion))
        let noLowpass = throughput(stream) { AttitudeEstimator(.init(lowpassCutoffHz: nil)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.default_estimator_only", unit: "samples/s", samples: noLowpass))
        let complementary = throughput(stream) { AttitudeEstimator(.init(method: .complementary, lowpassCutoffHz: 5)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.complementary_biquad", unit: "samples/s", samples: complementary))
        let accel = throughput(stream) { AttitudeEstimator(.init(method: .accel, lowpassCutoffHz: 5)) }
        reporter.report(Measurement(name: "fusion.samples_per_s.accel_biquad", unit: "samples/s", samples: accel))
        reporter.report(Measurement(name: "fusion.samples_per_s.biquad_3_axes", unit: "samples/s", samples: biquadThroughput(stream)))
    }

    /// Feeds `samplesPerRun` samples (the stream repeated, timestamps continuing) to a fresh
    /// estimator per run; with `readAngles` it also computes roll and pitch of each estimate
    /// (two `atan2`, as the daemon does), otherwise it only reads the up vector.
    ///
    /// The loop runs over whole passes of the stream (the last one cut to the remaining count)
    /// through an unsafe buffer pointer, so that per sample it does nothing but copy the sample,
    /// shift its timestamp and call the estimator: a `for … where done < samplesPerRun` loop
    /// over the array tested the count and the array bounds on every sample.
    func throughput(_ stream: [IMUSample], readAngles: Bool = true, make: () -> AttitudeEstimator) -> [Double] {
        let period = Int64(stream.count) * 10_000_000
        let total = samplesPerRun
        return repeatRuns(warmups: warmups, runs: runs) {
            var estimator = make()
            var checksum = 0.0
            let t0 = BenchClock.threadCPUNanoseconds()
            stream.withUnsafeBufferPointer { buffer in
                var remaining = total
                var shift: Int64 = 0
                while remaining > 0 {
                    let count = min(remaining, buffer.count)
                    for i in 0..<count {
                        var sample = buffer[i]
                        sample.timestampNanoseconds &+= shift
                        if let e = estimator.update(sample) {
                            checksum += readAngles ? e.roll + e.pitch : e.up.x
                        }
                    }
                    remaining -= count
                    shift &+= period
                }
            }
            let elapsed = Double(BenchClock.threadCPUNanoseconds() - t0)
            blackHole(checksum)
            return Double(total) / (elapsed * 1e-9)
        }
    }

    /// The accelerometer low-pass alone: `VectorLowPass` (three `ButterworthLowPass` biquads
    /// sharing one time base) at 5 Hz.
    func biquadThroughput(_ stream: [IMUSample]) -> [Double] {
        let total = samplesPerRun
        let period = Double(stream.count) / 100
        return repeatRuns(warmups: warmups, runs: runs) {
            var filter = VectorLowPass(cutoffHz: 5)
            var checksum = 0.0
            let t0 = BenchClock.threadCPUNanoseconds()
            stream.withUnsafeBufferPointer { buffer in
                var remaining = total
                var pass = 0.0
                while remaining > 0 {
                    let count = min(remaining, buffer.count)
                    let shift = pass * period
                    for i in 0..<count {
                        let s = buffer[i]
                        if let v = filter.update(s.accel, at: s.timeSeconds + shift) { checksum += v.x }
                    }
                    remaining -= count
                    pass += 1
                }
            }
            let elapsed = Double(BenchClock.threadCPUNanoseconds() - t0)
            blackHole(checksum)
            return Double(total) / (elapsed * 1e-9)
        }
    }
}
