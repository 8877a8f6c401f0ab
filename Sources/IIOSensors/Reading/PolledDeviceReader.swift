#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CLinux
import MotionFusion

/// Reads one IIO device by its `*_raw` channel attributes (`in_accel_x_raw`, …) each time its
/// CLOCK_MONOTONIC timerfd fires, once per period at the device's rate; `pollDescriptor` is
/// that timerfd. Each reading is stamped "now" on `clock`.
final class PolledDeviceReader: DeviceReader {
    let device: IIODeviceHandle
    private let clock: MonotonicClock
    private var timerFD: Int32 = -1

    var mode: ReadMode { .polled }
    var pollDescriptor: Int32 { timerFD }

    /// Arms the timer at the device's period.
    /// - Throws: `SensorError.io(device:what: "timerfd_create" or "timerfd_settime", errno)`.
    init(device: IIODeviceHandle, clock: MonotonicClock) throws(SensorError) {
        self.device = device
        self.clock = clock
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw SensorError.io(device: device.who, what: "timerfd_create", errno: clinux_errno()) }
        let period = device.periodNanoseconds
        if clinux_timerfd_set(fd, period, period) != 0 {
            let e = clinux_errno()
            close(fd)
            throw SensorError.io(device: device.who, what: "timerfd_settime", errno: e)
        }
        timerFD = fd
    }

    deinit { stop() }

    func stop() {
        if timerFD >= 0 {
            close(timerFD)
            timerFD = -1
        }
    }

    /// One reading when the timer fired since the last call (however often it fired: a late
    /// loop reads the present values once, it cannot read the past ones).
    func read() throws(SensorError) -> [IIOReading] {
        guard timerFD >= 0, clinux_timerfd_read(timerFD) > 0 else { return [] }
        var reading = IIOReading(timestampNanoseconds: clock.nowNanoseconds())
        if device.accelChannels.count == 3 {
            guard let values = try raw(device.accelChannels) else { return [] }
            reading.accel = device.transform.accel(values)
        }
        if device.gyroChannels.count == 3 {
            guard let values = try raw(device.gyroChannels) else { return [] }
            reading.gyro = device.transform.gyro(values)
        }
        return device.finite(reading) ? [reading] : []
    }

    /// The channels' `raw` values; a value that is not an integer is one bad sample (skipped
    /// and counted, nil), a failing read (device gone, I/O error) is thrown.
    private func raw(_ channels: [IIOChannel]) throws(SensorError) -> [Int64]? {
        var values: [Int64] = []
        for channel in channels {
            let text = try channel.attribute("raw")
            guard let v = parseSysfsInteger(text) else {
                device.skip("\(channel.fileName(of: "raw") ?? "\(channel.id)_raw"): bad value '\(printable(text))'")
                return nil
            }
            values.append(v)
        }
        return values
    }
}
