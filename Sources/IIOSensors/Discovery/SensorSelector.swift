/// What `[sensor] device` (or `--sensor`) names, and which sensors it matches
/// (docs/CONFIGURATION.md `device`, docs/SENSORS.md "Selection and pairing").
struct SensorSelector: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `display` or `base`: the sensors whose `label`, `location` attribute or udev
        /// `ACCEL_LOCATION` says so (`SensorInfo.location`).
        case location(String)
        /// `/sys/bus/iio/devices/iio:deviceN` (or `/sys/class/iio/...`): the symlink's name is
        /// the device's id; the link itself is not followed (a remote context has no sysfs).
        case busPath(id: String)
        /// Anything else: the IIO `name`, `label`, sysfs path, `iio:deviceN` or device node.
        case text
    }

    /// The selector as configured.
    var text: String
    var kind: Kind

    init(_ text: String) {
        self.text = text
        let trimmed = text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
        if text == "display" || text == "base" {
            kind = .location(text)
        } else if let id = Self.busLinkID(trimmed) {
            kind = .busPath(id: id)
        } else {
            kind = .text
        }
    }

    /// Whether `sensor` is one the selector names.
    func matches(_ sensor: SensorInfo) -> Bool {
        switch kind {
        case let .location(place):
            // A device named or labelled `display` by its driver still matches by that name.
            return sensor.location == place || sensor.name == text || sensor.label == text
        case let .busPath(id):
            return sensor.id == id || sensor.path == text
        case .text:
            let path = text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
            return sensor.name == text || sensor.label == text || sensor.path == path || sensor.id == text
                || sensor.dev == text
        }
    }

    /// `iio:deviceN` from `/sys/bus/iio/devices/iio:deviceN` or `/sys/class/iio/iio:deviceN`
    /// (with or without a trailing `/`), else nil.
    static func busLinkID(_ path: String) -> String? {
        for prefix in ["/sys/bus/iio/devices/", "/sys/class/iio/"] where path.hasPrefix(prefix) {
            let id = String(path.dropFirst(prefix.count))
            if id.hasPrefix("iio:device"), !id.contains("/") { return id }
        }
        return nil
    }
}
