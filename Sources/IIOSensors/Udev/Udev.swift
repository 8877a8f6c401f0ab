#if canImport(Glibc)
import Glibc
#endif
import CLibUdev

/// A snapshot of one udev device of subsystem `iio`: what discovery needs, copied out of libudev
/// so that no `struct udev_device *` outlives the call.
public struct UdevIIODevice: Sendable, Equatable {
    /// `/sys/devices/.../iio:device0`.
    public var syspath: String
    /// `iio:device0` (the libiio device id).
    public var sysname: String
    /// `/dev/iio:device0`, when the device has a node.
    public var devnode: String?
    /// Names of the sysfs attribute files directly in the device directory.
    public var attributeNames: [String]
    /// udev properties (`ACCEL_MOUNT_MATRIX`, `GYRO_MOUNT_MATRIX`, `ACCEL_LOCATION`, …).
    public var properties: [String: String]
    /// The parent's and grandparent's syspaths (used to pair accelerometer and gyroscope).
    public var parentPath: String?
    public var grandparentPath: String?
}

/// The udev library context. Wraps `struct udev *`.
final class Udev {
    let pointer: OpaquePointer

    /// - Throws: `SensorError.io(device: "udev", what: "udev_new", errno)`.
    init() throws(SensorError) {
        guard let u = udev_new() else { throw SensorError.io(device: "udev", what: "udev_new", errno: errno == 0 ? ENOMEM : errno) }
        pointer = u
    }

    deinit { udev_unref(pointer) }

    /// Every device of subsystem `iio` (devices and triggers), sorted by syspath.
    /// - Throws: `SensorError.io` when enumeration fails.
    func iioDevices() throws(SensorError) -> [UdevIIODevice] {
        guard let e = udev_enumerate_new(pointer) else { throw SensorError.io(device: "udev", what: "udev_enumerate_new", errno: ENOMEM) }
        defer { udev_enumerate_unref(e) }
        _ = udev_enumerate_add_match_subsystem(e, "iio")
        let rc = udev_enumerate_scan_devices(e)
        if rc < 0 { throw SensorError.io(device: "udev", what: "udev_enumerate_scan_devices", errno: -rc) }
        var result: [UdevIIODevice] = []
        var entry = udev_enumerate_get_list_entry(e)
        while let current = entry {
            if let name = udev_list_entry_get_name(current),
               let device = udev_device_new_from_syspath(pointer, name) {
                result.append(Udev.snapshot(device))
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return result.sorted { $0.syspath < $1.syspath }
    }

    /// Copies what discovery needs out of a `struct udev_device *`.
    static func snapshot(_ device: OpaquePointer) -> UdevIIODevice {
        func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        var attributes: [String] = []
        var entry = udev_device_get_sysattr_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) { attributes.append(String(cString: name)) }
            entry = udev_list_entry_get_next(current)
        }
        var properties: [String: String] = [:]
        entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                properties[String(cString: name)] = text(udev_list_entry_get_value(current)) ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        let parent = udev_device_get_parent(device)  // borrowed, owned by the child
        let grandparent = parent.flatMap { udev_device_get_parent($0) }
        return UdevIIODevice(
            syspath: text(udev_device_get_syspath(device)) ?? "",
            sysname: text(udev_device_get_sysname(device)) ?? "",
            devnode: text(udev_device_get_devnode(device)),
            attributeNames: attributes.sorted(),
            properties: properties,
            parentPath: parent.flatMap { text(udev_device_get_syspath($0)) },
            grandparentPath: grandparent.flatMap { text(udev_device_get_syspath($0)) })
    }
}
