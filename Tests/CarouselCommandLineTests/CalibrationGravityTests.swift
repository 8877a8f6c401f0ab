import MotionFusion
import Testing
@testable import CarouselCommandLine

/// `carouselctl calibrate` refuses a resting capture whose magnitude is far from 1 g: it would
/// write a wrong scale's reading as the neutral attitude's gravity (docs/CLI.md "calibrate").
@Suite struct CalibrationGravityTests {
    static func capture(_ z: Double) -> [IMUSample] {
        (0..<50).map { IMUSample(timestampNanoseconds: Int64($0) * 10_000_000, accel: Vector3(0, 0, z), gyro: Vector3(0, 0, 0)) }
    }

    @Test func aScaleInGIsRefusedWithTheMagnitudeAndTheCause() throws {
        #expect(throws: StillCalibration.Refusal.implausibleGravity(GravityMagnitude.problem(magnitude: 1.0) ?? "")) {
            try StillCalibration().compute(Self.capture(1.0))
        }
        let text = "\(StillCalibration.Refusal.implausibleGravity(GravityMagnitude.problem(magnitude: 1.0) ?? ""))"
        #expect(text.hasPrefix("at rest the accelerometer reads 1.00 m/s² (0.102 g), not 1 g"))
        #expect(text.hasSuffix("; a calibration would take that for gravity: nothing written"))
        // 1 g and 1.2 g are calibrated.
        #expect(try StillCalibration().compute(Self.capture(standardGravity)).upAxis == .plusZ)
        #expect(try StillCalibration().compute(Self.capture(1.2 * standardGravity)).upAxis == .plusZ)
    }
}
