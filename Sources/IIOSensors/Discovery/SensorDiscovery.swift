#if canImport(Glibc)
import Glibc
#endif
import MotionFusion

/// The sensors of one libiio context, with the context kept open so a reader can use them.
public final class SensorInventory {
    /// The open context, or nil when the system has no IIO device at all.
    let context: IIOContext?
    /// Every accelerometer, gyroscope and IMU found, sorted by id.
    public let sensors: [SensorInfo]
    /// The URI the inventory was taken from.
    public let uri: String
    /// Devices that look like motion sensors but were left out, and why (e.g. only two
    /// accelerometer axes), so that "no sensors" is never silent about them.
    public let notes: [String]

    init(context: IIOContext?, sensors: [SensorInfo], uri: String, notes: [String] = []) {
        self.context = context
        self.sensors = sensors
        self.uri = uri
        self.notes = notes
    }

    /// How to read and write the attributes of `sensor`.
    func attributes(of sensor: SensorInfo) -> DeviceAttributes? {
        guard let context else { return nil }
        if context.isLocal { return SysfsAttributes(syspath: sensor.path, deviceName: sensor.who) }
        return context.device(sensor.id).map { LibIIOAttributes(device: $0) }
    }

    /// The libiio device of `sensor`.
    func device(of sensor: SensorInfo) -> IIODevice? {
        context?.devices.first { $0.id == sensor.id }
    }
}

/// Finds IIO motion sensors (docs/SENSORS.md "Discovery"): udev enumerates subsystem `iio` (local), libiio
/// describes channels and scan elements, sysfs/udev give scale, offset and mount matrix.
public enum SensorDiscovery {
    /// Takes an inventory of the motion sensors behind `uri` (`nil` or `local:` for this machine).
    ///
    /// An empty system is not an error: udev lists no `iio` device (or libiio's local backend
    /// fails with `ENOENT`) → an empty inventory.
    /// - Throws: `SensorError.io` when udev or a remote context fails.
    public static func inventory(uri: String? = nil) throws(SensorError) -> SensorInventory {
        let text = (uri ?? "").isEmpty ? "local:" : (uri ?? "local:")
        if text == "local:" {
            let udevDevices = try Udev().iioDevices().filter { $0.sysname.hasPrefix("iio:device") }
            if udevDevices.isEmpty { return SensorInventory(context: nil, sensors: [], uri: text) }
            let context: IIOContext
            do {
                context = try IIOContext(uri: text)
            } catch let error {
                if case .io(_, _, ENOENT) = error { return SensorInventory(context: nil, sensors: [], uri: text) }
                if case let .io(_, _, code) = error, code == EINVAL || code == EFBIG {
                    throw .localTreeRefused(errno: code, causes: LocalTreeCheck.causes(in: udevDevices.map(\.syspath)))
                }
                throw error
            }
            let devices = context.devices
            var sensors: [SensorInfo] = []
            for record in udevDevices {
                guard let device = devices.first(where: { $0.id == record.sysname }) else { continue }
                let attributes = SysfsAttributes(syspath: record.syspath, deviceName: device.displayName)
                if let info = describe(device, udev: record, attributes: attributes, all: devices, uri: text) {
                    sensors.append(info)
                }
            }
            return SensorInventory(context: context, sensors: sensors.sorted(by: idOrder), uri: text,
                                   notes: devices.compactMap(incompleteNote))
        }
        let context = try IIOContext(uri: text)
        let devices = context.devices
        let sensors = devices.filter { !$0.isTrigger }.compactMap { device in
            describe(device, udev: nil, attributes: LibIIOAttributes(device: device), all: devices, uri: text)
        }
        return SensorInventory(context: context, sensors: sensors.sorted(by: idOrder), uri: text,
                               notes: devices.compactMap(incompleteNote))
    }

    /// A note for a device with some but not all three axes of a kind (`accel_x`, `accel_y`
    /// without `accel_z`): it cannot give a vector, so it is not listed as a sensor.
    static func incompleteNote(_ device: IIODevice) -> String? {
        let ids = Set(device.channels.map(\.id))
        var missing: [String] = []
        for type in ["accel", "anglvel"] {
            let axes = ["x", "y", "z"].map { "\(type)_\($0)" }
            let present = axes.filter(ids.contains)
            if !present.isEmpty, present.count < 3 { missing += axes.filter { !ids.contains($0) } }
        }
        guard !missing.isEmpty else { return nil }
        return "\(device.displayName): no \(missing.joined(separator: ", ")) channel; not a 3-axis sensor, skipped"
    }

