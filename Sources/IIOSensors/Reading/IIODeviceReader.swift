#if canImport(Glibc)
import Glibc
#endif
import CLinux
import MotionFusion

/// One decoded reading of one IIO device: accelerometer and/or gyroscope in the device frame.
struct IIOReading {
    var timestampNanoseconds: Int64
    var accel: Vector3?
    var gyro: Vector3?
}

/// How a device is being read right now.
public enum ReadMode: String, Sendable, Equatable {
    case buffered
    case polled
}

/// Reads one IIO device (accelerometer, gyroscope or IMU) in buffered or polled mode.
///
/// Buffered: scan elements enabled, a trigger set when the device has none, libiio buffer in
/// non-blocking mode; `pollDescriptor` is the buffer's fd. Polled: `*_raw` channel attributes
/// read when the device's CLOCK_MONOTONIC timerfd fires; `pollDescriptor` is that timerfd.
final class IIODeviceReader {
    let info: SensorInfo
    let device: IIODevice
    let attributes: DeviceAttributes
    let transform: SampleTransform
    private let log: LogSink
    private let accelChannels: [IIOChannel]
    private let gyroChannels: [IIOChannel]
    private var timestampChannel: IIOChannel?
    private(set) var mode: ReadMode = .polled
    private var buffer: IIOBuffer?
    private var timerFD: Int32 = -1
    /// The rate the device runs at, Hz (read back), or the requested one when it has none.
    private(set) var rateHz: Double
    /// The clock of the buffer's `timestamp` channel after trying to switch it to monotonic;
    /// each refill converts stamps with its offset to CLOCK_MONOTONIC.
    private var timestampClock: TimestampClock = .posix(CLOCK_MONOTONIC)
    /// Samples dropped so far (unparsable `*_raw`, undecodable scan, non-finite result).
    private(set) var skippedSamples = 0

    init(info: SensorInfo, device: IIODevice, attributes: DeviceAttributes, transform: SampleTransform,
         requestedRateHz: Double, log: @escaping LogSink) {
        self.info = info
        self.device = device
        self.attributes = attributes
        self.transform = transform
        self.log = log
        let channels = device.channels
        func find(_ id: String) -> IIOChannel? { channels.first { $0.id == id } }
        accelChannels = info.hasAccel ? ["accel_x", "accel_y", "accel_z"].compactMap(find) : []
        gyroChannels = info.hasGyro ? ["anglvel_x", "anglvel_y", "anglvel_z"].compactMap(find) : []
        // A timestamp channel that is not a scan element is never in the scan.
        timestampChannel = find("timestamp").flatMap { $0.isScanElement && $0.scanIndex >= 0 ? $0 : nil }
        rateHz = requestedRateHz
    }

    deinit { stop() }

    private var who: String { "\(info.name) (\(info.id))" }

    /// The fd to wait on: buffer fd (buffered) or timerfd (polled); -1 when stopped.
    var pollDescriptor: Int32 {
        switch mode {
        case .buffered: return buffer?.pollDescriptor ?? -1
        case .polled: return timerFD
        }
    }

    /// Picks `sampling_frequency` (DESIGN §6): the lowest listed rate at or above `requested`
    /// (the highest when none is), writes it, reads it back and keeps what the device reports.
    func configureRate(requestedHz: Double) {
        let type = info.hasAccel ? "accel" : "anglvel"
        guard let file = ["in_\(type)_sampling_frequency", "sampling_frequency"].first(where: { attributes.read($0) != nil }) else {
            rateHz = requestedHz
            return
        }
        let chosen = SamplingRate.choose(requestedHz: requestedHz, available: info.samplingFrequencyAvailableHz)
        do {
            try attributes.write(file, SamplingRate.text(chosen) + "\n")
        } catch {
            log(.warning, "\(who): cannot set \(file) to \(SamplingRate.text(chosen)) Hz: \(error)")
        }
        let text = attributes.read(file)
        if let back = text.flatMap(parseSysfsNumber), SamplingRate.isPlausible(back) {
            rateHz = back
        } else {
            log(.warning, "\(who): \(file) reads back '\(printable(text ?? ""))', not a rate; assuming \(SamplingRate.text(chosen)) Hz")
            rateHz = chosen
        }
        if rateHz != requestedHz {
            log(.info, "\(who): \(file) = \(SamplingRate.text(rateHz)) Hz (requested \(SamplingRate.text(requestedHz)) Hz)")
        }
    }

