/// The recording formats MotionFusion can read (docs/FUSION.md "7. Recordings", and the public
/// datasets in `../shared/datasets`). Columns are located by name in the header, so extra
/// columns (x-io's magnetometer, BROAD's reference quaternion) are ignored.
///
/// | format | timestamp | accelerometer | gyroscope |
/// |---|---|---|---|
/// | `native` | `timestamp_ns` (integer ns) | `accel_x/y/z` m/s² | `gyro_x/y/z` rad/s, all three empty when absent |
/// | `xio` | `Time (s)` | `Accelerometer X/Y/Z (g)` | `Gyroscope X/Y/Z (deg/s)` |
/// | `broad` | `time_s` | `acc_x/y/z_m_s2` | `gyr_x/y/z_rad_s` |
/// | `ncsu` | `timestamp` (integer ns) | `scaledAccelX/Y/Z` g | `scaledGyroX/Y/Z` rad/s; estimate rows (empty raw block) are skipped |
///
/// Units are converted to SI on reading: g × `standardGravity` (9.80665 m/s²), deg/s × π/180.
public enum RecordingFormat: String, CaseIterable, Sendable {
    case native
    case xio
    case broad
    case ncsu

    /// The header line of the native recording CSV (docs/CLI.md "record"), without line terminator.
    public static let nativeHeader = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"

    /// Recognises a format from its header line (line 1, with or without a trailing `\r`).
    /// Returns `nil` when no format's required columns are all present.
    public static func detect(header: Substring) -> RecordingFormat? {
        let names = splitHeader(header)
        // Most specific first: each format's first column names are distinct.
        for format in [RecordingFormat.native, .broad, .ncsu, .xio] where format.columnIndices(in: names) != nil {
            return format
        }
        return nil
    }

    /// Convenience overload of `detect(header:)` for a `String`.
    public static func detect(header: String) -> RecordingFormat? { detect(header: header[...]) }

    // MARK: Column layout

    /// Column names: time, accel x/y/z, gyro x/y/z.
    var columnNames: [String] {
        switch self {
        case .native:
            return ["timestamp_ns", "accel_x", "accel_y", "accel_z", "gyro_x", "gyro_y", "gyro_z"]
        case .xio:
            return ["Time (s)", "Accelerometer X (g)", "Accelerometer Y (g)", "Accelerometer Z (g)",
                    "Gyroscope X (deg/s)", "Gyroscope Y (deg/s)", "Gyroscope Z (deg/s)"]
        case .broad:
            return ["time_s", "acc_x_m_s2", "acc_y_m_s2", "acc_z_m_s2",
                    "gyr_x_rad_s", "gyr_y_rad_s", "gyr_z_rad_s"]
        case .ncsu:
            return ["timestamp", "scaledAccelX", "scaledAccelY", "scaledAccelZ",
                    "scaledGyroX", "scaledGyroY", "scaledGyroZ"]
        }
    }

    /// Multiplier from the file's accelerometer unit to m/s².
    var accelToSI: Double {
        switch self {
        case .native, .broad: return 1
        case .xio, .ncsu: return standardGravity
        }
    }

    /// Multiplier from the file's gyroscope unit to rad/s.
    var gyroToSI: Double {
        switch self {
        case .xio: return Double.pi / 180
        case .native, .broad, .ncsu: return 1
        }
    }

    /// Whether the time column holds integer nanoseconds (else seconds as a decimal).
    var timeIsNanoseconds: Bool { self == .native || self == .ncsu }

    /// Indices of the seven columns in `names`, or nil when one is missing.
    func columnIndices(in names: [Substring]) -> [Int]? {
        var result: [Int] = []
        result.reserveCapacity(7)
        for wanted in columnNames {
            guard let i = names.firstIndex(where: { $0 == wanted[...] }) else { return nil }
            result.append(i)
        }
        return result
    }

    static func splitHeader(_ header: Substring) -> [Substring] {
        var line = header
        if line.hasSuffix("\r") { line = line.dropLast() }
        if line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
        return line.split(separator: ",", omittingEmptySubsequences: false).map { field in
            var f = field[...]
            while f.first == " " { f = f.dropFirst() }
            while f.last == " " { f = f.dropLast() }
            return f
        }
    }
}
