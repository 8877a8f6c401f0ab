import Testing
import CarouselTestSupport
import MotionFusion
@testable import CarouselCommandLine

/// Gyro/accelerometer sign agreement on real recordings with rotation.
@Suite struct CalibrationAgreementTests {
    func samples(_ path: String) throws -> [IMUSample] {
        try RecordingReader.parse(text: try #require(readTextFile(try TestPaths.dataset(path))))
    }

    /// x-io's example swings roll (about y) then pitch (about x) to ±60° (dataset README): both
    /// axes agree (measured here: r = 0.73 on x, 0.86 on y); z, turned about the vertical, is
    /// invisible to the accelerometer.
    @Test func xioAgreesOnXAndY() throws {
        let result = GyroAccelAgreement().check(try samples("xio-fusion-example/sensor_data.csv"))
        #expect(result[0].verdict == .agree && (result[0].correlation ?? 0) > 0.6)
        #expect(result[1].verdict == .agree && (result[1].correlation ?? 0) > 0.6)
    }

    /// The same recording with the gyro's x axis negated (a flipped channel, or `M` applied to
    /// the gyro without `det(M)`): x disagrees, y still agrees.
    @Test func flippedGyroAxisDisagrees() throws {
        let flipped = try samples("xio-fusion-example/sensor_data.csv").map { s in
            IMUSample(timestampNanoseconds: s.timestampNanoseconds, accel: s.accel,
                      gyro: s.gyro.map { Vector3(-$0.x, $0.y, $0.z) })
        }
        let result = GyroAccelAgreement().check(flipped)
        #expect(result[0].verdict == .disagree && (result[0].correlation ?? 0) < -0.6)
        #expect(result[1].verdict == .agree)
    }

    @Test func broadSlowRotation() throws {
        let result = GyroAccelAgreement().check(try samples("broad-trial01-slow-rotation/01_undisturbed_slow_rotation_A.csv"))
        #expect(result.filter { $0.verdict == .disagree }.isEmpty)
        #expect(result.filter { $0.verdict == .agree }.count >= 2)
    }

    /// A still capture says nothing.
    @Test func stillIsUndetermined() throws {
        let still = try samples("xio-fusion-example/sensor_data.csv").prefix(900)
        #expect(GyroAccelAgreement().check(Array(still)).allSatisfy { $0.verdict == .undetermined })
    }
}

/// `calibrate --from-files` reports the sign check and warns on a flipped gyro axis.
@Suite struct CalibrationAgreementCommandTests {
    @Test func sixPositionReportsAgreement() throws {
        let dir = makeTempDirectory("agree")
        // NCSU captures mostly lift the device; the verdict on them is reported, never fatal.
        let run = runCtl(["calibrate", "--from-files"] + (try ncsuFiles()) + ["--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ok)
        #expect(run.out.contains("  gyro/accel:     x "))
        #expect(fileExists(dir + "/calibration.conf"))
        // Without --sensor the six recordings name no sensor: the file says 'recordings', which
        // carouseld applies to no real device, and the operator is told so.
        #expect(run.err.contains("carouselctl: warning: calibrate: --from-files without --sensor: the file is bound to the sensor 'recordings'"))
        #expect(try readCalibration(dir + "/calibration.conf").sensorName == "recordings")
    }
}
