#if canImport(Glibc)
import Glibc
#endif
import MotionFusion
import CarouselService

/// What both readers of one IIO device share: the device, its attribute files, its channels,
/// the calibration transform, the rate it runs at and the count of skipped samples (so the
/// log's 1st, 10th, 100th … rule runs across a fallback from buffered to polled).
final class IIODeviceHandle {
    let info: SensorInfo
    let device: IIODevice
    let attributes: DeviceAttributes
    let transform: SampleTransform
    let log: LogSink
    /// `accel_x`, `accel_y`, `accel_z` when the device has an accelerometer (else empty).
    let accelChannels: [IIOChannel]
    /// `anglvel_x`, `anglvel_y`, `anglvel_z` when the device has a gyroscope (else empty).
    let gyroChannels: [IIOChannel]
    /// The `timestamp` scan element, nil when there is none (a non-scan `timestamp` channel is
    /// never in a scan) or its clock is unknown (`BufferedDeviceReader` then stamps read times).
    var timestampChannel: IIOChannel?
    /// The rate the device runs at, Hz (read back), or the requested one when it has none.
    private(set) var rateHz: Double
    /// Whether this device's buffer wakes the loop (the accelerometer's) or is drained when the
    /// other one does (a gyroscope of a pair): a waking one-scan buffer reads one scan per
    /// wake-up, since the loop comes back at once while scans wait.
    var wakesTheLoop = true
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
        timestampChannel = find("timestamp").flatMap { $0.isScanElement && $0.scanIndex >= 0 ? $0 : nil }
        rateHz = requestedRateHz
    }

    /// `name (iio:deviceN)`, as messages name the device.
    var who: String { info.who }

    /// The expected interval between samples at `rateHz`, nanoseconds.
    var periodNanoseconds: Int64 { SamplingRate.periodNanoseconds(rateHz) }

    /// Picks `sampling_frequency` (docs/SENSORS.md "Sampling frequency"): the lowest listed rate at or above `requested`
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

    /// Whether the calibrated values are finite; counts the sample as skipped when not (a huge
    /// scale times a large raw value overflows Double).
    func finite(_ reading: IIOReading) -> Bool {
        if reading.accel?.isFinite ?? true, reading.gyro?.isFinite ?? true { return true }
        skip("(raw + offset) · scale is not finite")
        return false
    }

    /// Counts a dropped sample and logs the 1st, 10th, 100th, … so a device that keeps sending
    /// garbage cannot flood the journal.
    func skip(_ reason: String) {
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
