#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import MotionFusion

/// Reads one IIO device through its buffer: scan elements enabled, a trigger set when the
/// device needs one and has none, libiio's buffer in non-blocking mode; `pollDescriptor` is the
/// buffer's fd (`/dev/iio:deviceN`). Stamps come from the `timestamp` scan element, brought
/// onto CLOCK_MONOTONIC; without one, the newest scan of a refill is "now" on `clock`.
final class BufferedDeviceReader: DeviceReader {
    let device: IIODeviceHandle
    private let clock: MonotonicClock
    private var buffer: IIOBuffer?
    /// The clock of the `timestamp` channel after trying to switch it to monotonic; each refill
    /// converts stamps with its offset to CLOCK_MONOTONIC.
    private var timestampClock: TimestampClock = .posix(CLOCK_MONOTONIC)
    /// The last read-time stamp given (devices without a usable timestamp channel).
    private var lastReadTimeStamp: Int64 = .min

    var mode: ReadMode { .buffered }
    var pollDescriptor: Int32 { buffer?.pollDescriptor ?? -1 }

    /// Enables the buffer.
    /// - Throws: `SensorError.io` (e.g. `EBUSY` when another process holds the buffer, or
    ///   `iio_buffer_get_poll_fd` on a remote context, whose buffer cannot be polled).
    init(device: IIODeviceHandle, clock: MonotonicClock) throws(SensorError) {
        self.device = device
        self.clock = clock
        try enable()
    }

    deinit { stop() }

    func stop() { buffer = nil }

    private func enable() throws(SensorError) {
        let attributes = device.attributes
        // Timestamps on CLOCK_MONOTONIC when the device lets us choose (docs/SENSORS.md "Timestamps"); otherwise
        // converted from whatever clock it keeps. A clock we cannot name is not used at all:
        // read times instead, rather than stamps on an unknown clock.
        if let text = attributes.read("current_timestamp_clock"), TimestampClock(attribute: text)?.isMonotonic != true {
            try? attributes.write("current_timestamp_clock", "monotonic\n")
        }
        let clockText = attributes.read("current_timestamp_clock")
        if let clock = TimestampClock(attribute: clockText) {
            timestampClock = clock
        } else if device.timestampChannel != nil {
            device.log(.warning, "\(device.who): current_timestamp_clock '\(printable(clockText ?? ""))' is not a known clock; using read times instead of buffer timestamps")
            device.timestampChannel = nil
        }
        try setTriggerIfNeeded()
        for channel in device.device.channels { channel.disable() }
        for channel in device.accelChannels + device.gyroChannels where channel.isScanElement { channel.enable() }
        device.timestampChannel?.enable()
        let created = try IIOBuffer(device: device.device, samples: 1,
                                    kernelBuffers: Self.kernelBufferScans(rateHz: device.rateHz),
                                    who: device.who, log: device.log)
        // Remote (ip:) contexts have no pollable buffer fd in libiio 0.24 (-ENOSYS) and their
        // refill blocks: such a buffer cannot live in a non-blocking event loop, so poll instead.
        guard created.pollDescriptor >= 0 else {
            throw SensorError.io(device: device.who, what: "iio_buffer_get_poll_fd", errno: -created.pollDescriptor)
        }
        buffer = created
    }

    /// A trigger-driven device needs a trigger before its buffer can be enabled. The data-ready
    /// trigger is `NAME-devN`; others (`bmc150_accel-any-motion-dev0`) fire only on events.
    private func setTriggerIfNeeded() throws(SensorError) {
        let info = device.info
        guard let current = device.attributes.read("trigger/current_trigger"),
              current.trimmingCharacters(in: " \n").isEmpty, !info.triggers.isEmpty else { return }
        let number = info.id.drop { !$0.isNumber }
        let name = info.triggers.first { $0 == "\(info.name)-dev\(number)" }
            ?? info.triggers.first { $0.hasSuffix("-dev" + number) } ?? info.triggers[0]
        if let trigger = device.device.context.devices.first(where: { $0.isTrigger && $0.name == name }) {
            try device.device.setTrigger(trigger)
        }
    }