    /// `iio:device2` before `iio:device10`.
    private static func idOrder(_ a: SensorInfo, _ b: SensorInfo) -> Bool {
        let na = Int(a.id.drop { !$0.isNumber }) ?? 0
        let nb = Int(b.id.drop { !$0.isNumber }) ?? 0
        return na != nb ? na < nb : a.id < b.id
    }

    /// Describes one device, or nil when it has neither three accelerometer nor three
    /// gyroscope axes.
    static func describe(_ device: IIODevice, udev: UdevIIODevice?, attributes: DeviceAttributes,
                         all devices: [IIODevice], uri: String) -> SensorInfo? {
        let channels = device.channels
        let ids = Set(channels.map(\.id))
        let hasAccel = ["accel_x", "accel_y", "accel_z"].allSatisfy(ids.contains)
        let hasGyro = ["anglvel_x", "anglvel_y", "anglvel_z"].allSatisfy(ids.contains)
        guard hasAccel || hasGyro else { return nil }
        let kind: SensorKind = hasAccel && hasGyro ? .imu : (hasAccel ? .accel : .gyro)
        let name = device.name ?? ""
        var warnings: [String] = []
        let (described, gyroScaleMissing) = describeChannels(channels, attributes: attributes, warnings: &warnings)
        let primaryType = hasAccel ? "accel" : "anglvel"
        let (matrix, source, matrixWarnings) = mountMatrix(
            property: hasAccel ? "ACCEL_MOUNT_MATRIX" : "GYRO_MOUNT_MATRIX",
            files: ["in_\(primaryType)_mount_matrix", "in_mount_matrix", "mount_matrix"], udev: udev, attributes: attributes)
        warnings += matrixWarnings
        var gyroMatrix: MountMatrix?
        if hasAccel && hasGyro {
            let (g, gsource, gw) = mountMatrix(property: "GYRO_MOUNT_MATRIX", files: ["in_anglvel_mount_matrix"],
                                               udev: udev, attributes: attributes)
            if gsource != .identity { gyroMatrix = g }
            warnings += gw
        }
        let (frequency, available) = samplingFrequencies(of: primaryType, attributes: attributes, warnings: &warnings)
        let number = device.id.drop { !$0.isNumber }
        let triggers = devices.filter(\.isTrigger).compactMap(\.name)
            .filter { $0.hasPrefix(name + "-") || $0.hasSuffix("-dev" + number) }
            .sorted()
        var buffered = channels.contains { $0.isScanElement } &&
            (attributes.read("buffer/length") != nil || attributes.read("buffer/enable") != nil)
        if buffered, let problem = scanProblem(channels, hasAccel: hasAccel, hasGyro: hasGyro, attributes: attributes) {
            warnings.append("\(problem); buffered mode disabled, values are polled")
            buffered = false
        }
        let label = (device.label ?? attributes.read("label") ?? "").trimmingCharacters(in: " \n")
        if buffered, let devnode = udev?.devnode, !DeviceHolders.holders(of: devnode).isEmpty {
            warnings.append("\(DeviceHolders.busyText(id: device.id, devnode: devnode)); buffered reads fall back to polled mode")
        }
        return SensorInfo(
            id: device.id, name: name, label: label,
            path: udev?.syspath ?? "\(uri)/\(device.id)",
            dev: udev?.devnode ?? (udev == nil ? "" : "/dev/\(device.id)"),
            kind: kind, channels: described, mountMatrix: matrix, mountMatrixSource: source,
            gyroMountMatrix: gyroMatrix, samplingFrequencyHz: frequency,
            samplingFrequencyAvailableHz: available, buffered: buffered, triggers: triggers,
            warnings: warnings.uniqued(), location: location(label: label, attributes: attributes, udev: udev),
            parentPath: udev?.parentPath, grandparentPath: udev?.grandparentPath,
            gyroScaleMissing: gyroScaleMissing)
    }

    /// The warning of a device whose gyroscope axes have no `scale`: raw counts are not rad/s
    /// (a bmi160's 164 counts would read as 164 rad/s), so its angular rate is not used.
    public static let gyroScaleMissingWarning =
        "no gyroscope scale (in_anglvel_x_scale, in_anglvel_scale or scale): angular rate not used, accelerometer only"

