#if canImport(Glibc)
import Glibc
#endif
import CLibUdev

/// A hotplug event of an IIO device.
public struct SensorHotplugEvent: Sendable, Equatable {
    public enum Action: String, Sendable { case add, remove, change }
    public var action: Action
    /// `/sys/devices/.../iio:deviceN`.
    public var syspath: String
    /// `iio:deviceN` or `triggerN`.
    public var sysname: String
}

/// Watches udev for IIO devices coming and going. Wraps a `struct udev_monitor *` on the `udev`
/// netlink group, filtered to subsystem `iio`.
///
/// Put `pollDescriptor` in an epoll set; when it is readable call `events()`, which never
/// blocks. Works under umockdev (its preload library emulates the netlink socket).
public final class SensorMonitor {
    private let udev: Udev
    private let monitor: OpaquePointer
    /// Readable when events are waiting (non-blocking, close-on-exec).
    public let pollDescriptor: Int32

    /// - Throws: `SensorError.io(device: "udev monitor", what:, errno)`.
    public init() throws(SensorError) {
        udev = try Udev()
        guard let m = udev_monitor_new_from_netlink(udev.pointer, "udev") else {
            throw SensorError.io(device: "udev monitor", what: "udev_monitor_new_from_netlink", errno: errno == 0 ? EIO : errno)
        }
        monitor = m
        var rc = udev_monitor_filter_add_match_subsystem_devtype(m, "iio", nil)
        if rc >= 0 { rc = udev_monitor_enable_receiving(m) }
        if rc < 0 {
            udev_monitor_unref(m)
            throw SensorError.io(device: "udev monitor", what: "udev_monitor_enable_receiving", errno: -rc)
        }
        let fd = udev_monitor_get_fd(m)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        pollDescriptor = fd
    }

    deinit { udev_monitor_unref(monitor) }

    /// Every event waiting now (possibly none).
    public func events() -> [SensorHotplugEvent] {
        var result: [SensorHotplugEvent] = []
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
            guard let kind = SensorHotplugEvent.Action(rawValue: action) else { continue }
            result.append(SensorHotplugEvent(
                action: kind,
                syspath: udev_device_get_syspath(device).map { String(cString: $0) } ?? "",
                sysname: udev_device_get_sysname(device).map { String(cString: $0) } ?? ""))
        }
        return result
    }
}
