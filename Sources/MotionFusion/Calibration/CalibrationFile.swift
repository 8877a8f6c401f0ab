/// The calibration file of docs/CLI.md "calibrate" as text: an INI file with one `[calibration]` section.
///
/// Pure text in, text out (no I/O), so the daemon can read the same format: the writer is
/// `carouselctl calibrate`, the readers are `carouselctl calibration show` and carouseld.
///
/// ```ini
/// # carouselctl calibrate, 2026-11-29T12:00:00Z, sensor bmi160 (/sys/bus/iio/devices/iio:device0), 1000 samples
/// [calibration]
/// sensor = bmi160
/// sensor_path = /sys/bus/iio/devices/iio:device0
/// gyro_bias_rad_s = 0.0012 -0.0004 0.0009
/// accel_offset_m_s2 = 0 0 0
/// accel_scale = 1 1 1
/// neutral_roll_deg = 0.5
/// neutral_pitch_deg = -1.2
/// created = 2026-11-29T12:00:00Z
/// samples = 1000
/// gyro_noise_rad_s = 0.0011 0.0010 0.0012
/// accel_noise_m_s2 = 0.011 0.012 0.015
/// ```
///
/// The file names its sensor by name and sysfs path (docs/CLI.md "calibrate"): the name is `sensor`, the path is
/// `sensor_path` (a separate key, because IIO labels may contain spaces). Vectors are three
/// numbers separated by spaces or commas. Comments start with `#` or `;`. Keys the parser
/// does not know are kept in `unknownKeys` (a newer writer's figures are not an error).
public struct CalibrationFile: Equatable, Sendable {
    /// The largest calibration file carouseld and `carouselctl calibration show` read, bytes
    /// (64 KiB): one is a dozen lines, so a longer file is not a calibration file.
    public static let maximumFileBytes = 64 << 10

    /// IIO device name (`name` attribute) or, for a recording, `replay`.
    public var sensorName: String
    /// sysfs path of the device (`/sys/bus/iio/devices/iio:deviceN`) or the recording's path;
    /// empty when unknown.
    public var sensorPath: String
    /// The correction itself (gyro bias rad/s, accel offset m/s² and scale, neutral tilt rad).
    public var calibration: Calibration
    /// Creation time, ISO 8601 UTC (`2026-11-29T12:00:00Z`).
    public var created: String
    /// Number of samples the calibration was computed from.
    public var samples: Int
    /// `still` or `six-position` (what produced the file); empty when absent.
    public var method: String
    /// Per-axis standard deviation of the gyroscope at rest, rad/s; nil when not measured.
    public var gyroNoise: Vector3?
    /// Per-axis standard deviation of the accelerometer at rest, m/s²; nil when not measured.
    public var accelNoise: Vector3?
    /// Keys of `[calibration]` this parser does not know, in file order.
    public var unknownKeys: [String]

    public init(sensorName: String, sensorPath: String, calibration: Calibration, created: String, samples: Int,
                method: String = "", gyroNoise: Vector3? = nil, accelNoise: Vector3? = nil, unknownKeys: [String] = []) {
        self.sensorName = sensorName
        self.sensorPath = sensorPath
        self.calibration = calibration
        self.created = created
        self.samples = samples
        self.method = method
        self.gyroNoise = gyroNoise
        self.accelNoise = accelNoise
        self.unknownKeys = unknownKeys
    }

    /// Whether this calibration was made for the sensor `name` at `path` (docs/CLI.md "calibrate": the daemon
    /// ignores a calibration made for another sensor). Paths are compared by their stable parts
    /// (`StableSensorPath`: not the `iio:deviceN`, HID instance and `.N.auto` numbers, which follow the order
    /// devices appear in); an empty stored path matches any path.
    public func belongs(toSensor name: String, path: String) -> Bool {
        sensorName == name && (sensorPath.isEmpty || path.isEmpty || StableSensorPath.same(sensorPath, path))
    }

    // MARK: Serialising

    /// The file's text, ending with a newline. `comments` are written first as `# ` lines
    /// (date, sensor, sample count, noise figures: see `standardComments`).
    public func serialized(comments: [String]? = nil) -> String {
        var text = ""
        for line in comments ?? standardComments { text += line.isEmpty ? "#\n" : "# \(line)\n" }
        text += "[calibration]\n"
        text += "sensor = \(sensorName)\n"
        text += "sensor_path = \(sensorPath)\n"
        text += "gyro_bias_rad_s = \(Self.format(calibration.gyroBias))\n"
        text += "accel_offset_m_s2 = \(Self.format(calibration.accelOffset))\n"
        text += "accel_scale = \(Self.format(calibration.accelScale))\n"
        text += "neutral_roll_deg = \(Self.format(calibration.neutralRollDegrees))\n"
        text += "neutral_pitch_deg = \(Self.format(calibration.neutralPitchDegrees))\n"
        text += "created = \(created)\n"
        text += "samples = \(samples)\n"
        if !method.isEmpty { text += "method = \(method)\n" }
        if let gyroNoise { text += "gyro_noise_rad_s = \(Self.format(gyroNoise))\n" }
        if let accelNoise { text += "accel_noise_m_s2 = \(Self.format(accelNoise))\n" }
        return text
    }

