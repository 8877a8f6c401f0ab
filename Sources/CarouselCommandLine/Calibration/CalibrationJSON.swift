import CarouselProtocol
import MotionFusion

/// `carouselctl calibration show --json`: the file's values with snake_case keys as in the file.
enum CalibrationJSON {
    static func render(_ file: CalibrationFile, path: String, ageSeconds: Int64?, applied: Bool?) -> String {
        var w = WireJSONWriter()
        func vector(_ v: Vector3?) { if let v { w.numbers([v.x, v.y, v.z]) } else { w.null() } }
        let c = file.calibration
        w.beginObject()
        w.key("file"); w.string(path)
        w.key("sensor"); w.string(file.sensorName)
        w.key("sensor_path"); w.string(file.sensorPath)
        w.key("created"); w.string(file.created)
        w.key("age_s"); if let ageSeconds { w.int64(ageSeconds) } else { w.null() }
        w.key("samples"); w.int(file.samples)
        w.key("method"); w.string(file.method)
        w.key("gyro_bias_rad_s"); vector(c.gyroBias)
        w.key("accel_offset_m_s2"); vector(c.accelOffset)
        w.key("accel_scale"); vector(c.accelScale)
        w.key("neutral_roll_deg"); w.number(c.neutralRollDegrees)
        w.key("neutral_pitch_deg"); w.number(c.neutralPitchDegrees)
        w.key("gyro_noise_rad_s"); vector(file.gyroNoise)
        w.key("accel_noise_m_s2"); vector(file.accelNoise)
        w.key("applied"); if let applied { w.bool(applied) } else { w.null() }
        w.endObject()
        return w.text
    }
}
