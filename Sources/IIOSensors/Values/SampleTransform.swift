import MotionFusion

extension MountMatrix {
    /// Rows as arrays (for JSON and text output).
    var rowArrays: [[Double]] {
        [rows.0, rows.1, rows.2].map { [$0.x, $0.y, $0.z] }
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
/// gyro = det(M_g) · M_g · ((raw + offset) · scale), since angular rate is a pseudo-vector
/// (MotionFusion's `MountMatrix.applyToAccel` / `applyToGyro`).
public struct SampleTransform: Sendable, Equatable {
    public var accelAxes: [AxisCalibration]
    public var accelMatrix: MountMatrix
    public var gyroAxes: [AxisCalibration]
    public var gyroMatrix: MountMatrix
    public var convention: AccelConvention

    public init(accelAxes: [AxisCalibration], accelMatrix: MountMatrix,
                gyroAxes: [AxisCalibration], gyroMatrix: MountMatrix, convention: AccelConvention) {
        self.accelAxes = accelAxes
        self.accelMatrix = accelMatrix
        self.gyroAxes = gyroAxes
        self.gyroMatrix = gyroMatrix
        self.convention = convention
    }

    /// Acceleration in m/s² (specific force) from raw x, y, z.
    public func accel(_ raw: [Int64]) -> Vector3 {
        let v = Vector3(accelAxes[0].value(raw[0]), accelAxes[1].value(raw[1]), accelAxes[2].value(raw[2]))
        let mounted = accelMatrix.applyToAccel(v)
        return convention == .gravity ? -mounted : mounted
    }

    /// Angular rate in rad/s from raw x, y, z.
    public func gyro(_ raw: [Int64]) -> Vector3 {
        let v = Vector3(gyroAxes[0].value(raw[0]), gyroAxes[1].value(raw[1]), gyroAxes[2].value(raw[2]))
        return gyroMatrix.applyToGyro(v)
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