    /// Scans the kernel's buffer holds for a device at `rateHz`: half a second of samples
    /// (16 to 2048), so a daemon that is late by that much loses none.
    ///
    /// libiio 0.24 writes a refill's length to `buffer/watermark`, and poll() wakes the reader
    /// only when that many scans wait. Refills of 1 scan (watermark 1) make the kernel wake the
    /// daemon for every scan as it arrives; the kernel's buffer is sized separately, through
    /// libiio's kernel buffer count (`buffer/length` = refill length × count). Writing
    /// `buffer/watermark` after creation instead is refused (EBUSY) while the buffer is enabled.
    static func kernelBufferScans(rateHz: Double) -> Int {
        let halfSecond = rateHz.isFinite ? (min(max(rateHz, 0), 4096) / 2).rounded(.up) : 0
        return max(16, min(2048, Int(halfSecond)))
    }

    func read() throws(SensorError) -> [IIOReading] {
        guard let buffer else { return [] }
        var readings: [IIOReading] = []
        // Drain until the kernel has nothing more (EAGAIN); bounded so a flood cannot starve
        // the loop (a refill is one scan: 64 scans at most per read, the rest at the next).
        // A one-scan buffer that wakes the loop reads one refill: its level-triggered fd brings
        // the loop back at once while scans wait, so no read that finds EAGAIN is spent per scan.
        for _ in 0..<(buffer.samples == 1 && device.wakesTheLoop ? 1 : 64) {
            let bytes = try buffer.refill()
            if bytes == 0 { break }
            var batch = decode(buffer)
            if device.timestampChannel == nil {
                let stamps = Self.readTimeStamps(count: batch.count, now: clock.nowNanoseconds(),
                                                 period: device.periodNanoseconds, after: lastReadTimeStamp)
                for i in batch.indices { batch[i].timestampNanoseconds = stamps[i] }
                lastReadTimeStamp = stamps.last ?? lastReadTimeStamp
            }
            readings += batch
            // A short read drained the kernel's buffer: another refill would only find EAGAIN
            // (one more read per sample, three system calls under umockdev).
            if bytes < buffer.capacityBytes { break }
        }
        return readings
    }

    /// Stamps for `count` scans read at `now` without a timestamp channel: the newest is `now`,
    /// earlier ones `period` ns apart, and none at or before `after` (the previous refill's
    /// newest): a refill that brings more scans than the time since the last one allows (a
    /// driver that runs faster than its `sampling_frequency` says, a late wake-up after a
    /// burst) would otherwise step back in time. Those scans are stamped 1 ns apart after
    /// `after`, and never later than `now` unless `now` itself is not after `after`.
    static func readTimeStamps(count: Int, now: Int64, period: Int64, after: Int64) -> [Int64] {
        var stamps = (0..<count).map { now &- Int64(count - 1 - $0) &* period }
        var previous = after
        for i in stamps.indices {
            if stamps[i] <= previous { stamps[i] = previous &+ 1 }
            previous = stamps[i]
        }
        return stamps
    }

    /// The scans of one refill, calibrated; undecodable or non-finite ones are skipped.
    private func decode(_ buffer: IIOBuffer) -> [IIOReading] {
        let clockOffset = timestampClock.offsetToMonotonic()
        let device = self.device
        var batch: [IIOReading] = []
        buffer.forEachScan { scan in
            var reading = IIOReading(timestampNanoseconds: 0)
            func values(_ channels: [IIOChannel]) -> [Int64]? {
                var raw: [Int64] = []
                for c in channels {
                    guard let v = buffer.value(of: c, inScan: scan) else { return nil }
                    raw.append(v)
                }
                return raw
            }
            if device.accelChannels.count == 3 {
                guard let raw = values(device.accelChannels) else { return device.skip("accel channels not in the scan") }
                reading.accel = device.transform.accel(raw)
            }
            if device.gyroChannels.count == 3 {
                guard let raw = values(device.gyroChannels) else { return device.skip("anglvel channels not in the scan") }
                reading.gyro = device.transform.gyro(raw)
            }
            if let ts = device.timestampChannel {
                guard let t = buffer.value(of: ts, inScan: scan),
                      case let (converted, overflow) = t.subtractingReportingOverflow(clockOffset), !overflow else {
                    return device.skip("timestamp out of range")
                }
                reading.timestampNanoseconds = converted
            }
            guard device.finite(reading) else { return }
            batch.append(reading)
        }
        return batch
    }
}
