#if canImport(Glibc)
import Glibc
#endif
import CarouselService
import CLibIIO

/// Turns a libiio return value into a thrown error: libiio returns `-errno` on failure (and a
/// NULL pointer with `errno` set for constructors). Every wrapper below goes through here, so the
/// error always names the device and the call or attribute.
///
/// `device` and `what` are built only on failure: the buffered read path calls this for every
/// refill, where formatting the device's name each time would cost ~7 % of the daemon's CPU.
@inline(__always)
func checkIIO(_ ret: Int, device: @autoclosure () -> String, what: @autoclosure () -> String) throws(SensorError) -> Int {
    if ret < 0 { throw SensorError.io(device: device(), what: what(), errno: Int32(truncatingIfNeeded: -ret)) }
    return ret
}

/// An IIO context: the devices behind one libiio URI (`local:`, `ip:HOST`, …). Wraps
/// `struct iio_context *` (libiio 0.24); destroyed with the object.
public final class IIOContext {
    let pointer: OpaquePointer
    /// The URI it was created from (`local:` for the local backend).
    public let uri: String

    /// Opens a context. `nil` or `"local:"` uses the local backend (sysfs, `/dev/iio:deviceN`).
    /// - Throws: `SensorError.io(device: uri, what: "iio_create_context", errno)`; `ENOENT` from
    ///   the local backend means the system has no IIO device at all.
    public init(uri: String?) throws(SensorError) {
        let text = uri ?? "local:"
        let created: OpaquePointer?
        errno = 0
        if text == "local:" || text.isEmpty {
            created = iio_create_local_context()
        } else {
            created = iio_create_context_from_uri(text)
        }
        guard let created else {
            throw SensorError.io(device: text, what: "iio_create_context", errno: errno == 0 ? EIO : errno)
        }
        pointer = created
        self.uri = text.isEmpty ? "local:" : text
    }

    deinit { iio_context_destroy(pointer) }

    /// The URI schemes libiio 0.24 has backends for (`local:`, `ip:HOST`, `usb:…`, `serial:…`,
    /// `xml:FILE`).
    public static let uriSchemes = ["local:", "ip:", "usb:", "serial:", "xml:"]

    /// Why `uri` cannot be a libiio URI, or nil when it can (an unknown scheme is a mistake of
    /// whoever typed it, not an unavailable sensor: libiio only answers ENOSYS).
    public static func uriProblem(_ uri: String) -> String? {
        if uri.isEmpty || uriSchemes.contains(where: uri.hasPrefix) { return nil }
        return "'\(uri)' is not a libiio URI (local:, ip:HOST, usb:BUS.DEV.IF, serial:PORT,BAUD, xml:FILE)"
    }

    /// Whether this is the local backend (then sysfs and udev describe the same devices).
    public var isLocal: Bool { uri == "local:" }

    /// Sets the timeout of blocking buffer operations, milliseconds (0: none).
    func setTimeout(milliseconds: UInt32) {
        _ = iio_context_set_timeout(pointer, milliseconds)
    }

    /// Every device and trigger of the context.
    public var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { i in
            iio_context_get_device(pointer, i).map { IIODevice(pointer: $0, context: self) }
        }
    }

    /// The device whose id (`iio:device0`), name or label is `key`.
    public func device(_ key: String) -> IIODevice? {
        iio_context_find_device(pointer, key).map { IIODevice(pointer: $0, context: self) }
    }
}

/// An IIO device or trigger. Wraps `struct iio_device *`; keeps its context alive.
public struct IIODevice {
    let pointer: OpaquePointer
    let context: IIOContext

    /// The kernel id, e.g. `iio:device0` or `trigger1`.
    public var id: String { iio_device_get_id(pointer).map { String(cString: $0) } ?? "?" }
    /// The `name` attribute (driver name, e.g. `accel_3d`, `bmc150_accel`).
    public var name: String? { iio_device_get_name(pointer).map { String(cString: $0) } }
    /// The `label` attribute (kernel 5.10+, e.g. `accel-display`), if any.
    public var label: String? { iio_device_get_label(pointer).map { String(cString: $0) } }
    /// Whether this is a trigger rather than a device.
    public var isTrigger: Bool { iio_device_is_trigger(pointer) }
    /// Name used in messages: `name (id)`.
    var displayName: String { "\(printable(name ?? "?")) (\(id))" }

