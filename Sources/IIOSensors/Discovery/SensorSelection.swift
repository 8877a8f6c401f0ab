/// The sensor(s) chosen to read: an accelerometer or IMU, and a separate gyroscope device when
/// the accelerometer has none (HID `accel_3d` + `gyro_3d`, bmc150 + bmg160, lsm6dsx's two devices).
public struct SensorSelection: Sendable, Equatable {
    /// The accelerometer (or IMU) device.
    public var accel: SensorInfo
    /// A separate gyroscope device paired with it, or nil.
    public var gyro: SensorInfo?
    /// Why other sensors were passed over (e.g. one in the keyboard base).
    public var notes: [String]
    /// `who: warning` when the gyroscope (the IMU's own or the companion) has no scale and is
    /// not read; then `accel` is the accelerometer alone (kind `.accel`) and `gyro` is nil.
    public var gyroNotUsed: String?

    /// Chooses from `sensors` (docs/SENSORS.md "Selection and pairing", issue 4):
    /// - `selector` given: the sensor whose name, label, sysfs path, id or device node equals it;
    ///   a gyroscope companion is paired to an accelerometer-only match.
    /// - automatic: sensors whose label/location says keyboard base are skipped; an IMU wins over
    ///   an accelerometer; ties go to the lowest `iio:deviceN`.
    /// - Throws: `SensorError.notFound` naming the selector (or "an accelerometer").
    public static func choose(from sensors: [SensorInfo], selector: String?) throws(SensorError) -> SensorSelection {
        var notes: [String] = []
        var accel: SensorInfo
        if let selector, !selector.isEmpty {
            guard let match = sensors.first(where: {
                $0.name == selector || $0.label == selector || $0.path == selector || $0.id == selector || $0.dev == selector
            }) else { throw SensorError.notFound(selector) }
            guard match.hasAccel else {
                throw SensorError.notFound("\(selector) is a gyroscope without accelerometer; select the accelerometer")
            }
            accel = match
        } else {
            var candidates: [SensorInfo] = []
            for s in sensors where s.hasAccel {
                if s.location == "base" {
                    notes.append("\(s.who) skipped: its label/location says keyboard base, not display")
                } else {
                    candidates.append(s)
                }
            }
            guard let best = candidates.first(where: { $0.kind == .imu }) ?? candidates.first else {
                throw SensorError.notFound("an accelerometer")
            }
            accel = best
        }
        var gyro: SensorInfo?
        var gyroNotUsed: String?
        if accel.kind == .accel {
            gyro = companion(of: accel, in: sensors)
        } else if accel.gyroScaleMissing {
            gyroNotUsed = "\(accel.who): \(SensorDiscovery.gyroScaleMissingWarning)"
            accel.kind = .accel
        }
        if let g = gyro, g.gyroScaleMissing {
            gyroNotUsed = "\(g.who): \(SensorDiscovery.gyroScaleMissingWarning)"
            gyro = nil
        }
        return SensorSelection(accel: accel, gyro: gyro, notes: notes, gyroNotUsed: gyroNotUsed)
    }

    /// The gyroscope-only device that belongs with `accel`: same parent device (one chip with two
    /// IIO devices), else the same grandparent (HID sensor hub, or one board's I²C bus), else the
    /// same label once the words `accel`/`gyro`/`anglvel` are removed (`accel-display` ↔ `gyro-display`).
    static func companion(of accel: SensorInfo, in sensors: [SensorInfo]) -> SensorInfo? {
        let gyros = sensors.filter { $0.kind == .gyro && $0.location != "base" || ($0.kind == .gyro && accel.location == "base") }
        if let p = accel.parentPath, let g = gyros.first(where: { $0.parentPath == p }) { return g }
        if let gp = accel.grandparentPath, gp != "/sys/devices/platform",
           let g = gyros.first(where: { $0.grandparentPath == gp }) { return g }
        let key = labelKey(accel.label)
        if !key.isEmpty, let g = gyros.first(where: { labelKey($0.label) == key }) { return g }
        return nil
    }

    private static func labelKey(_ label: String) -> String {
        var s = label.lowercased()
        for word in ["accel", "anglvel", "gyro"] { s = s.replacingAll(word, with: "") }
        return s.filter { $0.isLetter || $0.isNumber }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
