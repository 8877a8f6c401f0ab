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

/// How the accelerometer's sign is reported after the mount matrix (docs/SENSORS.md "Values", config key
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

/// Turns raw channel values into a sample in the device frame (docs/SENSORS.md "Values"):
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

/// Parses a sysfs number (`"0.009806650\n"`, `" 100"`, `"-1.5e-3"`) without regard to the process
/// locale. Only the decimal form the kernel prints is accepted: `Double(_:)` alone would also take
/// `0x10` (a hex float, 16), `nan` and `inf`, which no IIO driver writes, so they would be silent
/// wrong numbers.
/// - Returns: nil when the text is not one finite decimal number.
func parseSysfsNumber(_ text: String) -> Double? {
    let t = text.trimmingCharacters(in: " \t\n\r\0")
    guard isDecimalNumber(t), let v = Double(t), v.isFinite else { return nil }
    return v
}

/// Parses a `*_raw` value: a decimal integer (`"-1024\n"`). Fractions, exponents, hex and values
/// outside Int64 are refused rather than truncated or trapped on.
/// - Returns: nil when the text is not one Int64 in decimal.
func parseSysfsInteger(_ text: String) -> Int64? {
    let t = text.trimmingCharacters(in: " \t\n\r\0")
    return Int64(t)
}

/// `[+-]digits[.digits][(e|E)[+-]digits]`, at least one mantissa digit (`.5` and `5.` included).
private func isDecimalNumber(_ t: String) -> Bool {
    var bytes = t.utf8[...]
    func digits() -> Int {
        let n = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
        bytes = bytes.dropFirst(n)
        return n
    }
    if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
    var mantissa = digits()
    if bytes.first == UInt8(ascii: ".") {
        bytes = bytes.dropFirst()
        mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if let c = bytes.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
        bytes = bytes.dropFirst()
        if let s = bytes.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard digits() > 0 else { return false }
    }
    return bytes.isEmpty
}

/// Parses a space-separated list of numbers (`*_sampling_frequency_available`), skipping none:
/// any bad token makes the whole list nil.
func parseSysfsNumberList(_ text: String) -> [Double]? {
    var out: [Double] = []
    for token in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
        guard let v = parseSysfsNumber(String(token)) else { return nil }
        out.append(v)
    }
    return out
}
