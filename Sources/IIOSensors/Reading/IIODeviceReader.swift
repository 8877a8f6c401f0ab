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
    private let log: (String) -> Void
    private let accelChannels: [IIOChannel]
    private let gyroChannels: [IIOChannel]
    private let timestampChannel: IIOChannel?
    private(set) var mode: ReadMode = .polled
    private var buffer: IIOBuffer?
    private var timerFD: Int32 = -1
    /// The rate the device runs at, Hz (read back), or the requested one when it has none.
    private(set) var rateHz: Double
    /// Whether buffer timestamps stay on CLOCK_REALTIME (`current_timestamp_clock` could not be
    /// switched), so each refill converts them with the current realtime − monotonic offset.
    private var realtimeClock = false

    init(info: SensorInfo, device: IIODevice, attributes: DeviceAttributes, transform: SampleTransform,
         requestedRateHz: Double, log: @escaping (String) -> Void) {
        self.info = info
        self.device = device
        self.attributes = attributes
        self.transform = transform
        self.log = log
        let channels = device.channels
        func find(_ id: String) -> IIOChannel? { channels.first { $0.id == id } }
        accelChannels = info.hasAccel ? ["accel_x", "accel_y", "accel_z"].compactMap(find) : []
        gyroChannels = info.hasGyro ? ["anglvel_x", "anglvel_y", "anglvel_z"].compactMap(find) : []
        timestampChannel = find("timestamp")
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
            log("<4>\(who): cannot set \(file) to \(SamplingRate.text(chosen)) Hz: \(error)")
        }
        if let back = attributes.read(file).flatMap(parseSysfsNumber), back > 0 {
            rateHz = back
        } else {
            rateHz = chosen
        }
        if rateHz != requestedHz {
            log("<6>\(who): \(file) = \(SamplingRate.text(rateHz)) Hz (requested \(SamplingRate.text(requestedHz)) Hz)")
        }
    }

    /// Starts buffered capture.
    /// - Throws: `SensorError.io` (e.g. `EBUSY` when another process holds the buffer).
    func startBuffered() throws(SensorError) {
        stop()
        // Timestamps on CLOCK_MONOTONIC when the device lets us choose (DESIGN §3).
        if let clock = attributes.read("current_timestamp_clock") {
            if clock.trimmingCharacters(in: " \n") != "monotonic" {
                try? attributes.write("current_timestamp_clock", "monotonic\n")
            }
            realtimeClock = (attributes.read("current_timestamp_clock") ?? "").trimmingCharacters(in: " \n") == "realtime"
        } else {
            realtimeClock = false
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
        let samples = max(2, min(64, Int((rateHz / 10).rounded(.up))))
        buffer = try IIOBuffer(device: device, samples: samples)
        mode = .buffered
    }

    /// Starts polled reading at `rateHz` on a CLOCK_MONOTONIC timerfd.
    /// - Throws: `SensorError.io(device:what: "timerfd", errno)`.
    func startPolled() throws(SensorError) {
        stop()
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw SensorError.io(device: who, what: "timerfd_create", errno: clinux_errno()) }
        let period = Int64(1e9 / max(rateHz, 0.1))
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
            let realtimeOffset = realtimeClock ? clinux_realtime_ns() - now : 0
            var batch: [IIOReading] = []
            buffer.forEachScan { scan in
                var reading = IIOReading(timestampNanoseconds: 0)
                if accelChannels.count == 3 {
                    reading.accel = transform.accel(accelChannels.map { buffer.value(of: $0, inScan: scan) })
                }
                if gyroChannels.count == 3 {
                    reading.gyro = transform.gyro(gyroChannels.map { buffer.value(of: $0, inScan: scan) })
                }
                if let ts = timestampChannel {
                    reading.timestampNanoseconds = buffer.value(of: ts, inScan: scan) - realtimeOffset
                }
                batch.append(reading)
            }
            if timestampChannel == nil {
                // No timestamp channel: the newest scan is "now", earlier ones one period apart.
                let period = Int64(1e9 / max(rateHz, 0.1))
                for i in batch.indices { batch[i].timestampNanoseconds = now - Int64(batch.count - 1 - i) * period }
            }
            readings += batch
        }
        return readings
    }

    private func readPolled() throws(SensorError) -> [IIOReading] {
        guard timerFD >= 0 else { return [] }
        let expirations = clinux_timerfd_read(timerFD)
        if expirations <= 0 { return [] }
        func raw(_ channel: IIOChannel) throws(SensorError) -> Int64 {
            let text = try channel.attribute("raw")
            guard let v = parseSysfsNumber(text) else {
                throw SensorError.badValue(device: who, attribute: channel.fileName(of: "raw") ?? "\(channel.id)_raw", text: text)
            }
            return Int64(v)
        }
        var reading = IIOReading(timestampNanoseconds: clinux_monotonic_ns())
        if accelChannels.count == 3 {
            var values: [Int64] = []
            for c in accelChannels { values.append(try raw(c)) }
            reading.accel = transform.accel(values)
        }
        if gyroChannels.count == 3 {
            var values: [Int64] = []
            for c in gyroChannels { values.append(try raw(c)) }
            reading.gyro = transform.gyro(values)
        }
        return [reading]
    }
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

    /// A rate as written to sysfs: `25`, `12.5`.
    static func text(_ hz: Double) -> String {
        hz == hz.rounded() && abs(hz) < 1e9 ? String(Int64(hz)) : hz.description
    }
}