    /// Comment lines recording how the file came to be (without the `# ` prefix).
    public var standardComments: [String] {
        var lines = [
            "Sensor calibration written by carouselctl calibrate (format: carouselctl(1)); carouseld reads it on start and on reload.",
            "created \(created), sensor \(sensorName)\(sensorPath.isEmpty ? "" : " (\(sensorPath))"), \(samples) samples\(method.isEmpty ? "" : ", \(method)")",
        ]
        if let gyroNoise {
            lines.append("gyro noise (std, rad/s): \(Self.format(gyroNoise))")
        }
        if let accelNoise {
            lines.append("accel noise (std, m/s²): \(Self.format(accelNoise))")
        }
        return lines
    }

    /// Shortest round-trip decimal, no `-0`.
    static func format(_ v: Double) -> String {
        if v == 0 { return "0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return v.description
    }

    static func format(_ v: Vector3) -> String { "\(format(v.x)) \(format(v.y)) \(format(v.z))" }

    // MARK: Parsing

    /// Parses the text of a calibration file.
    /// - Parameters:
    ///   - text: the whole file.
    ///   - path: the file's path, used only in error messages.
    /// - Throws: `CalibrationFileError` naming `path:line` and the key for a syntax error (a
    ///   control character other than tab in a line that is not a comment is one), a
    ///   value that is not a finite number (or not three of them), a value outside what a real
    ///   sensor can need (a gyro bias beyond ±`maximumGyroBias`, an offset beyond
    ///   ±`maximumAccelOffset`, a scale not in (0, `maximumAccelScale`], a neutral roll outside
    ///   −90…90° or pitch outside −180…180°, the ranges of the angles themselves), a
    ///   missing `[calibration]` section or a missing required key (`sensor`, `gyro_bias_rad_s`,
    ///   `accel_offset_m_s2`, `accel_scale`, `neutral_roll_deg`, `neutral_pitch_deg`).
    public static func parse(text: String, path: String) throws(CalibrationFileError) -> CalibrationFile {
        var section: String?
        var sawSection = false
        var values: [String: (value: String, line: Int)] = [:]
        var unknown: [String] = []
        var lineNumber = 0
        // Split on "\n" only: "\r\n" is a single Character in Swift and would not match "\n".
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(decoding: rawLine, as: UTF8.self)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = trim(line)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            // A control character (a carriage return inside a line, NUL, form feed...) is no text
            // that `serialized()` could write back: refused, named by its code, never quoted.
            if let control = trimmed.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                let code = String(control.value, radix: 16, uppercase: true)
                throw .syntax(path: path, line: lineNumber,
                              message: "control character U+\(String(repeating: "0", count: 4 - code.count))\(code) in the line; a calibration file is plain text")
            }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    throw .syntax(path: path, line: lineNumber, message: "section header '\(trimmed)' lacks ']'")
                }
                section = String(trim(trimmed.dropFirst().dropLast()))
                if section == "calibration" { sawSection = true }
                continue
            }
            guard let eq = trimmed.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw .syntax(path: path, line: lineNumber, message: "expected 'key = value', found '\(trimmed)'")
            }
            guard section == "calibration" else {
                if section == nil {
                    throw .syntax(path: path, line: lineNumber, message: "key outside the [calibration] section")
                }
                continue  // other sections are not ours
            }
            let key = String(trim(trimmed[..<eq]))
            var value = trim(trimmed[trimmed.index(after: eq)...])
            // Inline comments as libinih allows them (" ;" after the value).
            if let semicolon = value.firstRange(of: " ;") { value = trim(value[..<semicolon.lowerBound]) }
            if !knownKeys.contains(key), values[key] == nil { unknown.append(key) }
            values[key] = (String(value), lineNumber)
        }
        guard sawSection else { throw .missingSection(path: path) }

        func required(_ key: String) throws(CalibrationFileError) -> (value: String, line: Int) {
            guard let entry = values[key] else { throw .missingKey(path: path, key: key) }
            return entry
        }
        func number(_ key: String) throws(CalibrationFileError) -> Double {
            let entry = try required(key)
            guard let v = Double(entry.value), v.isFinite else {
                throw .badValue(path: path, line: entry.line, key: key, message: "'\(entry.value)' is not a finite number")
            }
            return v
        }
        func vector(_ entry: (value: String, line: Int), _ key: String) throws(CalibrationFileError) -> Vector3 {
            let parts = entry.value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            guard parts.count == 3 else {
                throw .badValue(path: path, line: entry.line, key: key,
                                message: "expected 3 numbers, found \(parts.count) in '\(entry.value)'")
            }
            var xyz: [Double] = []
            for p in parts {
                guard let v = Double(p), v.isFinite else {
                    throw .badValue(path: path, line: entry.line, key: key, message: "'\(p)' is not a finite number")
                }
                xyz.append(v)
            }
            return Vector3(xyz[0], xyz[1], xyz[2])
        }
        func optionalVector(_ key: String) throws(CalibrationFileError) -> Vector3? {
            guard let entry = values[key] else { return nil }
            return try vector(entry, key)
        }

        func limited(_ v: Vector3, _ key: String, _ allowed: ClosedRange<Double>, _ why: String) throws(CalibrationFileError) -> Vector3 {
            guard allowed.contains(v.x), allowed.contains(v.y), allowed.contains(v.z) else {
                throw .badValue(path: path, line: values[key]?.line ?? 0, key: key, message: why)
            }
            return v
        }
        func angle(_ key: String, _ limit: Double) throws(CalibrationFileError) -> Double {
            let v = try number(key)
            guard abs(v) <= limit else {
                throw .badValue(path: path, line: values[key]?.line ?? 0, key: key,
                                message: "'\(values[key]?.value ?? "")' is outside -\(Int(limit))…\(Int(limit)) degrees")
            }
            return v
        }

        let name = try required("sensor").value
        let bias = try limited(try vector(try required("gyro_bias_rad_s"), "gyro_bias_rad_s"), "gyro_bias_rad_s",
                               -Self.maximumGyroBias...Self.maximumGyroBias,
                               "every bias must be within ±34.9 rad/s (2000 °/s, the widest range of a MEMS gyroscope)")
        let offset = try limited(try vector(try required("accel_offset_m_s2"), "accel_offset_m_s2"), "accel_offset_m_s2",
                                 -Self.maximumAccelOffset...Self.maximumAccelOffset,
                                 "every offset must be within ±156.9 m/s² (16 g, the widest range of a MEMS accelerometer)")
        let scaleEntry = try required("accel_scale")
        let scale = try vector(scaleEntry, "accel_scale")
        guard scale.x > 0, scale.y > 0, scale.z > 0, scale.x <= Self.maximumAccelScale,
              scale.y <= Self.maximumAccelScale, scale.z <= Self.maximumAccelScale else {
            throw .badValue(path: path, line: scaleEntry.line, key: "accel_scale", message: "every scale must be > 0 and at most 16")
        }
        let roll = try angle("neutral_roll_deg", 90)
        let pitch = try angle("neutral_pitch_deg", 180)
        var samples = 0
        if let entry = values["samples"] {
            guard let n = Int(entry.value), n >= 0 else {
                throw .badValue(path: path, line: entry.line, key: "samples", message: "'\(entry.value)' is not a sample count")
            }
            samples = n
        }
        return CalibrationFile(
            sensorName: name, sensorPath: values["sensor_path"]?.value ?? "",
            calibration: Calibration(gyroBias: bias, accelOffset: offset, accelScale: scale,
                                     neutralRoll: roll * Double.pi / 180, neutralPitch: pitch * Double.pi / 180),
            created: values["created"]?.value ?? "", samples: samples, method: values["method"]?.value ?? "",
            gyroNoise: try optionalVector("gyro_noise_rad_s"), accelNoise: try optionalVector("accel_noise_m_s2"),
            unknownKeys: unknown)
    }

    /// The largest gyro bias component a file may hold, rad/s: 2000 °/s, the widest full-scale
    /// range of MEMS gyroscopes. A bias beyond it is no reading of a real sensor, and would turn
    /// the attitude by more than a turn per step.
    public static let maximumGyroBias = 2000 * Double.pi / 180
    /// The largest accelerometer offset component, m/s²: 16 g, the widest full-scale range of
    /// MEMS accelerometers.
    public static let maximumAccelOffset = 16 * 9.80665
    /// The largest accelerometer scale factor: 16 (a driver whose `scale` gives g instead of m/s²
    /// calibrates to 9.81; nothing real needs more).
    public static let maximumAccelScale = 16.0

    static let knownKeys: Set<String> = [
        "sensor", "sensor_path", "gyro_bias_rad_s", "accel_offset_m_s2", "accel_scale", "neutral_roll_deg",
        "neutral_pitch_deg", "created", "samples", "method", "gyro_noise_rad_s", "accel_noise_m_s2",
    ]

    private static func trim(_ s: Substring) -> Substring {
        var t = s
        while let c = t.first, c == " " || c == "\t" { t = t.dropFirst() }
        while let c = t.last, c == " " || c == "\t" { t = t.dropLast() }
        return t
    }
}

/// Why a calibration file was refused; every case names the file, and the line and key where
/// there is one.
public enum CalibrationFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(path: String, line: Int, message: String)
    case badValue(path: String, line: Int, key: String, message: String)
    case missingKey(path: String, key: String)
    case missingSection(path: String)

    public var description: String {
        switch self {
        case let .syntax(path, line, message): return "\(path):\(line): \(message)"
        case let .badValue(path, line, key, message): return "\(path):\(line): [calibration] \(key): \(message)"
        case let .missingKey(path, key): return "\(path): [calibration] lacks the key '\(key)'"
        case let .missingSection(path): return "\(path): no [calibration] section"
        }
    }
}
