import MotionFusion

/// The text `carouselctl calibrate` and `calibration show` print for people.
enum CalibrationReport {
    static func still(_ result: StillCalibration.Result, file: CalibrationFile, keptAccelFrom kept: CalibrationFile?) -> String {
        var text = "still calibration of \(sensorText(file)) from \(result.statistics.count) samples\n"
        text += body(file)
        text += row("up axis:", "\(result.upAxis.rawValue) (\(fmt(result.upAxisAngleDegrees, digits: 3))° off the vertical)")
        if let kept {
            text += "  kept the accelerometer offset and scale of the six-position calibration of \(kept.created)\n"
        }
        return text
    }

    static func sixPosition(_ result: SixPositionRun.Result, file: CalibrationFile, keptNeutralFrom kept: CalibrationFile?) -> String {
        var text = "six-position calibration of \(sensorText(file)) from \(result.sampleCount) still samples\n"
        text += body(file)
        for pose in result.poses {
            let g = pose.calibratedUp / standardGravity
            text += row("pose \(pose.axis.rawValue) up:", "\(fmt(pose.calibratedUp, digits: 5)) m/s² = \(fmt(g, digits: 5)) g "
                        + "after calibration (\(pose.statistics.count) samples)")
        }
        if let kept { text += "  kept the neutral tilt of the calibration of \(kept.created)\n" }
        return text
    }

    /// One line on gyro/accelerometer sign agreement per axis.
    static func agreement(_ axes: [GyroAccelAgreement.Axis]) -> String {
        let parts = axes.map { axis -> String in
            switch axis.verdict {
            case .agree, .disagree: return "\(axis.name) \(axis.verdict.rawValue) (r \(fmt(axis.correlation ?? 0, digits: 2)))"
            case .undetermined: return "\(axis.name) undetermined"
            }
        }
        var text = row("gyro/accel:", parts.joined(separator: ", "))
        if axes.allSatisfy({ $0.verdict == .undetermined }) {
            text += "  (sign agreement needs rotation: captures that include turning the device between poses)\n"
        }
        return text
    }

    /// The parsed file's values, shared by `calibrate` and `calibration show`.
    static func body(_ file: CalibrationFile) -> String {
        let c = file.calibration
        var text = ""
        let degrees = c.gyroBias * (180 / Double.pi)
        text += row("gyro bias:", "\(vector(c.gyroBias)) rad/s (\(vector(degrees)) °/s)")
        text += row("accel offset:", "\(vector(c.accelOffset)) m/s²")
        text += row("accel scale:", vector(c.accelScale, digits: 6))
        text += row("neutral tilt:", "roll \(fmt(c.neutralRollDegrees))°, pitch \(fmt(c.neutralPitchDegrees))°")
        if let n = file.gyroNoise { text += row("gyro noise:", "\(vector(n)) rad/s (std)") }
        if let n = file.accelNoise { text += row("accel noise:", "\(vector(n)) m/s² (std)") }
        return text
    }

    static func sensorText(_ file: CalibrationFile) -> String {
        file.sensorPath.isEmpty ? file.sensorName : "\(file.sensorName) (\(file.sensorPath))"
    }

    static func vector(_ v: Vector3, digits: Int = 4) -> String {
        "\(fmt(v.x, digits: digits)) \(fmt(v.y, digits: digits)) \(fmt(v.z, digits: digits))"
    }

    static func row(_ name: String, _ value: String) -> String { "  " + name.padding(15) + value + "\n" }
}