    /// The accel, anglvel and timestamp channels with their scale and offset, in scan index
    /// order (channels without one last, by name), and whether an anglvel axis has no scale
    /// (then `gyroScaleMissingWarning` is among the warnings, once).
    static func describeChannels(_ channels: [IIOChannel], attributes: DeviceAttributes,
                                 warnings: inout [String]) -> ([SensorChannelInfo], gyroScaleMissing: Bool) {
        var described: [SensorChannelInfo] = []
        var gyroScaleMissing = false
        for channel in channels {
            let id = channel.id
            guard id == "timestamp" || id.hasPrefix("accel_") || id.hasPrefix("anglvel_") else { continue }
            var scale = 1.0
            var offset = 0.0
            if id != "timestamp" {
                let (s, o, w) = calibration(of: id, attributes: attributes)
                scale = s ?? 1.0
                if s == nil && id.hasPrefix("anglvel_") { gyroScaleMissing = true }
                offset = o
                warnings += w
            }
            described.append(SensorChannelInfo(
                name: id,
                index: channel.isScanElement && channel.scanIndex >= 0 ? channel.scanIndex : nil,
                type: channel.isScanElement ? scanType(of: channel, attributes: attributes) : nil,
                scale: scale, offset: offset))
        }
        described.sort { a, b in
            switch (a.index, b.index) {
            case let (x?, y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.name < b.name
            }
        }
        if gyroScaleMissing { warnings.append(gyroScaleMissingWarning) }
        return (described, gyroScaleMissing)
    }

    /// The current sampling frequency and the available ones, Hz, from
    /// `in_<type>_sampling_frequency[_available]` or the shared `sampling_frequency[_available]`;
    /// implausible values are dropped with a warning.
    static func samplingFrequencies(of primaryType: String, attributes: DeviceAttributes,
                                    warnings: inout [String]) -> (Double?, [Double]) {
        let frequencyFiles = ["in_\(primaryType)_sampling_frequency", "sampling_frequency"]
        var frequency: Double?
        if let file = frequencyFiles.first(where: { attributes.read($0) != nil }), let text = attributes.read(file) {
            frequency = parseSysfsNumber(text).flatMap { SamplingRate.isPlausible($0) ? $0 : nil }
            if frequency == nil { warnings.append("\(file): '\(printable(text))' is not a rate in Hz; ignored") }
        }
        var available: [Double] = []
        if let file = frequencyFiles.map({ $0 + "_available" }).first(where: { attributes.read($0) != nil }),
           let text = attributes.read(file) {
            if let list = parseSysfsNumberList(text) {
                available = list.filter(SamplingRate.isPlausible).sorted()
                if available.count < list.count {
                    warnings.append("\(file): rates outside 0 < f ≤ 1 MHz in '\(printable(text))' ignored")
                }
            } else {
                warnings.append("\(file): cannot parse '\(printable(text))'")
            }
        }
        return (frequency, available)
    }

    /// `base`, `display` or empty, from the label, `location`, udev's `ACCEL_LOCATION` and
    /// `IIO_SENSOR_PROXY_TYPE` (as iio-sensor-proxy tells a lid sensor from a base one).
    static func location(label: String, attributes: DeviceAttributes, udev: UdevIIODevice?) -> String {
        let text = [label, attributes.read("location") ?? "",
                    udev?.properties["ACCEL_LOCATION"] ?? "", udev?.properties["IIO_SENSOR_PROXY_TYPE"] ?? ""]
            .joined(separator: " ").lowercased()
        return text.contains("base") ? "base" : (text.contains("display") || text.contains("lid") ? "display" : "")
    }

    /// An axis's scale (nil when none is readable), offset (0 when none) and warnings; a missing
    /// accelerometer scale reads as 1.0 with a warning (tilt takes only the direction of the
    /// accelerometer), a missing gyroscope scale is said once by `describeChannels`.
    static func calibration(of id: String, attributes: DeviceAttributes) -> (Double?, Double, [String]) {
        let parts = id.split(separator: "_")
        let type = parts.first.map(String.init) ?? id
        var warnings: [String] = []
        func lookup(_ attribute: String) -> (Double?, String?) {
            let files = ["in_\(id)_\(attribute)", "in_\(type)_\(attribute)", attribute]
            for file in files {
                guard let text = attributes.read(file) else { continue }
                if let v = parseSysfsNumber(text) { return (v, file) }
                warnings.append("\(file): bad value '\(printable(text))', ignored")
            }
            return (nil, nil)
        }
        let (scale, scaleFile) = lookup("scale")
        let (offset, _) = lookup("offset")
        if scale == 0, let scaleFile {
            warnings.append("\(scaleFile) is 0: every \(type) value reads 0")
        }
        if scale == nil && type != "anglvel" {
            warnings.append("\(id): no scale (in_\(id)_scale, in_\(type)_scale or scale): using 1.0, units unknown")
        }
        return (scale, offset ?? 0.0, warnings)
    }

    /// The mount matrix by precedence udev property → sysfs files → identity; an invalid one is
    /// skipped with a warning.
    static func mountMatrix(property: String, files: [String], udev: UdevIIODevice?,
                            attributes: DeviceAttributes) -> (MountMatrix, MountMatrixSource, [String]) {
        var warnings: [String] = []
        if let text = udev?.properties[property] {
            switch checkedMountMatrix(text) {
            case let .success(m): return (m, .udev, warnings)
            case let .failure(problem): warnings.append("udev \(property): \(problem); ignored")
            }
        }
        for file in files {
            guard let raw = attributes.read(file) else { continue }
            switch checkedMountMatrix(raw.trimmingCharacters(in: " \n")) {
            case let .success(m): return (m, .sysfs, warnings)
            case let .failure(problem): warnings.append("\(file): \(problem); ignored")
            }
        }
        return (.identity, .identity, warnings)
    }

    /// The mount matrix in `text`, or why it is refused: MotionFusion's rules (3 rows of 3
    /// finite numbers, no all-zero row), then every entry in the decimal form the kernel prints
    /// (`Double(_:)` alone reads `0x1` as a hex float), every entry within −1…1 (the kernel's
    /// mount matrix is a rotation, whose entries are cosines: `1e308` would turn every sample
    /// into infinity, `1e9` would make a unit of it) and not singular.
    static func checkedMountMatrix(_ text: String) -> Result<MountMatrix, MountMatrixRefusal> {
        let m: MountMatrix
        do {
            m = try MountMatrix(parsing: text)
        } catch {
            return .failure(MountMatrixRefusal(description: printable("\(error)")))
        }
        let quoted = printable(text)
        for entry in text.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let trimmed = entry.trimmingCharacters(in: " \t\n\r")
            guard let v = parseSysfsNumber(trimmed) else {
                return .failure(MountMatrixRefusal(description: "mount matrix '\(quoted)': '\(printable(trimmed))' is not a decimal number"))
            }
            guard abs(v) <= 1 else {
                return .failure(MountMatrixRefusal(description: "mount matrix '\(quoted)': entry \(trimmed) is outside -1…1, so this is no rotation"))
            }
        }
        if let problem = singular(m) { return .failure(MountMatrixRefusal(description: problem)) }
        return .success(m)
    }

