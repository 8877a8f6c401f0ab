#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes a device's sysfs attribute files by their file name relative to the device
/// directory (`in_accel_x_scale`, `sampling_frequency`, `buffer/enable`).
///
/// Two implementations: `SysfsAttributes` for the local backend (exact file names, so per-axis
/// and shared attributes stay apart) and `LibIIOAttributes` for remote contexts (`ip:`), where
/// only libiio's view exists.
protocol DeviceAttributes {
    /// The text of the attribute, or nil when it does not exist or cannot be read.
    func read(_ file: String) -> String?
    /// Writes `value` to the attribute.
    /// - Throws: `SensorError.io(device:what: file, errno)`.
    func write(_ file: String, _ value: String) throws(SensorError)
    /// Whether the device is still there (a local sysfs directory that still exists), or nil
    /// when this view cannot tell (libiio's remote view).
    var isPresent: Bool? { get }
}

extension DeviceAttributes {
    var isPresent: Bool? { nil }
}

/// Attribute files under a local sysfs device directory (also what umockdev fakes).
struct SysfsAttributes: DeviceAttributes {
    /// `/sys/devices/.../iio:deviceN`.
    var syspath: String
    /// Name used in errors.
    var deviceName: String

    func read(_ file: String) -> String? {
        bytes(file).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The attribute's bytes as the kernel gives them (one read of at most a page, 4096 bytes,
    /// which is all a sysfs attribute holds); nil when it cannot be opened or read.
    func bytes(_ file: String) -> [UInt8]? {
        let fd = open(syspath + "/" + file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var n: Int
        repeat { n = Glibc.read(fd, &buffer, buffer.count) } while n < 0 && errno == EINTR
        guard n >= 0 else { return nil }
        return Array(buffer[0..<n])
    }

    func write(_ file: String, _ value: String) throws(SensorError) {
        let fd = open(syspath + "/" + file, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw SensorError.io(device: deviceName, what: file, errno: errno) }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        var n: Int
        repeat { n = Glibc.write(fd, bytes, bytes.count) } while n < 0 && errno == EINTR
        if n < 0 { throw SensorError.io(device: deviceName, what: file, errno: errno) }
    }

    /// Whether the device directory still exists (false after hotplug removal).
    var isPresent: Bool? { access(syspath, F_OK) == 0 }
}

/// Attributes through libiio only (remote contexts): a file name is matched against the file
/// names of the channel attributes libiio knows, then against device attributes.
struct LibIIOAttributes: DeviceAttributes {
    var device: IIODevice

    func read(_ file: String) -> String? {
        if file.hasPrefix("buffer/") { return try? device.bufferAttribute(String(file.dropFirst(7))) }
        if let (channel, name) = channelAttribute(file) { return try? channel.attribute(name) }
        if device.hasAttribute(file) { return try? device.attribute(file) }
        return nil
    }

    func write(_ file: String, _ value: String) throws(SensorError) {
        try device.setAttribute(file, value)
    }

    private func channelAttribute(_ file: String) -> (IIOChannel, String)? {
        for channel in device.channels {
            for name in channel.attributeNames where channel.fileName(of: name) == file {
                return (channel, name)
            }
        }
        return nil
    }
}
