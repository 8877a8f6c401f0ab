import CUmockdev
import Glibc

/// A buffered IIO accelerometer in a umockdev testbed whose `/dev/iio:device0` is a FIFO: each
/// scan the benchmark writes to the FIFO becomes readable on the device node at once and wakes
/// the reader directly, like a sample the kernel's trigger handler pushes into the IIO buffer.
/// This is how the daemon benchmark controls when a sample becomes readable (docs/SENSORS.md
/// "Testing with umockdev"). (umockdev makes the node a PTY; a PTY delivers written bytes through a
/// kernel work item, one more scheduler hop than the IIO buffer has, which put up to 1 ms of
/// the mock's own wake-up into the latency tail, so the node is replaced by a FIFO; libiio reads
/// it through the same `read()` fallback it used on the PTY.)
///
/// Scan layout (our own description, in the style of a 16-bit I²C accelerometer): x, y, z as
/// `le:s16/16>>0` at byte 0, 2, 4, two bytes of padding, then the `le:s64/64>>0` timestamp at
/// byte 8; 16 bytes per scan. `in_accel_scale` = 0.00980665 m/s² per LSB (1 mg), so 1000 LSB
/// is 1 g. The listed rates start at 1 Hz so that, configured at 1 Hz, the daemon's "stale"
/// watchdog (5 periods) stays quiet between the benchmark's bursts.
final class MockAccelerometer {
    static let devicePath = "/devices/platform/carousel-bench-accel/iio:device0"
    static let node = "/dev/iio:device0"
    static let description = """
    P: /devices/platform/carousel-bench-accel/iio:device0
    N: iio:device0
    E: DEVNAME=/dev/iio:device0
    E: DEVTYPE=iio_device
    E: SUBSYSTEM=iio
    A: name=bench_accel\\n
    A: in_accel_x_raw=0\\n
    A: in_accel_y_raw=0\\n
    A: in_accel_z_raw=-1000\\n
    A: in_accel_scale=0.00980665\\n
    A: sampling_frequency=1\\n
    A: sampling_frequency_available=1 10 25 50 100 200\\n
    A: current_timestamp_clock=realtime\\n
    A: buffer/length=64\\n
    A: buffer/enable=0\\n
    A: buffer/watermark=1\\n
    A: trigger/current_trigger=\\n
    A: scan_elements/in_accel_x_en=0\\n
    A: scan_elements/in_accel_x_index=0\\n
    A: scan_elements/in_accel_x_type=le:s16/16>>0\\n
    A: scan_elements/in_accel_y_en=0\\n
    A: scan_elements/in_accel_y_index=1\\n
    A: scan_elements/in_accel_y_type=le:s16/16>>0\\n
    A: scan_elements/in_accel_z_en=0\\n
    A: scan_elements/in_accel_z_index=2\\n
    A: scan_elements/in_accel_z_type=le:s16/16>>0\\n
    A: scan_elements/in_timestamp_en=0\\n
    A: scan_elements/in_timestamp_index=3\\n
    A: scan_elements/in_timestamp_type=le:s64/64>>0\\n

    P: /devices/platform/carousel-bench-accel/trigger0
    E: SUBSYSTEM=iio
    A: name=bench_accel-dev0\\n

    P: /devices/platform/carousel-bench-accel
    E: SUBSYSTEM=platform
    A: name=carousel-bench-accel\\n
    """

    /// The testbed (`UMockdevTestbed`, libumockdev 0.17 C API); removed with this object.
    private let testbed: UnsafeMutablePointer<UMockdevTestbed>
    /// The sandbox root, passed to the daemon as `UMOCKDEV_DIR`.
    let rootDirectory: String
    /// The FIFO's descriptor, open for reading and writing so the daemon's reads see EAGAIN,
    /// not end of file, when no scan is waiting.
    private let master: Int32

