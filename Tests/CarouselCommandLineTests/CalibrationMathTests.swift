#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
import MotionFusion
@testable import CarouselCommandLine

/// `carouselctl calibrate` on real recordings, checked against numbers computed here by hand
/// from the raw CSV text (not through MotionFusion's reader).
@Suite struct CalibrationMathTests {
    /// x-io's example rests for its first 10 s (dataset README): the gyro bias must be the mean
    /// rate and the neutral tilt the attitude of the mean acceleration (docs/FUSION.md "1. Conventions" formulas).
    @Test func stillXioFirstTenSeconds() throws {
        let rows = try readXioRows().filter { $0.time <= 10 }
        #expect(rows.count == 1001)
        let n = Double(rows.count)
        let d2r = Double.pi / 180
        let gx = rows.map(\.gyroDegPerS.0).reduce(0, +) / n * d2r
        let gy = rows.map(\.gyroDegPerS.1).reduce(0, +) / n * d2r
        let gz = rows.map(\.gyroDegPerS.2).reduce(0, +) / n * d2r
        let ax = rows.map(\.accelG.0).reduce(0, +) / n
        let ay = rows.map(\.accelG.1).reduce(0, +) / n
        let az = rows.map(\.accelG.2).reduce(0, +) / n
        // pitch = atan2(u_y, u_z), roll = atan2(−u_x, √(u_y² + u_z²)); scale-free, so g units do.
        let pitchDeg = atan2(ay, az) / d2r
        let rollDeg = atan2(-ax, (ay * ay + az * az).squareRoot()) / d2r

        let dir = makeTempDirectory("still")
        let config = writeTestConfig(in: dir)
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"),
                          "--duration", "10", "--config", config, "--yes"])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.contains("up axis:        +z"))
        #expect(run.out.contains("written to \(dir)/calibration.conf"))
        #expect(run.out.contains("no carouseld answers on \(dir)/no-daemon.sock"))
        #expect(run.err.isEmpty, "no warning expected for +z up: \(run.err)")

        let file = try readCalibration(dir + "/calibration.conf")
        let c = file.calibration
        #expect(abs(c.gyroBias.x - gx) < 1e-12 && abs(c.gyroBias.y - gy) < 1e-12 && abs(c.gyroBias.z - gz) < 1e-12)
        #expect(abs(c.neutralRollDegrees - rollDeg) < 1e-9)
        #expect(abs(c.neutralPitchDegrees - pitchDeg) < 1e-9)
        // Hand-checked magnitudes: level within ~1.2°, bias below 0.03 °/s.
        #expect(abs(pitchDeg - -1.194) < 0.001 && abs(rollDeg - -0.0137) < 0.001)
        #expect(c.accelOffset == .zero && c.accelScale == Vector3(1, 1, 1))
        #expect(file.samples == 1001)
        #expect(file.method == "still")
        #expect(file.sensorName == "sensor_data.csv")
        let noise = try #require(file.gyroNoise)
        #expect(noise.x > 0 && noise.x < 0.01)
        #expect(ISO8601UTC.parse(file.created) != nil)
    }

    /// The same ten seconds as a native CSV (what `carouselctl record` writes) give the same file.
    @Test func stillFromNativeRecordingMatches() throws {
        let rows = try readXioRows().filter { $0.time <= 10 }
        let dir = makeTempDirectory("native")
        var csv = RecordingFormat.nativeHeader + "\n"
        let d2r = Double.pi / 180, g = 9.80665
        for r in rows {
            csv += "\(Int64((r.time * 1e9).rounded())),\(r.accelG.0 * g),\(r.accelG.1 * g),\(r.accelG.2 * g),"
            csv += "\(r.gyroDegPerS.0 * d2r),\(r.gyroDegPerS.1 * d2r),\(r.gyroDegPerS.2 * d2r)\n"
        }
        writeFile(dir + "/still.csv", csv)
        let config = writeTestConfig(in: dir)
        let run = runCtl(["calibrate", "--replay", dir + "/still.csv", "--config", config, "--yes", "--sensor", "bmi160"])
        #expect(run.status == .ok, "stderr: \(run.err)")
        // No daemon on the configuration's socket: the output names the socket it tried, since a
        // daemon on another one (the demo's) still has the old file.
        #expect(run.out.hasSuffix("no carouseld answers on \(dir)/no-daemon.sock; a daemon reads the calibration when it "
                                  + "starts, or on 'carouselctl reload --socket PATH'\n"), "out: \(run.out)")
        let native = try readCalibration(dir + "/calibration.conf")
        let xio = try readCalibration({
            let other = makeTempDirectory("xio")
            _ = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"),
                        "--duration", "10", "--config", writeTestConfig(in: other), "--yes"])
            return other + "/calibration.conf"
        }())
        #expect(native.sensorName == "bmi160" && native.sensorPath.isEmpty)
        #expect(native.samples == xio.samples)
        let a = native.calibration, b = xio.calibration
        #expect((a.gyroBias - b.gyroBias).length < 1e-12)
        #expect(abs(a.neutralRoll - b.neutralRoll) < 1e-12 && abs(a.neutralPitch - b.neutralPitch) < 1e-12)
    }

    /// The whole x-io recording swings to ±60° and spins: refused with 65, nothing written.
    @Test func movingDeviceIsRefused() throws {
        let dir = makeTempDirectory("moving")
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"),
                          "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .dataError)
        #expect(run.err.contains("the device moved during calibration"))
        #expect(run.err.contains("> 0.2 m/s²") && run.err.contains("> 0.05 rad/s"))
        #expect(!fileExists(dir + "/calibration.conf"))
    }

    /// Just past the thresholds: a synthetic still capture with one axis' spread at 0.25 m/s²
    /// (alternating ±0.25 has std exactly 0.25) is refused; at ±0.15 it passes.
    @Test func accelerometerThresholdIsTheDocumentedOne() throws {
        func capture(_ amplitude: Double) -> [IMUSample] {
            (0..<100).map { i in
                IMUSample(timestampNanoseconds: Int64(i) * 10_000_000,
                          accel: Vector3(i % 2 == 0 ? amplitude : -amplitude, 0, 9.81), gyro: Vector3(0.01, 0, 0))
            }
        }
        #expect(throws: StillCalibration.Refusal.self) { try StillCalibration().compute(capture(0.25)) }
        let ok = try StillCalibration().compute(capture(0.15))
        #expect(abs(ok.statistics.accelStd.x - 0.15) < 1e-12)
        #expect(abs(try #require(ok.gyroBias).x - 0.01) < 1e-15 && ok.gyroBias?.y == 0)
        #expect(ok.upAxis == .plusZ)
    }

    @Test func upAxisWarnings() {
        #expect(UpAxisCheck.warnings(upAxis: .plusZ, accelConvention: "gravity", displayRotation: 0).isEmpty)
        #expect(UpAxisCheck.warnings(upAxis: .plusY, accelConvention: "gravity", displayRotation: 0).isEmpty)
        let faceDown = UpAxisCheck.warnings(upAxis: .minusZ, accelConvention: "gravity", displayRotation: 0)
        #expect(faceDown.count == 1 && faceDown[0].contains("specific-force"))
        let upsideDown = UpAxisCheck.warnings(upAxis: .minusY, accelConvention: "specific-force", displayRotation: 0)
        #expect(upsideDown.count == 1 && upsideDown[0].contains("upside down") && upsideDown[0].contains("gravity"))
        #expect(UpAxisCheck.warnings(upAxis: .plusY, accelConvention: "gravity", displayRotation: 180).count == 1)
        #expect(UpAxisCheck.warnings(upAxis: .minusX, accelConvention: "gravity", displayRotation: 90).count == 1)
        #expect(UpAxisCheck.warnings(upAxis: .plusX, accelConvention: "gravity", displayRotation: 90).isEmpty)
    }

    /// A device lying face down (x-io's rest data with z negated) triggers the convention warning.
    @Test func faceDownRecordingWarnsAboutConvention() throws {
        let dir = makeTempDirectory("facedown")
        var csv = RecordingFormat.nativeHeader + "\n"
        for (i, r) in try readXioRows().filter({ $0.time <= 5 }).enumerated() {
            csv += "\(i * 10_000_000),\(r.accelG.0 * 9.80665),\(-r.accelG.1 * 9.80665),\(-r.accelG.2 * 9.80665),0.001,0,0\n"
        }
        writeFile(dir + "/down.csv", csv)
        let run = runCtl(["calibrate", "--replay", dir + "/down.csv", "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ok)
        #expect(run.out.contains("up axis:        -z"))
        #expect(run.err.contains("warning: the accelerometer says -z points up"))
    }

    /// NCSU six captures (dataset README: +1 g on the axis that points up): after the fit, every
    /// pose reads 1 g ± 0.5 % on its up axis.
    @Test func sixPositionNCSU() throws {
        let dir = makeTempDirectory("six")
        let run = runCtl(["calibrate", "--from-files"] + (try ncsuFiles()) + ["--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ok, "stderr: \(run.err)")
        let file = try readCalibration(dir + "/calibration.conf")
        #expect(file.method == "six-position")
        let correction = file.calibration

        // Recompute each pose's still mean through MotionFusion's reader and the same stillness
        // rule, then apply the file's offset and scale (as the daemon will).
        for (i, path) in try ncsuFiles().enumerated() {
            let samples = try RecordingReader.parse(text: try #require(readTextFile(path)))
            let still = StillnessDetector.stillIntervals(in: samples, detector: SixPositionRun.poseDetector).flatMap { samples[$0] }
            let mean = try #require(StillStatistics(still)).meanAccel
            let axis = SixPositionRun.poses[i]
            let up = correction.applyToAccel(mean).dot(axis.vector) / standardGravity
            #expect(abs(up - 1) < 0.005, "\(axis.rawValue): \(up) g")
            let magnitude = correction.applyToAccel(mean).length / standardGravity
            #expect(abs(magnitude - 1) < 0.005, "\(axis.rawValue): |a| = \(magnitude) g")
            #expect(run.out.contains("pose \(axis.rawValue) up:"))
        }
        // The MicroStrain is factory-calibrated: scales within 0.3 % of 1, offsets below 0.05 m/s²
        // (measured here: 0.9986, 1.0021, 0.9998 and (0.003, −0.018, 0.003) m/s²).
        for s in [correction.accelScale.x, correction.accelScale.y, correction.accelScale.z] { #expect(abs(s - 1) < 0.003) }
        #expect(correction.accelOffset.length < 0.05)
    }

    @Test func sixPositionWrongOrderNamesTheFile() throws {
        let dir = makeTempDirectory("six-order")
        var files = try ncsuFiles()
        files.swapAt(0, 1)
        let run = runCtl(["calibrate", "--from-files"] + files + ["--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .dataError)
        #expect(run.err.contains("xminus.csv: expected +x up, but -x points up"), "stderr: \(run.err)")
        #expect(!fileExists(dir + "/calibration.conf"))
    }

    /// A still calibration after a six-position one for the same sensor keeps the accelerometer
    /// fit and takes the neutral tilt through it.
    @Test func stillKeepsSixPositionFitOfSameSensor() throws {
        let dir = makeTempDirectory("keep")
        let config = writeTestConfig(in: dir)
        let ncsu = try ncsuFiles()
        #expect(runCtl(["calibrate", "--from-files"] + ncsu + ["--sensor", "sensor_data.csv", "--config", config, "-y"]).status == .ok)
        let six = try readCalibration(dir + "/calibration.conf")
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"),
                          "--duration", "10", "--config", config, "-y"])
        #expect(run.status == .ok)
        #expect(run.out.contains("kept the accelerometer offset and scale"))
        let still = try readCalibration(dir + "/calibration.conf")
        #expect(still.calibration.accelOffset == six.calibration.accelOffset)
        #expect(still.calibration.accelScale == six.calibration.accelScale)
        let bak = try readCalibration(dir + "/calibration.conf.bak")
        #expect(bak == six)
    }
}
