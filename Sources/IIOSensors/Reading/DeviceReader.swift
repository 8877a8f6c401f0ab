import MotionFusion

/// One decoded reading of one IIO device: accelerometer and/or gyroscope in the device frame,
/// stamped in nanoseconds on CLOCK_MONOTONIC.
struct IIOReading {
    var timestampNanoseconds: Int64
    var accel: Vector3?
    var gyro: Vector3?
}

/// How a device is being read right now.
public enum ReadMode: String, Sendable, Equatable {
    /// Scan elements through the device's buffer (`/dev/iio:deviceN`, libiio's buffer).
    case buffered
    /// `in_accel_x_raw`-style attributes read on a timer.
    case polled
}

/// One way of reading one IIO device, as iio-sensor-proxy keeps one driver per way: the
/// `IIOSensorSource` holds one reader per device and swaps it (buffered → polled on a failing
/// or silent buffer; polled → buffered to re-enable) without asking which kind it holds beyond
/// `mode`. A reader is live from its creation to `stop()` (or its end).
protocol DeviceReader: AnyObject {
    /// The device and what both kinds of reader share (channels, rate, transform).
    var device: IIODeviceHandle { get }
    var mode: ReadMode { get }
    /// The fd to wait on for readability: the buffer's fd or the poll timerfd; -1 when stopped.
    var pollDescriptor: Int32 { get }
    /// Reads everything waiting now, without blocking. A malformed sample is skipped (and
    /// counted on `device`), never thrown.
    /// - Throws: `SensorError.io` when the device fails (removed, I/O error).
    func read() throws(SensorError) -> [IIOReading]
    /// Releases the buffer or the timer; idempotent.
    func stop()
}
