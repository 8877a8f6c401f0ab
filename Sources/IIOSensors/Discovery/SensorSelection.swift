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
    /// A warning when the configured selector matched more than one accelerometer: every
    /// candidate and the one chosen by the selection rule; nil otherwise.
    public var ambiguity: String?

    /// Chooses from `sensors` (docs/SENSORS.md "Selection and pairing"). The candidates are the
    /// accelerometers (and IMUs) that `selector` matches, or all of them without a selector;
    /// the selection rule then ranks them the same way on start and after every hotplug:
    /// 1. location: `display` first, unknown next, `base` (a convertible's keyboard base) last,
    ///    so the base is read only while no other accelerometer is present;
    /// 2. gyroscope axes in the same device (an IMU), then a companion gyroscope device that
    ///    shares its parent device, hub or bus (`companion`), then none;
    /// 3. the lowest `iio:deviceN`.
    ///
    /// `selector` matches (`SensorSelector`): `display` / `base` by location, else the IIO
    /// `name`, `label`, sysfs path (`/sys/devices/...` or `/sys/bus/iio/devices/iio:deviceN`),
    /// `iio:deviceN` or `/dev/iio:deviceN`.
    /// - Throws: `SensorError.notFound` naming the selector (or "an accelerometer").
    public static func choose(from sensors: [SensorInfo], selector: String?) throws(SensorError) -> SensorSelection {
        var notes: [String] = []
        var candidates: [SensorInfo]
        let selector = selector.flatMap { $0.isEmpty ? nil : SensorSelector($0) }
        if let selector {
            var matches = sensors.filter(selector.matches)
            if matches.isEmpty, case .location("display") = selector.kind {
                // Nothing says display (HID hubs have no label, no hwdb entry): the
                // accelerometers whose location is unknown, i.e. not said to be in the base.
                matches = sensors.filter { $0.hasAccel && $0.location.isEmpty }
            }
            guard !matches.isEmpty else { throw SensorError.notFound(selector.text) }
            candidates = matches.filter(\.hasAccel)
            guard !candidates.isEmpty else {
                throw SensorError.notFound("\(selector.text) is a gyroscope without accelerometer; select the accelerometer")
            }
        } else {
            candidates = sensors.filter(\.hasAccel)
        }
        let ranked = rank(candidates, in: sensors)
        guard var accel = ranked.first else { throw SensorError.notFound("an accelerometer") }
        for s in ranked.dropFirst() where s.location == "base" && accel.location != "base" {
            notes.append("\(s.who) skipped: its label/location says keyboard base, not display")
        }
        if selector == nil, accel.location == "base" {
            notes.append("\(accel.who) is in the keyboard base (its label/location says so) but no other accelerometer is present: reading it")
        }
        var ambiguity: String?
        if let selector, ranked.count > 1 {
            let list = ranked.map { "\($0.who) at \($0.path) (\(description(of: $0, in: sensors)))" }
            ambiguity = "device = '\(printable(selector.text))' matches \(ranked.count) accelerometers: "
                + list.joined(separator: ", ") + "; reading \(accel.who) by the selection rule "
                + "(display before unknown before base, then one with a gyroscope, then the lowest number)"
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
        return SensorSelection(accel: accel, gyro: gyro, notes: notes, gyroNotUsed: gyroNotUsed, ambiguity: ambiguity)
    }

    /// `candidates` best first by the selection rule (see `choose`); `sensors` are all the
    /// sensors present, among which companions are looked for. Stable for equal ranks, so the
    /// discovery order (lowest `iio:deviceN` first) breaks ties.
    static func rank(_ candidates: [SensorInfo], in sensors: [SensorInfo]) -> [SensorInfo] {
        func key(_ s: SensorInfo) -> (Int, Int, Int) {
            let place = s.location == "display" ? 0 : (s.location == "base" ? 2 : 1)
            return (place, gyroRank(s, in: sensors), deviceNumber(s.id))
        }
        return candidates.enumerated().sorted { a, b in
            let ka = key(a.element), kb = key(b.element)
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    /// 0 when `accel` has gyroscope axes of its own (an IMU), 1 when a companion gyroscope
    /// device goes with it (`companion`: same parent device, same hub or bus, or matching
    /// label), 2 without a gyroscope; a gyroscope without a scale is not read, so it counts as none.
    static func gyroRank(_ accel: SensorInfo, in sensors: [SensorInfo]) -> Int {
        if accel.kind == .imu { return accel.gyroScaleMissing ? 2 : 0 }
        return companion(of: accel, in: sensors).map { $0.gyroScaleMissing ? 2 : 1 } ?? 2
    }

    /// `display, with gyroscope` — what the rule saw of a candidate, for the ambiguity warning.
    static func description(of s: SensorInfo, in sensors: [SensorInfo]) -> String {
        let place = s.location.isEmpty ? "location unknown" : s.location
        let gyro: String
        if s.kind == .imu {
            gyro = "with its own gyroscope"
        } else if let g = companion(of: s, in: sensors) {
            gyro = "with gyroscope \(g.who)"
        } else {
            gyro = "no gyroscope"
        }
        return "\(place), \(gyro)"
    }

    /// `iio:device10` → 10 (0 for an id without a number).
    static func deviceNumber(_ id: String) -> Int {
        Int(id.drop { !$0.isNumber }) ?? 0
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
