import Testing
#if canImport(Glibc)
import Glibc
#endif
import MotionFusion
@testable import CarouselDaemon

@Suite struct TiltPipelineTests {
    /// Specific force of a device at rest with the given roll (docs/FUSION.md "1. Conventions"):
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

    /// `display_rotation = auto`: held right-up (the right edge up, elevation 30°:
    /// u₀ = (cos 30°, 0, sin 30°)) and recentred there, then the picture's right edge (device −y
    /// when right-up) lowered by 10°: u₁ = cos 10° · u₀ + sin 10° · (0, 1, 0). The rotation that
    /// takes u₀ to z is about y, so relative = (0, sin 10°, cos 10°); with rotation 90 (picture
    /// right −y) the display roll is atan2(sin 10°, cos 10°) = +10°: the right edge went down.
    /// A fixed 0 reads it as pitch (drive 0); a client's 270 (picture right +y) as −10°.
    @Test func autoRotationFollowsTheOrientationUnlessTheClientSaysOtherwise() throws {
        let e = 30 * Double.pi / 180, t = 10 * Double.pi / 180, g = standardGravity
        let u0 = Vector3(cos(e), 0, sin(e))
        let u1 = u0 * cos(t) + Vector3(0, sin(t), 0)
        func drive(follows: Bool, client: DisplayRotation? = nil) throws -> (Double, DeviceOrientation) {
            let pipeline = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .accel),
                                              mapper: TiltInputMapper(), followsDisplay: follows)
            if let client { pipeline.setDisplayRotation(client) }
            for k in 0..<100 { _ = pipeline.process(IMUSample(timestampNanoseconds: Int64(k) * 10_000_000, accel: u0 * g)) }
            #expect(pipeline.recenter())
            let r = try #require(pipeline.process(IMUSample(timestampNanoseconds: 1_000_000_000, accel: u1 * g)))
            return (r.driveDegrees, r.orientation)
        }
        let auto = try drive(follows: true)
        #expect(abs(auto.0 - 10) < 1e-9 && auto.1 == .rightUp)
        #expect(try abs(drive(follows: false).0) < 1e-9)
        #expect(try abs(drive(follows: true, client: .degrees270).0 + 10) < 1e-9)
        // A fixed rotation ignores the client's.
        #expect(try abs(drive(follows: false, client: .degrees270).0) < 1e-9)
    }
}