    /// The input channels in libiio's order (scan index order for scan elements).
    public var channels: [IIOChannel] {
        (0..<iio_device_get_channels_count(pointer)).compactMap { i in
            iio_device_get_channel(pointer, i).map { IIOChannel(pointer: $0, device: self) }
        }.filter { !$0.isOutput }
    }

    /// Whether the device has the attribute (a sysfs file directly in its directory that no
    /// channel claimed, such as `sampling_frequency` or `current_timestamp_clock`).
    public func hasAttribute(_ name: String) -> Bool { iio_device_find_attr(pointer, name) != nil }

    /// Reads a device attribute. Wraps `iio_device_attr_read`.
    /// - Throws: `SensorError.io(device:what:errno:)`.
    public func attribute(_ name: String) throws(SensorError) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        let n = try checkIIO(iio_device_attr_read(pointer, name, &buffer, buffer.count), device: displayName, what: name)
        return String(decoding: buffer[0..<min(n, buffer.count)].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes a device attribute. Wraps `iio_device_attr_write`.
    /// - Throws: `SensorError.io(device:what:errno:)`.
    public func setAttribute(_ name: String, _ value: String) throws(SensorError) {
        _ = try checkIIO(iio_device_attr_write(pointer, name, value), device: displayName, what: name)
    }

    /// Reads a buffer attribute (`length`, `enable`, `watermark`). Wraps `iio_device_buffer_attr_read`.
    public func bufferAttribute(_ name: String) throws(SensorError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = try checkIIO(iio_device_buffer_attr_read(pointer, name, &buffer, buffer.count), device: displayName, what: "buffer/\(name)")
        return String(decoding: buffer[0..<min(n, buffer.count)].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the device has a buffer interface (`buffer/` directory).
    public var hasBuffer: Bool { iio_device_get_buffer_attrs_count(pointer) > 0 }

    /// The current trigger, or nil. Wraps `iio_device_get_trigger`.
    public func currentTrigger() -> IIODevice? {
        var trigger: OpaquePointer?
        guard iio_device_get_trigger(pointer, &trigger) == 0, let trigger else { return nil }
        return IIODevice(pointer: trigger, context: context)
    }

    /// Sets (or clears with nil) the trigger. Wraps `iio_device_set_trigger`.
    /// - Throws: `SensorError.io(device:what: "trigger/current_trigger", errno)`.
    public func setTrigger(_ trigger: IIODevice?) throws(SensorError) {
        _ = try checkIIO(Int(iio_device_set_trigger(pointer, trigger?.pointer)), device: displayName, what: "trigger/current_trigger")
    }
}

/// A channel of an IIO device, e.g. `accel_x`. Wraps `struct iio_channel *` (libiio 0.24).
public struct IIOChannel {
    let pointer: OpaquePointer
    let device: IIODevice

    /// The channel id: `accel_x`, `anglvel_z`, `timestamp`.
    public var id: String { iio_channel_get_id(pointer).map { String(cString: $0) } ?? "?" }
    var isOutput: Bool { iio_channel_is_output(pointer) }
    /// Whether the channel can be captured in the buffer (has `scan_elements/*_en`).
    public var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    /// The scan index from `scan_elements/*_index`, or -1.
    public var scanIndex: Int { Int(iio_channel_get_index(pointer)) }

    /// The storage format from `scan_elements/*_type`, e.g. `le:s12/16>>4`.
    public var dataFormat: iio_data_format { iio_channel_get_data_format(pointer).pointee }

    /// The format written back as in `scan_elements/*_type` (`le:s12/16>>4`, `be:u8/8>>0`).
    public var typeString: String {
        let f = dataFormat
        var text = "\(f.is_be ? "be" : "le"):\(f.is_signed ? "s" : "u")\(f.bits)/\(f.length)"
        if f.repeat > 1 { text += "X\(f.repeat)" }
        return text + ">>\(f.shift)"
    }

    /// Why the storage format cannot be decoded safely, or nil when it can. libiio 0.24 parses
    /// any `scan_elements/*_type` text without checking it, and `iio_channel_convert` then
    /// indexes by `bits` and `shift` within `length / 8` bytes: `le:s99/16>>4` or `>>40` would
    /// write outside the sample, a missing or unparsable type reads as `le:u0/0>>0`.
    public var formatProblem: String? {
        if formatIsSupported { return nil }
        let f = dataFormat
        guard [8, 16, 32, 64].contains(f.length) else { return "storage size \(f.length) bits is not 8, 16, 32 or 64" }
        guard f.bits >= 1, f.bits <= f.length else { return "\(f.bits) value bits do not fit in \(f.length)" }
        // Not `shift + bits`: libiio stores a shift of any size (`>>4294967295`), and the sum
        // would overflow; `bits <= length` holds here.
        guard f.shift <= f.length - f.bits else { return "shift \(f.shift) + \(f.bits) bits exceed \(f.length)" }
        guard f.repeat <= 1 else { return "repeat \(f.repeat) is not supported for a motion axis" }
        return nil
    }

    /// `formatProblem == nil`, without building a message or an array (checked per value read).
    var formatIsSupported: Bool {
        let f = dataFormat
        return (f.length == 8 || f.length == 16 || f.length == 32 || f.length == 64)
            && f.bits >= 1 && f.bits <= f.length && f.shift <= f.length - f.bits && f.repeat <= 1
    }

    /// Whether libiio attached an attribute of that name (`raw`, `scale`, `offset`).
    public func hasAttribute(_ name: String) -> Bool { iio_channel_find_attr(pointer, name) != nil }

    /// Reads a channel attribute such as `raw` or `scale`. Wraps `iio_channel_attr_read`.
    /// - Throws: `SensorError.io(device:what:errno:)` naming the attribute's file.
    public func attribute(_ name: String) throws(SensorError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let file = iio_channel_attr_get_filename(pointer, name).map { String(cString: $0) } ?? "\(id)_\(name)"
        let n = try checkIIO(iio_channel_attr_read(pointer, name, &buffer, buffer.count), device: device.displayName, what: file)
        return String(decoding: buffer[0..<min(n, buffer.count)].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names libiio gives the channel's attributes (`raw`, `scale`, …).
    var attributeNames: [String] {
        (0..<iio_channel_get_attrs_count(pointer)).compactMap { i in
            iio_channel_get_attr(pointer, i).map { String(cString: $0) }
        }
    }

    /// The sysfs file behind attribute `name` (`in_accel_x_raw`). Wraps `iio_channel_attr_get_filename`.
    func fileName(of name: String) -> String? {
        iio_channel_attr_get_filename(pointer, name).map { String(cString: $0) }
    }

    func enable() { iio_channel_enable(pointer) }
    func disable() { iio_channel_disable(pointer) }
}

/// A capture buffer on a device. Wraps `struct iio_buffer *`; destroyed (buffer disabled) with
/// the object.
final class IIOBuffer {
    let pointer: OpaquePointer
    let device: IIODevice

    /// Creates the buffer for the enabled channels, non-blocking: a refill reads at most
    /// `samples` scans, and the kernel's buffer (`buffer/length`) holds `samples × kernelBuffers`
    /// scans. libiio 0.24's local backend also writes `samples` to `buffer/watermark`, the number
    /// of scans the kernel waits for before poll() reports the buffer readable.
    /// - Throws: `SensorError.io(device:what: "iio_device_create_buffer", errno)`; `EBUSY` when
    ///   another process holds `/dev/iio:deviceN`.
    /// - Parameter log: receives libiio's own messages of the creation and of the release
    ///   (`LibIIOMessages.report`), named after `who`.
    init(device: IIODevice, samples: Int, kernelBuffers: Int = 4, who: String = "",
         log: @escaping LogSink = { _, _ in }) throws(SensorError) {
        // The count libiio multiplies the kernel buffer's length by (4 unless set); a backend
        // without it keeps its own, which only changes how much a late read can catch up.
        _ = iio_device_set_kernel_buffers_count(device.pointer, UInt32(clamping: max(1, kernelBuffers)))
        let name = who.isEmpty ? device.displayName : who
        // Only the local backend prints these; a remote one may block on the network (on a
        // helper thread), where fd 2 must not stay redirected.
        let local = device.context.uri == "local:" || device.context.uri.isEmpty
        let (made, lines) = LibIIOMessages.capturing(if: local) { () -> (OpaquePointer?, Int32) in
            errno = 0
            let b = iio_device_create_buffer(device.pointer, samples, false)
            return (b, errno)
        }
        LibIIOMessages.report(lines, who: name, log: log)
        guard let created = made.0 else {
            throw SensorError.io(device: device.displayName, what: "iio_device_create_buffer", errno: made.1 == 0 ? EIO : made.1)
        }
        pointer = created
        self.device = device
        self.samples = samples
        self.who = name
        self.log = log
        self.local = local
        _ = iio_buffer_set_blocking_mode(created, false)
    }

    private let who: String
    private let log: LogSink
    private let local: Bool

    /// Scans the buffer holds (the count it was created with).
    let samples: Int
    /// Bytes a full refill reads: a refill that returns fewer found the kernel's buffer drained.
    var capacityBytes: Int { samples * step }

    deinit {
        let pointer = self.pointer
        let (_, lines) = LibIIOMessages.capturing(if: local) { iio_buffer_destroy(pointer) }
        LibIIOMessages.report(lines, who: who, log: log)
    }

    /// The file descriptor that becomes readable when samples are waiting. Wraps `iio_buffer_get_poll_fd`.
    var pollDescriptor: Int32 { iio_buffer_get_poll_fd(pointer) }

    /// Reads what the kernel holds; returns the bytes read, 0 when nothing was waiting (EAGAIN).
    /// - Throws: `SensorError.io(device:what: "iio_buffer_refill", errno)`.
    func refill() throws(SensorError) -> Int {
        let n = iio_buffer_refill(pointer)
        if n == -Int(EAGAIN) { return 0 }
        return try checkIIO(n, device: device.displayName, what: "iio_buffer_refill")
    }

    /// Bytes from one scan to the next.
    var step: Int { iio_buffer_step(pointer) }

    /// Calls `body` with the start of every complete scan in the buffer.
    func forEachScan(_ body: (UnsafeMutableRawPointer) -> Void) {
        guard let start = iio_buffer_start(pointer), let end = iio_buffer_end(pointer) else { return }
        let step = self.step
        guard step > 0 else { return }
        var p = start
        while p + step <= end {
            body(p)
            p += step
        }
    }

    /// Decodes channel `channel` in the scan at `scan` into a host-order signed integer
    /// (sign-extended, shifted and masked as the channel's `scan_elements` type says).
    /// Wraps `iio_channel_convert`.
    /// - Returns: nil when the channel is not in the scan or its format is one that
    ///   `iio_channel_convert` would read or write out of bounds with (`IIOChannel.formatProblem`).
    func value(of channel: IIOChannel, inScan scan: UnsafeMutableRawPointer) -> Int64? {
        guard channel.formatIsSupported, iio_channel_is_enabled(channel.pointer),
              let first = iio_buffer_first(pointer, channel.pointer),
              let start = iio_buffer_start(pointer) else { return nil }
        let offset = first - start
        let format = channel.dataFormat
        let bytes = Int(format.length / 8)
        guard offset >= 0, offset + bytes <= step else { return nil }
        // 8 bytes on the stack (formatIsSupported bounds `length` to 64 bits), no array per value.
        var out: UInt64 = 0
        withUnsafeMutableBytes(of: &out) { o in
            iio_channel_convert(channel.pointer, o.baseAddress, scan + offset)
        }
        // iio_channel_convert leaves `length` bits in host order, sign-extended from `bits`.
        var raw: UInt64 = 0
        withUnsafeBytes(of: &out) { o in
            for i in 0..<min(bytes, 8) { raw |= UInt64(o[i]) << (8 * UInt64(i)) }
        }
        if format.is_signed, bytes < 8 {
            let width = UInt64(bytes * 8)
            let sign = UInt64(1) << (width - 1)
            if raw & sign != 0 { raw |= ~((UInt64(1) << width) - 1) }
        }
        return Int64(bitPattern: raw)
    }
}
