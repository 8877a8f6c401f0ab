#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CLinux
import IIOSensors
import MotionFusion

/// Samples for a calibration and the sensor they belong to (docs/CLI.md "calibrate" binds a calibration
/// file to one sensor by name and path).
public struct CollectedSamples: Sendable {
    public var samples: [IMUSample]
    /// IIO `name`, or the recording's file name for a replayed recording (what carouseld's
    /// replay source reports as its name).
    public var sensorName: String
    /// sysfs path, or the recording's canonical path (`RecordingIdentity`).
    public var sensorPath: String
}

/// Where `carouselctl calibrate` gets its samples: recordings, the running daemon's `samples`
/// stream, or the IIO sensor directly (no daemon running).
enum SampleCollection {
    /// All samples of a recording (native CSV or a dataset format MotionFusion reads), or those of
    /// its first `durationSeconds`.
    /// - Throws: `TextFile.Failure`'s status when the file cannot be read (66 missing, not a
    ///   regular file; 77 permission; 65 over `ReplaySource.maximumFileBytes`, as carouseld
    ///   refuses it), 65 naming `file:line` for a bad row.
    static func fromRecording(path: String, durationSeconds: Double?) throws(CommandError) -> CollectedSamples {
        let text: String
        do {
            text = try TextFile.read(path: path, limit: ReplaySource.maximumFileBytes)
        } catch {
            throw error.commandError
        }
        var samples: [IMUSample]
        do {
            samples = try RecordingReader.parse(text: text)
        } catch {
            throw CommandError(.dataError, error.line > 0 ? "\(path):\(error.line): \(error.reason)" : "\(path): \(error.reason)")
        }
        if let durationSeconds, let first = samples.first {
            // A first timestamp near Int64.max (a recording may start anywhere) must not overflow.
            let (sum, overflow) = first.timestampNanoseconds.addingReportingOverflow(Int64(durationSeconds * 1e9))
            let end = overflow ? Int64.max : sum
            samples = samples.filter { $0.timestampNanoseconds <= end }
        }
        let identity = RecordingIdentity(path: path)
        return CollectedSamples(samples: samples, sensorName: identity.name, sensorPath: identity.path)
    }

