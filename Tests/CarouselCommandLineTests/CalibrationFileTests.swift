import Testing
import CarouselProtocol
import CarouselTestSupport
import MotionFusion
@testable import CarouselCommandLine

/// The calibration file format of docs/CLI.md "calibrate", `calibration show` and `calibration reset`.
@Suite struct CalibrationFileTests {
    static let sample = CalibrationFile(
        sensorName: "bmi160", sensorPath: "/sys/bus/iio/devices/iio:device0",
        calibration: Calibration(gyroBias: Vector3(0.0012, -0.0004, 3.0e-5), accelOffset: Vector3(0.05, -0.02, 0),
                                 accelScale: Vector3(1.002, 0.998, 1), neutralRoll: 0.5 * Double.pi / 180,
                                 neutralPitch: -12.25 * Double.pi / 180),
        created: "2026-11-29T12:00:00Z", samples: 1000, method: "still",
        gyroNoise: Vector3(0.001, 0.0011, 0.0012), accelNoise: Vector3(0.01, 0.012, 0.015))

    @Test func serializesTheDocumentedKeysWithComments() {
        let text = Self.sample.serialized()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("# ") == true)
        #expect(text.contains("# created 2026-11-29T12:00:00Z, sensor bmi160 (/sys/bus/iio/devices/iio:device0), 1000 samples, still\n"))
        #expect(lines.contains("[calibration]"))
        #expect(lines.contains("sensor = bmi160"))
        #expect(lines.contains("sensor_path = /sys/bus/iio/devices/iio:device0"))
        #expect(lines.contains("gyro_bias_rad_s = 0.0012 -0.0004 3e-05"))
        #expect(lines.contains("accel_offset_m_s2 = 0.05 -0.02 0"))
        #expect(lines.contains("accel_scale = 1.002 0.998 1"))
        #expect(lines.contains("neutral_pitch_deg = -12.25"))
        #expect(lines.contains("created = 2026-11-29T12:00:00Z"))
        #expect(lines.contains("samples = 1000"))
        #expect(lines.contains("gyro_noise_rad_s = 0.001 0.0011 0.0012"))
        #expect(!text.contains("-0 ") && !text.contains("-0\n"))
    }

    @Test func roundTripsExactly() throws {
        let parsed = try CalibrationFile.parse(text: Self.sample.serialized(), path: "c.conf")
        #expect(parsed.sensorName == Self.sample.sensorName)
        #expect(parsed.calibration.gyroBias == Self.sample.calibration.gyroBias)
        #expect(parsed.calibration.accelScale == Self.sample.calibration.accelScale)
        #expect(abs(parsed.calibration.neutralPitchDegrees - -12.25) < 1e-12)
        #expect(parsed.gyroNoise == Self.sample.gyroNoise && parsed.accelNoise == Self.sample.accelNoise)
        #expect(parsed.samples == 1000 && parsed.method == "still" && parsed.unknownKeys.isEmpty)
    }

    @Test func acceptsCRLFCommasInlineCommentsAndUnknownKeys() throws {
        let text = "; hand-made\r\n[calibration]\r\nsensor = mma8452\r\ngyro_bias_rad_s = 0, 0, 0\r\n"
            + "accel_offset_m_s2 = 0.1,0.2,0.3 ; measured\r\naccel_scale = 1 1 1\r\nneutral_roll_deg = 2\r\n"
            + "neutral_pitch_deg = 0\r\ntemperature_c = 21\r\n[other]\r\nx = y\r\n"
        let file = try CalibrationFile.parse(text: text, path: "h.conf")
        #expect(file.calibration.accelOffset == Vector3(0.1, 0.2, 0.3))
        #expect(file.sensorPath == "" && file.samples == 0 && file.gyroNoise == nil)
        #expect(file.unknownKeys == ["temperature_c"])
        #expect(abs(file.calibration.neutralRoll - 2 * Double.pi / 180) < 1e-15)
    }

    @Test(arguments: [
        ("sensor = x\n", "c.conf:1: key outside the [calibration] section"),
        ("[other]\nsensor = x\n", "c.conf: no [calibration] section"),
        ("[calibration]\nsensor = x\n", "c.conf: [calibration] lacks the key 'gyro_bias_rad_s'"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 1 2\n", "c.conf:3: [calibration] gyro_bias_rad_s: expected 3 numbers, found 2 in '1 2'"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 1 two 3\n", "c.conf:3: [calibration] gyro_bias_rad_s: 'two' is not a finite number"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 0\naccel_scale = 1 0 1\n",
         "c.conf:5: [calibration] accel_scale: every scale must be > 0 and at most 16"),
        // Finite but no calibration of a real sensor (found by an attack: 1e308 loaded, and
        // `calibration show` printed inf).
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 1e308 0\n",
         "c.conf:3: [calibration] gyro_bias_rad_s: every bias must be within ±34.9 rad/s (2000 °/s, the widest range of a MEMS gyroscope)"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 -157\n",
         "c.conf:4: [calibration] accel_offset_m_s2: every offset must be within ±156.9 m/s² (16 g, the widest range of a MEMS accelerometer)"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 0\naccel_scale = 1 16.5 1\n",
         "c.conf:5: [calibration] accel_scale: every scale must be > 0 and at most 16"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 0\naccel_scale = 1 1 1\nneutral_roll_deg = 1e308\n",
         "c.conf:6: [calibration] neutral_roll_deg: '1e308' is outside -90…90 degrees"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 0\naccel_scale = 1 1 1\nneutral_roll_deg = -90\nneutral_pitch_deg = 180.5\n",
         "c.conf:7: [calibration] neutral_pitch_deg: '180.5' is outside -180…180 degrees"),
        ("[calibration]\nsensor = x\ngyro_bias_rad_s = 0 0 0\naccel_offset_m_s2 = 0 0 0\naccel_scale = 1 1 1\nneutral_roll_deg = nan\n",
         "c.conf:6: [calibration] neutral_roll_deg: 'nan' is not a finite number"),
        ("[calibration\n", "c.conf:1: section header '[calibration' lacks ']'"),
        ("[calibration]\njust words\n", "c.conf:2: expected 'key = value', found 'just words'"),
        // Found by FuzzCalibrationFile: a value ending in "\r\r" lost one "\r" per write and read.
        ("[calibration]\nsensor = x\nsensor_path = /sys/bus/iio/devices/iio:device0\r\r\n",
         "c.conf:3: control character U+000D in the line; a calibration file is plain text"),
        ("[calibration]\nsensor = bmi\u{0}160\n", "c.conf:2: control character U+0000 in the line; a calibration file is plain text"),
        ("[calibration\u{7F}]\n", "c.conf:1: control character U+007F in the line; a calibration file is plain text"),
    ] as [(String, String)])
    func refusesBadFilesNamingFileLineAndKey(text: String, message: String) {
        #expect(throws: CalibrationFileError.self) { try CalibrationFile.parse(text: text, path: "c.conf") }
        do {
            _ = try CalibrationFile.parse(text: text, path: "c.conf")
        } catch {
            #expect(error.description == message)
        }
    }

    /// The ranges' own ends load: 2000 °/s, 16 g, a scale of 16, roll ±90°, pitch ±180°.
    @Test func acceptsTheEndsOfEachRange() throws {
        let text = "[calibration]\nsensor = x\ngyro_bias_rad_s = 34.906585 -34.906585 0\n"
            + "accel_offset_m_s2 = 156.9064 -156.9064 0\naccel_scale = 16 0.001 1\n"
            + "neutral_roll_deg = -90\nneutral_pitch_deg = 180\n"
        let file = try CalibrationFile.parse(text: text, path: "c.conf")
        #expect(file.calibration.gyroBias.x == 34.906585)
        #expect(file.calibration.accelOffset.y == -156.9064)
        #expect(file.calibration.accelScale.x == 16)
        #expect(file.calibration.neutralRoll == -Double.pi / 2)
        #expect(file.calibration.neutralPitch == Double.pi)
    }

    @Test func bindsToOneSensor() {
        #expect(Self.sample.belongs(toSensor: "bmi160", path: "/sys/bus/iio/devices/iio:device0"))
        #expect(!Self.sample.belongs(toSensor: "bmi160", path: "/sys/bus/iio/devices/iio:device1"))
        #expect(!Self.sample.belongs(toSensor: "mma8452", path: "/sys/bus/iio/devices/iio:device0"))
        var pathless = Self.sample
        pathless.sensorPath = ""
        #expect(pathless.belongs(toSensor: "bmi160", path: "/sys/bus/iio/devices/iio:device7"))
        // The same hub after a reboot: another HID instance and IIO number (StableSensorPath).
        var hub = Self.sample
        hub.sensorName = "accel_3d"
        hub.sensorPath = "/sys/devices/virtual/misc/uhid/0006:1209:0001.0002/HID-SENSOR-200073.2.auto/iio:device0"
        #expect(hub.belongs(toSensor: "accel_3d",
                            path: "/sys/devices/virtual/misc/uhid/0006:1209:0001.0001/HID-SENSOR-200073.2.auto/iio:device1"))
    }

    @Test func iso8601() {
        #expect(ISO8601UTC.format(epochSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(ISO8601UTC.format(epochSeconds: 951_782_400) == "2000-02-29T00:00:00Z")
        #expect(ISO8601UTC.format(epochSeconds: 1_795_953_942) == "2026-11-29T12:05:42Z")
        #expect(ISO8601UTC.format(epochSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(ISO8601UTC.parse("2026-11-29T12:05:42Z") == 1_795_953_942)
        #expect(ISO8601UTC.parse("2026-11-29T12:05:42.250+00:00") == 1_795_953_942)
        #expect(ISO8601UTC.parse("2026-11-29T12:05:42+02:00") == nil)
        #expect(ISO8601UTC.parse("yesterday") == nil)
        #expect(ISO8601UTC.age(seconds: 90) == "90 s" && ISO8601UTC.age(seconds: 3 * 86_400) == "3 days")
    }

    @Test func showPrintsValuesSensorAndAge() throws {
        let dir = makeTempDirectory("show")
        let config = writeTestConfig(in: dir)
        writeFile(dir + "/calibration.conf", Self.sample.serialized())
        let run = runCtl(["calibration", "show", "--config", config])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.hasPrefix("calibration \(dir)/calibration.conf\n"))
        #expect(run.out.contains("sensor:         bmi160 (/sys/bus/iio/devices/iio:device0)"))
        #expect(run.out.contains("created:        2026-11-29T12:00:00Z ("))
        #expect(run.out.contains("neutral tilt:   roll 0.5°, pitch -12.25°"))

        let json = runCtl(["calibration", "show", "--config", config, "--json"])
        #expect(json.status == .ok, "stderr: \(json.err)")
        let value = try WireJSONParser.parse(json.out.split(separator: "\n")[0].utf8)
        #expect(value["sensor"]?.stringValue == "bmi160")
        #expect(value["gyro_bias_rad_s"]?[0]?.doubleValue == 0.0012)
        #expect(value["accel_scale"]?[1]?.doubleValue == 0.998)
        #expect(value["neutral_pitch_deg"]?.doubleValue.map { abs($0 - -12.25) < 1e-12 } == true)
        #expect(value["applied"]?.isNull == true)  // no daemon
        #expect((value["age_s"]?.doubleValue ?? -1) > 0)
    }

    /// With a daemon that answers but does not apply the file, `show` says which of the three
    /// reasons holds, from the daemon's STATUS: another file, another sensor, or the same file
    /// and sensor read before this version was written (the daemon was not told to reload).
    @Test(arguments: [
        ("same", "bmi160", "/sys/bus/iio/devices/iio:device0",
         "does not apply it: it has not read this version of the file (run 'carouselctl reload')"),
        ("same", "lis3dh", "/sys/bus/iio/devices/iio:device1",
         "does not apply it: the file is for another sensor than its lis3dh (/sys/bus/iio/devices/iio:device1)"),
        ("/var/lib/carouseld/calibration.conf", "bmi160", "/sys/bus/iio/devices/iio:device0",
         "does not apply it: it uses /var/lib/carouseld/calibration.conf"),
    ])
    func showSaysWhyTheDaemonDoesNotApplyIt(daemonFile: String, sensor: String, sensorPath: String, reason: String) throws {
        let dir = makeTempDirectory("show-why")
        let path = dir + "/calibration.conf"
        writeFile(path, Self.sample.serialized())
        let status = ServerMessage.status(
            release: "0.1.0", uptimeSeconds: 5, sensor: "ok", sampleRateHz: 100, clients: 1, watchers: 0, configPath: nil,
            calibration: WireCalibration(file: daemonFile == "same" ? path : daemonFile, applied: false),
            sensorName: sensor, sensorPath: sensorPath).encodedLine()
        let daemon = try FakeDaemon(respond: { request in
            if case .status = request { return [status] }
            return FakeDaemon.standard(request)
        })
        defer { daemon.stop() }
        let run = runCtl(["calibration", "show", "--file", path, "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out.hasSuffix("  carouseld:      \(reason)\n"), "out: \(run.out)")
    }

    @Test func showMissingIs66AndInvalidIs65() {
        let dir = makeTempDirectory("show-bad")
        let config = writeTestConfig(in: dir)
        let missing = runCtl(["calibration", "show", "--config", config])
        #expect(missing.status == .noInput)
        #expect(missing.err.contains("no calibration file at \(dir)/calibration.conf"))
        writeFile(dir + "/calibration.conf", "[calibration]\nsensor = x\ngyro_bias_rad_s = 1\n")
        let bad = runCtl(["calibration", "show", "--file", dir + "/calibration.conf"])
        #expect(bad.status == .dataError)
        #expect(bad.err.contains("\(dir)/calibration.conf:3: [calibration] gyro_bias_rad_s"))
    }

    @Test func resetKeepsBackupAndIsIdempotent() {
        let dir = makeTempDirectory("reset")
        let config = writeTestConfig(in: dir)
        let text = Self.sample.serialized()
        writeFile(dir + "/calibration.conf", text)
        let run = runCtl(["calibration", "reset", "--config", config])
        #expect(run.status == .ok)
        #expect(run.out.contains("removed \(dir)/calibration.conf (kept as \(dir)/calibration.conf.bak)"))
        #expect(!fileExists(dir + "/calibration.conf"))
        #expect(readTextFile(dir + "/calibration.conf.bak") == text)
        let again = runCtl(["calibration", "reset", "--config", config])
        #expect(again.status == .ok && again.out.contains("nothing to reset"))
        #expect(readTextFile(dir + "/calibration.conf.bak") == text)
    }
}
