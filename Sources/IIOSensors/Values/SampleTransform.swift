import MotionFusion

/// A 3×3 mount matrix, row-major, mapping the sensor's axes onto the device frame:
/// `v_device = M · v_sensor` (the kernel's `mount_matrix` ABI and udev's `ACCEL_MOUNT_MATRIX`).
public struct SensorMountMatrix: Sendable, Equatable {
    /// Rows of the matrix; `rows[r][c]`.
    public var rows: [[Double]]

    public static let identity = SensorMountMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public init(rows: [[Double]]) { self.rows = rows }

    /// Parses the kernel/udev text `"a, b, c; d, e, f; g, h, i"` (spaces optional). Numbers are
    /// read with Swift's `Double(_:)`, which ignores the process locale.
    ///
    /// Written here as a thin private parser because MotionFusion's `MountMatrix` did not exist
    /// yet when IIOSensors needed it (DESIGN §5 gives the same rules).
    /// - Returns: nil when the text does not hold three rows of three finite numbers, or a row
    ///   is all zeros (the matrix would lose an axis).
    public init?(parsing text: String) {
        let rowTexts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { return nil }
        var rows: [[Double]] = []
        for rowText in rowTexts {
            let cells = rowText.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: " \t\n\r") }
            guard cells.count == 3 else { return nil }
            var row: [Double] = []
            for cell in cells {
                guard let v = Double(cell), v.isFinite else { return nil }
                row.append(v)
            }
            if row.allSatisfy({ $0 == 0 }) { return nil }
            rows.append(row)
        }
        self.rows = rows
    }

    /// `M · v`.
    @inlinable public func apply(_ v: Vector3) -> Vector3 {
        Vector3(rows[0][0] * v.x + rows[0][1] * v.y + rows[0][2] * v.z,
                rows[1][0] * v.x + rows[1][1] * v.y + rows[1][2] * v.z,
                rows[2][0] * v.x + rows[2][1] * v.y + rows[2][2] * v.z)
    }

    /// The determinant (±1 for a rotation or reflection; a reflection is common in hwdb).
    public var determinant: Double {
        let m = rows
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}

/// How the accelerometer's sign is reported after the mount matrix (DESIGN §3, config key
/// `[sensor] accel_convention`).
public enum AccelConvention: String, Sendable, CaseIterable {
    /// Linux's de-facto convention (iio-sensor-proxy, hwdb): face up reads z ≈ −1 g; IIOSensors
    /// negates it so the pipeline sees specific force (+1 g on the up axis). The default.
    case gravity
    /// The hardware already reports specific force; no negation.
    case specificForce = "specific-force"
}

/// Scale and offset of one axis: `value = (raw + offset) · scale` (the IIO sysfs ABI), in the
/// channel's unit (m/s² for `in_accel`, rad/s for `in_anglvel`).
public struct AxisCalibration: Sendable, Equatable {
    public var scale: Double
    public var offset: Double
    public init(scale: Double, offset: Double) {
        self.scale = scale
        self.offset = offset
    }
    /// The calibrated value of `raw`; all in `Double`, so no 32-bit overflow.
    @inlinable public func value(_ raw: Int64) -> Double { (Double(raw) + offset) * scale }
}

/// Turns raw channel values into a sample in the device frame (DESIGN §3):
/// accel = ±M_a · ((raw + offset) · scale), negated for `AccelConvention.gravity`;
/// gyro = det(M_g) · M_g · ((raw + offset) · scale), since angular rate is a pseudo-vector.
public struct SampleTransform: Sendable, Equatable {
    public var accelAxes: [AxisCalibration]
    public var accelMatrix: SensorMountMatrix
    public var gyroAxes: [AxisCalibration]
    public var gyroMatrix: SensorMountMatrix
    public var convention: AccelConvention

    public init(accelAxes: [AxisCalibration], accelMatrix: SensorMountMatrix,
                gyroAxes: [AxisCalibration], gyroMatrix: SensorMountMatrix, convention: AccelConvention) {
        self.accelAxes = accelAxes
        self.accelMatrix = accelMatrix
        self.gyroAxes = gyroAxes
        self.gyroMatrix = gyroMatrix
        self.convention = convention
    }

    /// Acceleration in m/s² (specific force) from raw x, y, z.
    public func accel(_ raw: [Int64]) -> Vector3 {
        let v = Vector3(accelAxes[0].value(raw[0]), accelAxes[1].value(raw[1]), accelAxes[2].value(raw[2]))
        let mounted = accelMatrix.apply(v)
        return convention == .gravity ? -mounted : mounted
    }

    /// Angular rate in rad/s from raw x, y, z.
    public func gyro(_ raw: [Int64]) -> Vector3 {
        let v = Vector3(gyroAxes[0].value(raw[0]), gyroAxes[1].value(raw[1]), gyroAxes[2].value(raw[2]))
        let sign: Double = gyroMatrix.determinant < 0 ? -1 : 1
        return gyroMatrix.apply(v) * sign
    }
}

/// Parses a sysfs number (`"0.009806650\n"`, `" 100"`) without regard to the process locale.
/// - Returns: nil when the text is not one finite number.
func parseSysfsNumber(_ text: String) -> Double? {
    let t = text.trimmingCharacters(in: " \t\n\r\0")
    guard let v = Double(t), v.isFinite else { return nil }
    return v
}

/// Parses a space-separated list of numbers (`*_sampling_frequency_available`), skipping none:
/// any bad token makes the whole list nil.
func parseSysfsNumberList(_ text: String) -> [Double]? {
    var out: [Double] = []
    for token in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
        guard let v = Double(token), v.isFinite else { return nil }
        out.append(v)
    }
    return out
}