    /// Streams `durationSeconds` of raw samples from the daemon (`samples` request, docs/PROTOCOL.md "Requests";
    /// needs control rights).
    /// - Parameter fallbackIdentity: the sensor to bind the file to when the daemon names none
    ///   (e.g. its replay source, known from the configuration).
    static func fromDaemon(client: DaemonClient, durationSeconds: Double, io: CommandIO, label: String,
                           fallbackIdentity: (name: String, path: String)? = nil) throws(CommandError) -> CollectedSamples {
        var identity = sensorIdentity(client: client)
        if identity.name == "unknown", let fallbackIdentity { identity = fallbackIdentity }
        _ = try client.request(#"{"cmd":"samples","enable":true}"#, cmd: "samples", expecting: ["ACK"])
        var progress = CalibrationProgress(io: io, totalSeconds: durationSeconds, label: label)
        var samples: [IMUSample] = []
        let start = clinux_monotonic_ns()
        let deadline = start + Int64(durationSeconds * 1e9)
        var lastSampleTime = start
        while true {
            let now = clinux_monotonic_ns()
            if now >= deadline { break }
            progress.update(elapsedSeconds: Double(now - start) * 1e-9, samples: samples.count)
            let wait = min(0.25, Double(deadline - now) * 1e-9)
            guard let message = try client.readMessage(timeoutSeconds: wait) else {
                if clinux_monotonic_ns() - lastSampleTime > 3_000_000_000 {
                    progress.finish()
                    throw CommandError(.unavailable, "no sample from carouseld for 3 s: is its sensor delivering data? "
                                       + "('carouselctl status' shows the sensor state)")
                }
                continue
            }
            switch message["class"]?.stringValue {
            case "SAMPLE":
                if let sample = parseSample(message) {
                    samples.append(sample)
                    lastSampleTime = clinux_monotonic_ns()
                }
            case "ERROR":
                progress.finish()
                throw DaemonClient.error(from: message, cmd: "samples", socketPath: client.socketPath)
            default:
                break
            }
        }
        progress.update(elapsedSeconds: durationSeconds, samples: samples.count)
        progress.finish()
        try? client.send(#"{"cmd":"samples","enable":false}"#)
        return CollectedSamples(samples: samples, sensorName: identity.name, sensorPath: identity.path)
    }

    /// A `SAMPLE {time_ns, accel, gyro}` object as an `IMUSample`, nil when malformed.
    static func parseSample(_ message: WireJSON) -> IMUSample? {
        guard let t = message["time_ns"]?.doubleValue, let a = message["accel"]?.arrayValue, a.count == 3,
              let ax = a[0].doubleValue, let ay = a[1].doubleValue, let az = a[2].doubleValue else { return nil }
        var gyro: Vector3?
        if let g = message["gyro"]?.arrayValue, g.count == 3, let gx = g[0].doubleValue, let gy = g[1].doubleValue,
           let gz = g[2].doubleValue {
            gyro = Vector3(gx, gy, gz)
        }
        return IMUSample(timestampNanoseconds: Int64(t), accel: Vector3(ax, ay, az), gyro: gyro)
    }

    /// The daemon's sensor: `STATUS` `sensor_name`/`sensor_path` when the daemon reports them,
    /// else the first entry of `SENSORS`, else `unknown`.
    static func sensorIdentity(client: DaemonClient) -> (name: String, path: String) {
        if let status = try? client.request(#"{"cmd":"status"}"#, cmd: "status", expecting: ["STATUS"]),
           let name = status["sensor_name"]?.stringValue, !name.isEmpty {
            return (name, status["sensor_path"]?.stringValue ?? "")
        }
        if let list = try? client.request(#"{"cmd":"sensors"}"#, cmd: "sensors", expecting: ["SENSORS"]),
           let first = list["sensors"]?[0], let name = first["name"]?.stringValue {
            return (name, first["path"]?.stringValue ?? "")
        }
        return ("unknown", "")
    }

    /// Reads the IIO sensor directly for `durationSeconds` (as carouseld would: scale, offset,
    /// mount matrix, accel convention applied). SIGINT/SIGTERM abort the capture (nothing is written).
    static func fromSensor(selector: String?, uri: String?, sampleRateHz: Double, mode: IIOReadMode = .auto,
                           convention: AccelConvention, durationSeconds: Double, io: CommandIO,
                           label: String) throws(CommandError) -> CollectedSamples {
        let signals: [Int32] = [SIGINT, SIGTERM]
        let signalFD = signals.withUnsafeBufferPointer { clinux_signalfd_for($0.baseAddress, Int32($0.count)) }
        guard signalFD >= 0 else { throw CommandError(.ioError, "signalfd: errno \(clinux_errno())") }
        defer {
            close(signalFD)
            // Ctrl-C must work again at the next six-position prompt (a pending one ends us there,
            // before anything is written).
            var set = sigset_t()
            sigemptyset(&set)
            for s in signals { sigaddset(&set, s) }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        let source = IIOSensorSource(
            configuration: IIOSourceConfiguration(uri: uri, device: selector, sampleRateHz: sampleRateHz, mode: mode,
                                                  accelConvention: convention, watchHotplug: false),
            log: io.sensorLog("calibrate"))
        do {
            try source.start()
        } catch {
            throw CommandError(.unavailable, "\(error)")
        }
        defer { source.stop() }
        guard source.status != .absent, let selection = source.selection else {
            throw CommandError(.unavailable, "no motion sensor found\(selector.map { " matching '\($0)'" } ?? "")"
                               + "\((source.selectionFailure ?? source.statusMessage).map { " (\($0))" } ?? "") and carouseld is not running;"
                               + " 'carouselctl sensors' lists what libiio finds")
        }
        var progress = CalibrationProgress(io: io, totalSeconds: durationSeconds, label: label)
        var samples: [IMUSample] = []
        let start = clinux_monotonic_ns()
        let deadline = start + Int64(durationSeconds * 1e9)
        while true {
            let now = clinux_monotonic_ns()
            if now >= deadline { break }
            progress.update(elapsedSeconds: Double(now - start) * 1e-9, samples: samples.count)
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            if let fd = source.pollDescriptor { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), Int32(min(250, (deadline - now) / 1_000_000 + 1)))
            if n < 0 && errno != EINTR { throw CommandError(.ioError, "poll: \(DaemonClient.errnoText(errno))") }
            if fds[0].revents & Int16(POLLIN) != 0, clinux_signalfd_read(signalFD) > 0 {
                progress.finish()
                throw CommandError(.failure, "interrupted: calibration abandoned, nothing written")
            }
            do {
                try source.readAvailable(into: &samples)
            } catch {
                progress.finish()
                throw CommandError(.ioError, "\(error)")
            }
            if source.status == .absent || source.status == .error {
                progress.finish()
                throw CommandError(.unavailable, "sensor \(source.name): \(source.statusMessage ?? source.status.rawValue)")
            }
        }
        progress.update(elapsedSeconds: durationSeconds, samples: samples.count)
        progress.finish()
        return CollectedSamples(samples: samples, sensorName: selection.accel.name, sensorPath: selection.accel.path)
    }
}
