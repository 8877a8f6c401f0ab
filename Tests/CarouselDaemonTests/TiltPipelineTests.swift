import Testing
#if canImport(Glibc)
import Glibc
#endif
import MotionFusion
@testable import CarouselDaemon

@Suite struct TiltPipelineTests {
    /// Specific force of a device at rest with the given roll (DESIGN §3):
    /// u = (−sin roll, cos roll · sin pitch, cos roll · cos pitch), pitch 0.
    static func restingSample(rollDegrees: Double, at k: Int) -> IMUSample {
        let r = rollDegrees * .pi / 180
        let g = standardGravity
        return IMUSample(timestampNanoseconds: Int64(k) * 10_000_000,
                         accel: Vector3(-sin(r) * g, 0, cos(r) * g), gyro: nil)
    }

    static func run(method: EstimationMethod, seconds: Double) -> TiltReading? {
        let pipeline = MotionTiltPipeline(calibration: .identity,
                                          estimator: .init(method: method),
                                          mapper: TiltInputMapper())
        var last: TiltReading?
        // 1 s flat, then a step to 30° of roll, sampled at 100 Hz without a gyroscope.
        for k in 0..<100 { last = pipeline.process(restingSample(rollDegrees: 0, at: k)) }
        for k in 100..<(100 + Int(seconds * 100)) { last = pipeline.process(restingSample(rollDegrees: 30, at: k)) }
        return last
    }

    @Test func accelerometerOnlySensorFollowsATiltWithinHalfASecond() throws {
        // With the configured default (fusion, gain 0.5/s) an accelerometer-only sensor would
        // reach only 1 − e^(−0.25) ≈ 22 % of the step after 0.5 s; the pipeline's accelerometer
        // estimator with its 3 Hz Butterworth has settled to well under 0.5° by then.
        let reading = try #require(Self.run(method: .fusion, seconds: 0.5))
        #expect(abs(reading.rollDegrees - 30) < 0.5)
        #expect(abs(reading.pitchDegrees) < 0.01)
    }

    @Test func recenterUsesTheEstimatorInUse() throws {
        let pipeline = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .fusion),
                                          mapper: TiltInputMapper())
        for k in 0..<200 { _ = pipeline.process(Self.restingSample(rollDegrees: 20, at: k)) }
        #expect(pipeline.recenter())
        let after = try #require(pipeline.process(Self.restingSample(rollDegrees: 20, at: 200)))
        #expect(abs(after.rollDegrees) < 0.01)
    }
}
