#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselTestSupport
@testable import CarouselCommandLine

/// `calibrate` reading the IIO sensor directly (no daemon), under a umockdev testbed.
@Suite(.serialized) struct CalibrationSensorTests {
    /// mma8452 fixture: constant raw (100, −200, 1024), scale 0.009576, mount matrix
    /// diag(−1, 1, −1), gravity convention → (0.9576, 1.9152, 9.805824) m/s² (see
    /// SensorsUmockdevTests); accelerometer only.
    @Test func stillFromPolledAccelerometer() throws {
        let bed = try UmockdevTestbed()
        try bed.add(file: TestPaths.fixture("umockdev/mma8452.umockdev"))
        let dir = makeTempDirectory("iio")
        chmod(dir, 0o755)
        let config = dir + "/carouseld.conf"
        writeFile(config, """
        [sensor]
        mode = polled
        sample_rate_hz = 50

        [server]
        socket = \(dir)/no-daemon.sock

        [calibration]
        file = \(dir)/calibration.conf

        """)
        let process = try UmockdevProcess(TestPaths.product("carouselctl"),
                                          ["calibrate", "--config", config, "--duration", "2", "--yes"], testbed: bed)
        let result = try process.waitForExit(timeoutSeconds: 30)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.contains("carouseld is not running: reading the sensor directly"))
        #expect(result.standardError.contains("calibrating: 0/2.0 s"))  // plain progress lines: not a TTY
        let file = try readCalibration(dir + "/calibration.conf")
        #expect(file.sensorName == "mma8452")
        #expect(file.sensorPath.hasSuffix("iio:device0"))
        #expect(file.samples >= 20 && file.samples <= 110)  // 2 s at 50 Hz (fewer when the machine is loaded)
        let (x, y, z) = (0.9576, 1.9152, 9.805824)
        let pitch = atan2(y, z) * 180 / Double.pi
        let roll = atan2(-x, (y * y + z * z).squareRoot()) * 180 / Double.pi
        #expect(abs(file.calibration.neutralPitchDegrees - pitch) < 1e-6)
        #expect(abs(file.calibration.neutralRollDegrees - roll) < 1e-6)
        #expect(file.calibration.gyroBias == .zero && file.gyroNoise == nil)
        #expect(result.standardOutput.contains("up axis:        +z"))
    }

    @Test func noSensorAndNoDaemonIs69() throws {
        let bed = try UmockdevTestbed()
        let dir = makeTempDirectory("iio-none")
        let process = try UmockdevProcess(TestPaths.product("carouselctl"),
                                          ["calibrate", "--config", writeTestConfig(in: dir), "--yes"], testbed: bed)
        let result = try process.waitForExit(timeoutSeconds: 30)
        #expect(result.status == 69, "stderr: \(result.standardError)")
        #expect(result.standardError.hasSuffix("carouselctl: no motion sensor found (no sensor matches 'an accelerometer') and "
                                               + "carouseld is not running; 'carouselctl sensors' lists what libiio finds\n"),
                "stderr: \(result.standardError)")
        #expect(!fileExists(dir + "/calibration.conf"))
    }
}