    /// A matrix that maps some direction to zero (two equal rows, `1, 1, 0; 1, 1, 0; 0, 0, 1`)
    /// passes the all-zero-row check but would silently flatten an axis.
    static func singular(_ m: MountMatrix) -> String? {
        abs(m.determinant) < 1e-3 ? "mount matrix '\(m)' is singular (determinant \(m.determinant))" : nil
    }

    /// The storage type as `scan_elements/*_type` says it (local sysfs), else libiio's reading of it.
    static func scanType(of channel: IIOChannel, attributes: DeviceAttributes) -> String {
        if let text = attributes.read("scan_elements/in_\(channel.id)_type") { return printable(text) }
        return channel.typeString
    }

    /// Why the buffer cannot deliver the axes (and timestamp) correctly, or nil: every axis must
    /// be a scan element with an index and a decodable type, and no two may share an index
    /// (libiio would read both from the same bytes).
    static func scanProblem(_ channels: [IIOChannel], hasAccel: Bool, hasGyro: Bool,
                            attributes: DeviceAttributes) -> String? {
        let wanted = (hasAccel ? ["accel_x", "accel_y", "accel_z"] : []) + (hasGyro ? ["anglvel_x", "anglvel_y", "anglvel_z"] : [])
        var used: [Int: String] = [:]
        for id in wanted + ["timestamp"] {
            guard let channel = channels.first(where: { $0.id == id }) else { continue }
            guard channel.isScanElement, channel.scanIndex >= 0 else {
                if id == "timestamp" { continue }
                return "\(id) is not a scan element (scan_elements/in_\(id)_en, _index, _type)"
            }
            if let problem = channel.formatProblem {
                let text = attributes.read("scan_elements/in_\(id)_type").map { "'\(printable($0))'" } ?? "missing or unreadable"
                return "scan_elements/in_\(id)_type \(text): \(problem)"
            }
            if let other = used[channel.scanIndex] {
                return "scan_elements: \(other) and \(id) share index \(channel.scanIndex)"
            }
            used[channel.scanIndex] = id
        }
        return nil
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each only once (a shared `in_accel_scale` that is bad warns once,
    /// not once per axis).
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
