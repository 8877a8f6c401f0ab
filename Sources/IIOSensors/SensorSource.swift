#if canImport(Glibc)
import Glibc
#endif
import MotionFusion

/// The health of a sensor source, as published in the protocol's `SENSOR` object (docs/PROTOCOL.md "Server messages").
public enum SensorStatus: String, Sendable, Equatable, CaseIterable {
    /// Samples arrive at the expected rate.
    case ok
    /// No sample for 5 expected periods (suspend/resume, a wedged buffer).
    case stale
    /// No sensor present (yet); hotplug may bring one.
    case absent
    /// Samples come from a recording.
    case replay
    /// The sensor failed; `SensorSource.statusMessage` says why.
    case error
}

/// A source of motion samples that an epoll loop drives (iio-sensor-proxy's driver idea): the
/// daemon never asks which kind it has.
///
/// Life cycle: `start()` → the loop waits for `pollDescriptor` to become readable → it calls
/// `readAvailable(into:)` → … → `stop()`. Sources never block for long: a polled IIO source
/// reads `*_raw` on its own timerfd; a replay source releases samples on a timerfd as their
/// recorded time comes due.
public protocol SensorSource: AnyObject {
    /// Human-readable name (IIO `name`, or the recording's file name).
    var name: String { get }
    /// The current status and, for `stale`/`error`/`absent`, a one-line reason.
    var status: SensorStatus { get }
    var statusMessage: String? { get }
    /// The rate the source really delivers, Hz (read back from the device), or nil if unknown.
    var sampleRateHz: Double? { get }
    /// The file descriptor to wait on for readability while started, or nil when stopped.
    var pollDescriptor: Int32? { get }
    /// Starts delivering samples (enables the buffer, arms the timer).
    /// - Throws: `SensorError` naming the device, attribute and errno.
    func start() throws(SensorError)
    /// Stops delivering samples and releases the buffer; idempotent.
    func stop()
    /// Appends every sample available now, without blocking. Timestamps are nanoseconds on
    /// CLOCK_MONOTONIC. A malformed sample is skipped (and counted), never thrown.
    /// - Throws: `SensorError` when the device is gone or the read fails for good.
    func readAvailable(into samples: inout [IMUSample]) throws(SensorError)
    /// The selected device's IIO `name` and sysfs path (the accelerometer's, for a pair), which a
    /// calibration file must name; nil while none is selected and for sources without a device.
    var selectedDevice: (name: String, path: String)? { get }
    /// The sysfs path of the separate gyroscope device read with the selected accelerometer
    /// (HID `gyro_3d`, lsm6dsx's gyro device), or nil when there is none or the source cannot tell.
    var selectedGyroPath: String? { get }
}

extension SensorSource {
    public var selectedDevice: (name: String, path: String)? { nil }
    public var selectedGyroPath: String? { nil }
}

/// Errors of the sensor layer; each names the device, the attribute or file, and errno.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libiio or sysfs call failed: `device` (name or sysfs path), `what` (attribute or call), errno.
    case io(device: String, what: String, errno: Int32)
    /// A value could not be parsed: `device`, `attribute`, the text found.
    case badValue(device: String, attribute: String, text: String)
    /// No such sensor (by configured name, label or path).
    case notFound(String)
    /// The device disappeared (hotplug removal).
    case removed(device: String)
    /// A recording could not be read: file, line (1-based, 0 when not line-specific), reason.
    case recording(file: String, line: Int, reason: String)
    /// libiio's local backend refused the whole sysfs tree (`iio_create_local_context` fails for
    /// every device when one has an attribute it cannot parse); `causes` names the malformed
    /// attributes found (`LocalTreeCheck`), empty when none was.
    case localTreeRefused(errno: Int32, causes: [String])

    public var description: String {
        switch self {
        case let .io(device, what, errno):
            return "\(device): \(what) failed (errno \(errno): \(String(cString: strerror(errno))))"
        case let .badValue(device, attribute, text): return "\(device): \(attribute): bad value '\(text)'"
        case let .notFound(what): return "no sensor matches '\(what)'"
        case let .removed(device): return "\(device): device removed"
        case let .recording(file, line, reason): return line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
        case let .localTreeRefused(errno, causes):
            return "local: iio_create_context failed (errno \(errno): \(String(cString: strerror(errno)))): libiio "
                + "refuses every local IIO device when one has a malformed attribute; "
                + (causes.isEmpty ? "no malformed name, label or scan element found" : causes.joined(separator: "; "))
        }
    }
}