    /// - Throws: `BenchError` when libumockdev fails.
    init() throws {
        guard let tb = umockdev_testbed_new() else { throw BenchError("umockdev_testbed_new failed") }
        testbed = tb
        guard let root = umockdev_testbed_get_root_dir(tb) else {
            g_object_unref(UnsafeMutableRawPointer(tb))
            throw BenchError("umockdev: testbed has no root directory")
        }
        rootDirectory = String(cString: root)
        ChildRegistry.removeOnInterrupt(rootDirectory)  // umockdev removes it at deinit
        g_free(root)
        var error: UnsafeMutablePointer<GError>?
        guard umockdev_testbed_add_from_string(tb, Self.description, &error) != 0 else {
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            g_object_unref(UnsafeMutableRawPointer(tb))
            throw BenchError("umockdev: bad device description: \(message)")
        }
        let nodePath = rootDirectory + Self.node
        unlink(nodePath)
        guard mkfifo(nodePath, 0o600) == 0 else {
            g_object_unref(UnsafeMutableRawPointer(tb))
            throw BenchError.system("mkfifo \(nodePath)")
        }
        let fd = open(nodePath, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            g_object_unref(UnsafeMutableRawPointer(tb))
            throw BenchError.system("open \(nodePath)")
        }
        master = fd
    }

    deinit {
        ChildRegistry.forgetDirectory(rootDirectory)
        close(master)
        g_object_unref(UnsafeMutableRawPointer(testbed))
    }

    /// Environment that makes a child process see the testbed.
    var environment: [String: String] {
        ["LD_PRELOAD": "libumockdev-preload.so.0", "UMOCKDEV_DIR": rootDirectory]
    }

    /// Whether the daemon has the buffer enabled (it reads samples only while someone watches).
    var bufferEnabled: Bool {
        (ProcessProbe.read(rootDirectory + "/sys" + Self.devicePath + "/buffer/enable") ?? "0").hasPrefix("1")
    }

    /// The raw scan for a device rolled by `rollDegrees` (right edge down), face up, in the
    /// Linux gravity convention the daemon expects by default (`accel_convention = gravity`:
    /// face up reads z ≈ −1 g; the daemon negates): raw = −g · u / scale with
    /// u = (−sin roll, 0, cos roll) from docs/FUSION.md "1. Conventions".
    static func scan(rollDegrees: Double, timestampNanoseconds: Int64) -> [UInt8] {
        let r = rollDegrees * Double.pi / 180
        let x = Int16(clamping: Int((sin(r) * 1000).rounded()))
        let z = Int16(clamping: Int((-cos(r) * 1000).rounded()))
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
            withUnsafeBytes(of: v.littleEndian) { Array($0) }
        }
        return le(x) + le(Int16(0)) + le(z) + [0, 0] + le(timestampNanoseconds)
    }

    /// Writes one scan to the FIFO; returns CLOCK_MONOTONIC just before the write (ns), which is
    /// also the scan's timestamp.
    /// - Throws: `BenchError` when the write fails or is short.
    @discardableResult
    func push(rollDegrees: Double) throws -> Int64 {
        let now = BenchClock.monotonicNanoseconds()
        let bytes = Self.scan(rollDegrees: rollDegrees, timestampNanoseconds: now)
        let n = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw BenchError.system("write to the FIFO of \(Self.node)") }
        return now
    }

    /// Writes `count` scans in one write (readable at once, as a kernel buffer whose watermark
    /// is `count`), stamped `periodNanoseconds` apart and ending now.
    /// - Throws: `BenchError` when the write fails or is short.
    func push(rollDegrees: Double, count: Int, periodNanoseconds: Int64) throws {
        let now = BenchClock.monotonicNanoseconds()
        let bytes = (0..<count).flatMap {
            Self.scan(rollDegrees: rollDegrees, timestampNanoseconds: now - Int64(count - 1 - $0) * periodNanoseconds)
        }
        let n = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw BenchError.system("write to the FIFO of \(Self.node)") }
    }
}