    /// Starts buffered capture.
    /// - Throws: `SensorError.io` (e.g. `EBUSY` when another process holds the buffer).
    func startBuffered() throws(SensorError) {
        stop()
        // Timestamps on CLOCK_MONOTONIC when the device lets us choose (DESIGN §3); otherwise
        // converted from whatever clock it keeps. A clock we cannot name is not used at all:
        // read times instead, rather than stamps on an unknown clock.
        if let text = attributes.read("current_timestamp_clock"), TimestampClock(attribute: text)?.isMonotonic != true {
            try? attributes.write("current_timestamp_clock", "monotonic\n")
        }
        let clockText = attributes.read("current_timestamp_clock")
        if let clock = TimestampClock(attribute: clockText) {
            timestampClock = clock
        } else if timestampChannel != nil {
            log(.warning, "\(who): current_timestamp_clock '\(printable(clockText ?? ""))' is not a known clock; using read times instead of buffer timestamps")
            timestampChannel = nil
        }
        // A trigger-driven device needs a trigger before its buffer can be enabled.
        if let current = attributes.read("trigger/current_trigger"),
           current.trimmingCharacters(in: " \n").isEmpty, !info.triggers.isEmpty {
            let number = info.id.drop { !$0.isNumber }
            // The data-ready trigger is `NAME-devN`; others (`bmc150_accel-any-motion-dev0`) fire
            // only on events.
            let name = info.triggers.first { $0 == "\(info.name)-dev\(number)" }
                ?? info.triggers.first { $0.hasSuffix("-dev" + number) } ?? info.triggers[0]
            if let trigger = device.context.devices.first(where: { $0.isTrigger && $0.name == name }) {
                try device.setTrigger(trigger)
            }
        }
        for channel in device.channels { channel.disable() }
        for channel in accelChannels + gyroChannels where channel.isScanElement { channel.enable() }
        timestampChannel?.enable()
        let samples = max(2, min(64, Int((min(rateHz, 640) / 10).rounded(.up))))
        let created = try IIOBuffer(device: device, samples: samples)
        // Remote (ip:) contexts have no pollable buffer fd in libiio 0.24 (-ENOSYS) and their
        // refill blocks: such a buffer cannot live in a non-blocking event loop, so poll instead.
        guard created.pollDescriptor >= 0 else {
            throw SensorError.io(device: who, what: "iio_buffer_get_poll_fd", errno: -created.pollDescriptor)
        }
        buffer = created
        mode = .buffered
    }

