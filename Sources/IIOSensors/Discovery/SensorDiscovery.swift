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

    init(context: IIOContext?, sensors: [SensorInfo], uri: String) {
        self.context = context
        self.sensors = sensors
        self.uri = uri
    }

    /// How to read and write the attributes of `sensor`.
    func attributes(of sensor: SensorInfo) -> DeviceAttributes? {
        guard let context else { return nil }
        if context.isLocal { return SysfsAttributes(syspath: sensor.path, deviceName: "\(sensor.name) (\(sensor.id))") }
        return context.device(sensor.id).map { LibIIOAttributes(device: $0) }
    }

    /// The libiio device of `sensor`.
    func device(of sensor: SensorInfo) -> IIODevice? {
        context?.devices.first { $0.id == sensor.id }
    }
}

/// Finds IIO motion sensors (DESIGN §6): udev enumerates subsystem `iio` (local), libiio
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
                throw error
            }
            let devices = context.devices
            var sensors: [SensorInfo] = []
            for record in udevDevices {
                guard let device = devices.first(where: { $0.id == record.sysname }) else { continue }
                let attributes = SysfsAttributes(syspath: record.syspath, deviceName: "\(device.name ?? "?") (\(device.id))")
                if let info = describe(device, udev: record, attributes: attributes, all: devices, uri: text) {
                    sensors.append(info)
                }
            }
            return SensorInventory(context: context, sensors: sensors.sorted(by: idOrder), uri: text)
        }
        let context = try IIOContext(uri: text)
        let devices = context.devices
        let sensors = devices.filter { !$0.isTrigger }.compactMap { device in
            describe(device, udev: nil, attributes: LibIIOAttributes(device: device), all: devices, uri: text)
        }
        return SensorInventory(context: context, sensors: sensors.sorted(by: idOrder), uri: text)
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

        var described: [SensorChannelInfo] = []
        for channel in channels {
            let id = channel.id
            guard id == "timestamp" || id.hasPrefix("accel_") || id.hasPrefix("anglvel_") else { continue }
            var scale = 1.0
            var offset = 0.0
            if id != "timestamp" {
                let (s, o, w) = calibration(of: id, attributes: attributes)
                scale = s
                offset = o
                warnings += w
            }
            described.append(SensorChannelInfo(
                name: id,
                index: channel.isScanElement && channel.scanIndex >= 0 ? channel.scanIndex : nil,
                type: channel.isScanElement ? channel.typeString : nil,
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

        let primaryType = hasAccel ? "accel" : "anglvel"
        let (matrix, source, matrixWarnings) = mountMatrix(
            property: hasAccel ? "ACCEL_MOUNT_MATRIX" : "GYRO_MOUNT_MATRIX",
            files: ["in_\(primaryType)_mount_matrix", "mount_matrix"], udev: udev, attributes: attributes)
        warnings += matrixWarnings
        var gyroMatrix: MountMatrix?
        if hasAccel && hasGyro {
            let (g, gsource, gw) = mountMatrix(property: "GYRO_MOUNT_MATRIX", files: ["in_anglvel_mount_matrix"],
                                               udev: udev, attributes: attributes)
            if gsource != .identity { gyroMatrix = g }
            warnings += gw
        }

        let frequencyFiles = ["in_\(primaryType)_sampling_frequency", "sampling_frequency"]
        let frequency = frequencyFiles.lazy.compactMap { attributes.read($0) }.first.flatMap(parseSysfsNumber)
        var available: [Double] = []
        if let text = frequencyFiles.lazy.compactMap({ attributes.read($0 + "_available") }).first {
            if let list = parseSysfsNumberList(text) {
                available = list.sorted()
            } else {
                warnings.append("sampling_frequency_available: cannot parse '\(text.trimmingCharacters(in: " \n"))'")
            }
        }

        let number = device.id.drop { !$0.isNumber }
        let triggers = devices.filter(\.isTrigger).compactMap(\.name)
            .filter { $0.hasPrefix(name + "-") || $0.hasSuffix("-dev" + number) }
            .sorted()
        let buffered = channels.contains { $0.isScanElement } &&
            (attributes.read("buffer/length") != nil || attributes.read("buffer/enable") != nil)

        let label = (device.label ?? attributes.read("label") ?? "").trimmingCharacters(in: " \n")
        let locationText = [label, attributes.read("location") ?? "",
                            udev?.properties["ACCEL_LOCATION"] ?? "", udev?.properties["IIO_SENSOR_PROXY_TYPE"] ?? ""]
            .joined(separator: " ").lowercased()
        let location = locationText.contains("base") ? "base"
            : (locationText.contains("display") || locationText.contains("lid") ? "display" : "")

        return SensorInfo(
            id: device.id, name: name, label: label,
            path: udev?.syspath ?? "\(uri)/\(device.id)",
            dev: udev?.devnode ?? (udev == nil ? "" : "/dev/\(device.id)"),
            kind: kind, channels: described, mountMatrix: matrix, mountMatrixSource: source,
            gyroMountMatrix: gyroMatrix, samplingFrequencyHz: frequency,
            samplingFrequencyAvailableHz: available, buffered: buffered, triggers: triggers,
            warnings: warnings, location: location,
            parentPath: udev?.parentPath, grandparentPath: udev?.grandparentPath)
    }

    /// Scale and offset of channel `id` (`accel_x`): per-axis over shared over device-level.
    static func calibration(of id: String, attributes: DeviceAttributes) -> (Double, Double, [String]) {
        let parts = id.split(separator: "_")
        let type = parts.first.map(String.init) ?? id
        var warnings: [String] = []
        func lookup(_ attribute: String) -> (Double?, String?) {
            let files = ["in_\(id)_\(attribute)", "in_\(type)_\(attribute)", attribute]
            for file in files {
                guard let text = attributes.read(file) else { continue }
                if let v = parseSysfsNumber(text) { return (v, file) }
                warnings.append("\(file): bad value '\(text.trimmingCharacters(in: " \n"))', ignored")
            }
            return (nil, nil)
        }
        let (scale, _) = lookup("scale")
        let (offset, _) = lookup("offset")
        if scale == nil {
            warnings.append("\(id): no scale (in_\(id)_scale, in_\(type)_scale or scale): using 1.0, units unknown")
        }
        return (scale ?? 1.0, offset ?? 0.0, warnings)
    }

    /// The mount matrix by precedence udev property → sysfs files → identity; an invalid one is
    /// skipped with a warning.
    static func mountMatrix(property: String, files: [String], udev: UdevIIODevice?,
                            attributes: DeviceAttributes) -> (MountMatrix, MountMatrixSource, [String]) {
        var warnings: [String] = []
        if let text = udev?.properties[property] {
            do {
                return (try MountMatrix(parsing: text), .udev, warnings)
            } catch {
                warnings.append("udev \(property): \(error); ignored")
            }
        }
        for file in files {
            guard let raw = attributes.read(file) else { continue }
            do {
                return (try MountMatrix(parsing: raw.trimmingCharacters(in: " \n")), .sysfs, warnings)
            } catch {
                warnings.append("\(file): \(error); ignored")
            }
        }
        return (.identity, .identity, warnings)
    }
}