    /// Starts polled reading at `rateHz` on a CLOCK_MONOTONIC timerfd.
    /// - Throws: `SensorError.io(device:what: "timerfd", errno)`.
    func startPolled() throws(SensorError) {
        stop()
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw SensorError.io(device: who, what: "timerfd_create", errno: clinux_errno()) }
        let period = SamplingRate.periodNanoseconds(rateHz)
        if clinux_timerfd_set(fd, period, period) != 0 {
            let e = clinux_errno()
            close(fd)
            throw SensorError.io(device: who, what: "timerfd_settime", errno: e)
        }
        timerFD = fd
        mode = .polled
    }

    /// Releases the buffer or the timer; idempotent.
    func stop() {
        buffer = nil
        if timerFD >= 0 {
            close(timerFD)
            timerFD = -1
        }
    }

    /// Reads everything waiting now, without blocking.
    /// - Throws: `SensorError.io` when the device fails (removed, I/O error).
    func read() throws(SensorError) -> [IIOReading] {
        switch mode {
        case .buffered: return try readBuffer()
        case .polled: return try readPolled()
        }
    }

    private func readBuffer() throws(SensorError) -> [IIOReading] {
        guard let buffer else { return [] }
        var readings: [IIOReading] = []
        // Drain until the kernel has nothing more (EAGAIN); bounded so a flood cannot starve the loop.
        for _ in 0..<16 {
            let bytes = try buffer.refill()
            if bytes == 0 { break }
            let now = clinux_monotonic_ns()
            let clockOffset = timestampClock.offsetToMonotonic()
            var batch: [IIOReading] = []
            buffer.forEachScan { scan in
                var reading = IIOReading(timestampNanoseconds: 0)
                func decode(_ channels: [IIOChannel]) -> [Int64]? {
                    var raw: [Int64] = []
                    for c in channels {
                        guard let v = buffer.value(of: c, inScan: scan) else { return nil }
                        raw.append(v)
                    }
                    return raw
                }
                if accelChannels.count == 3 {
                    guard let raw = decode(accelChannels) else { return skip("accel channels not in the scan") }
                    reading.accel = transform.accel(raw)
                }
                if gyroChannels.count == 3 {
                    guard let raw = decode(gyroChannels) else { return skip("anglvel channels not in the scan") }
                    reading.gyro = transform.gyro(raw)
                }
                if let ts = timestampChannel {
                    guard let t = buffer.value(of: ts, inScan: scan),
                          case let (converted, overflow) = t.subtractingReportingOverflow(clockOffset), !overflow else {
                        return skip("timestamp out of range")
                    }
                    reading.timestampNanoseconds = converted
                }
                guard finite(reading) else { return }
                batch.append(reading)
            }
            if timestampChannel == nil {
                // No timestamp channel: the newest scan is "now", earlier ones one period apart.
                let period = SamplingRate.periodNanoseconds(rateHz)
                for i in batch.indices { batch[i].timestampNanoseconds = now - Int64(batch.count - 1 - i) * period }
            }
            readings += batch
            // A short read drained the kernel's buffer: another refill would only find EAGAIN
            // (one more read per sample, three system calls under umockdev).
            if bytes < buffer.capacityBytes { break }
        }
        return readings
    }

    private func readPolled() throws(SensorError) -> [IIOReading] {
        guard timerFD >= 0 else { return [] }
        let expirations = clinux_timerfd_read(timerFD)
        if expirations <= 0 { return [] }
        // A value that is not an integer is one bad sample (skipped and counted); a failing
        // read (device gone, I/O error) is thrown.
        func raw(_ channels: [IIOChannel]) throws(SensorError) -> [Int64]? {
            var values: [Int64] = []
            for channel in channels {
                let text = try channel.attribute("raw")
                guard let v = parseSysfsInteger(text) else {
                    skip("\(channel.fileName(of: "raw") ?? "\(channel.id)_raw"): bad value '\(printable(text))'")
                    return nil
                }
                values.append(v)
            }
            return values
        }
        var reading = IIOReading(timestampNanoseconds: clinux_monotonic_ns())
        if accelChannels.count == 3 {
            guard let values = try raw(accelChannels) else { return [] }
            reading.accel = transform.accel(values)
        }
        if gyroChannels.count == 3 {
            guard let values = try raw(gyroChannels) else { return [] }
            reading.gyro = transform.gyro(values)
        }
        return finite(reading) ? [reading] : []
    }

    /// Whether the calibrated values are finite; counts the sample as skipped when not (a huge
    /// scale times a large raw value overflows Double).
    private func finite(_ reading: IIOReading) -> Bool {
        if reading.accel?.isFinite ?? true, reading.gyro?.isFinite ?? true { return true }
        skip("(raw + offset) · scale is not finite")
        return false
    }

    /// Counts a dropped sample and logs the 1st, 10th, 100th, … so a device that keeps sending
    /// garbage cannot flood the journal.
    private func skip(_ reason: String) {
        skippedSamples += 1
        var n = skippedSamples
        while n % 10 == 0 { n /= 10 }
        if n == 1 { log(.warning, "\(who): sample skipped: \(reason) (\(skippedSamples) skipped so far)") }
    }
}

/// `text` with control characters escaped, so a bad sysfs value stays on one log line.
func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.trimmingCharacters(in: " \n").unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7F {
            out += scalar == "\n" ? "\\n" : "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// The `sampling_frequency` choice, a pure function (DESIGN §6).
public enum SamplingRate {
    /// The lowest of `available` at or above `requestedHz`; the highest when all are below; the
    /// request itself when the list is empty.
    public static func choose(requestedHz: Double, available: [Double]) -> Double {
        let sorted = available.filter { $0 > 0 }.sorted()
        guard let top = sorted.last else { return requestedHz }
        return sorted.first { $0 >= requestedHz - 1e-9 } ?? top
    }

    /// Whether `hz` can be a device's rate: positive and at most 1 MHz (a motion sensor runs at
    /// a few kHz at most; `1e300` in sysfs is garbage, not a rate).
    static func isPlausible(_ hz: Double) -> Bool { hz > 0 && hz <= 1e6 }

    /// The period of `hz` in nanoseconds, with the rate clamped to 0.1 Hz … 1 MHz so that no
    /// timer is disarmed by a zero period or overflows.
    static func periodNanoseconds(_ hz: Double) -> Int64 {
        let clamped = hz.isNaN ? 0.1 : min(max(hz, 0.1), 1e6)
        return Int64(1e9 / clamped)
    }

    /// A rate as written to sysfs: `25`, `12.5`.
    static func text(_ hz: Double) -> String {
        hz == hz.rounded() && abs(hz) < 1e9 ? String(Int64(hz)) : hz.description
    }
}
