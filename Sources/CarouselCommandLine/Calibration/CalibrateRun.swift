#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CLinux
import IIOSensors
import MotionFusion

/// The workflow of `carouselctl calibrate`: choose the sample source, capture, compute (still or
/// six-position), report, write the file atomically, tell the daemon to reload.
enum CalibrateRun {
    static func run(_ args: ParsedArguments, io: CommandIO) throws -> ExitStatus {
        let settings = try OperatorSettings.load(args, io: io)
        let sixPosition = args.has("--six-position"), fromFiles = args.has("--from-files")
        // With recordings, --sensor names the sensor the file is for instead of a source.
        let recordings = fromFiles || args.has("--replay")
        let sources = ["--socket", "--sensor", "--replay"].filter { args.has($0) && !($0 == "--sensor" && recordings) }
        guard sources.count <= 1 else {
            throw CommandError(.usage, "calibrate: \(sources.joined(separator: ", ")) exclude each other (one sample source)")
        }
        if sixPosition && fromFiles {
            throw CommandError(.usage, "calibrate: --six-position and --from-files exclude each other")
        }
        if fromFiles {
            guard args.positionals.count == 6 else {
                throw CommandError(.usage, "calibrate: --from-files needs 6 recordings in the order X+ X- Y+ Y- Z+ Z-, got \(args.positionals.count)")
            }
            if !sources.isEmpty { throw CommandError(.usage, "calibrate: --from-files reads recordings; \(sources[0]) does not apply") }
        } else if let extra = args.positionals.first {
            throw CommandError(.usage, "calibrate: unexpected argument '\(extra)' (recordings go with --from-files)")
        }
        if sixPosition && args.has("--replay") {
            throw CommandError(.usage, "calibrate: a six-position calibration from recordings uses --from-files X+ X- Y+ Y- Z+ Z-")
        }
        let duration = try args.double("--duration", in: 0.5...3600)
        let fault: AtomicFileWriter.FaultPoint?
        if let name = io.environment[AtomicFileWriter.faultEnvironmentVariable], !name.isEmpty {
            guard let point = AtomicFileWriter.FaultPoint(rawValue: name) else {
                throw CommandError(.usage, "\(AtomicFileWriter.faultEnvironmentVariable)='\(name)' is not one of "
                                   + AtomicFileWriter.FaultPoint.allCases.map(\.rawValue).joined(separator: ", "))
            }
            fault = point
        } else {
            fault = nil
        }
        let output = args.value("--output") ?? settings.configuration.calibration.file
        let previous = readPrevious(output, io: io)

        // The daemon, when it runs, owns the IIO buffer: go through it unless told otherwise.
        var client: DaemonClient?
        if !fromFiles, !args.has("--replay"), !args.has("--sensor") {
            do {
                client = try DaemonClient(socketPath: settings.socketPath(args))
            } catch {
                guard error.status == .unavailable, !args.has("--socket") else { throw error }
                io.err("carouseld is not running: reading the sensor directly\n")
            }
        }
        let sensorSettings = settings.configuration.sensor
        func capture(seconds: Double, label: String) throws(CommandError) -> CollectedSamples {
            if let path = args.value("--replay") {
                var collected = try SampleCollection.fromRecording(path: path, durationSeconds: duration)
                if let name = args.value("--sensor") { (collected.sensorName, collected.sensorPath) = (name, "") }
                return collected
            }
            if let client {
                // A replaying daemon names its source after the recording's file (ReplaySource).
                let replay = sensorSettings.source == .replay && !sensorSettings.replayFile.isEmpty
                    ? (name: PathName.lastComponent(of: sensorSettings.replayFile), path: sensorSettings.replayFile) : nil
                return try SampleCollection.fromDaemon(client: client, durationSeconds: seconds, io: io, label: label,
                                                       fallbackIdentity: replay)
            }
            let selector = args.value("--sensor") ?? (sensorSettings.device.isEmpty ? nil : sensorSettings.device)
            let convention: AccelConvention = sensorSettings.accelConvention == .gravity ? .gravity : .specificForce
            return try SampleCollection.fromSensor(selector: selector, uri: sensorSettings.uri, sampleRateHz: sensorSettings.sampleRateHz,
                                                   mode: IIOReadMode(rawValue: sensorSettings.mode.rawValue) ?? .auto,
                                                   convention: convention, durationSeconds: seconds, io: io, label: label)
        }

        let file: CalibrationFile
        let created = ISO8601UTC.format(epochSeconds: clinux_realtime_ns() / 1_000_000_000)
        if fromFiles || sixPosition {
            var captures: [(name: String, samples: [IMUSample])] = []
            var identity = (name: "", path: "")
            for (i, axis) in SixPositionRun.poses.enumerated() {
                let collected: CollectedSamples
                if fromFiles {
                    collected = try SampleCollection.fromRecording(path: args.positionals[i], durationSeconds: nil)
                    captures.append((args.positionals[i], collected.samples))
                } else {
                    io.err("Place the device with \(axis.rawValue.uppercased()) pointing up, keep it still, then press Enter (Ctrl-D aborts): ")
                    guard readLine() != nil else { throw CommandError(.failure, "calibrate: aborted, nothing written") }
                    collected = try capture(seconds: duration ?? 5, label: "\(axis.rawValue) up")
                    captures.append(("pose \(axis.rawValue) up", collected.samples))
                }
                if i == 0 { identity = (collected.sensorName, collected.sensorPath) }
            }
            if fromFiles { identity = (args.value("--sensor") ?? "recordings", "") }
            let result: SixPositionRun.Result
            do throws(SixPositionRun.Failure) {
                result = try SixPositionRun.compute(captures)
            } catch {
                throw CommandError(.dataError, "calibrate: \(error.message)")
            }
            let kept = previous.flatMap { $0.belongs(toSensor: identity.name, path: identity.path) ? $0 : nil }
            var calibration = Calibration(gyroBias: result.gyroBias ?? kept?.calibration.gyroBias ?? .zero,
                                          accelOffset: result.offset, accelScale: result.scale)
            if let kept {
                calibration.neutralRoll = kept.calibration.neutralRoll
                calibration.neutralPitch = kept.calibration.neutralPitch
            }
            file = CalibrationFile(sensorName: identity.name, sensorPath: identity.path, calibration: calibration,
                                   created: created, samples: result.sampleCount, method: "six-position",
                                   gyroNoise: result.gyroNoise, accelNoise: result.accelNoise)
            io.out(CalibrationReport.sixPosition(result, file: file, keptNeutralFrom: kept))
            // Sign agreement needs rotation: the turns into each pose, when the captures hold them.
            let agreement = GyroAccelAgreement()
            var sums = GyroAccelAgreement.Sums()
            for capture in captures { agreement.accumulate(capture.samples, into: &sums) }
            let axes = agreement.verdicts(sums)
            io.out(CalibrationReport.agreement(axes))
            for axis in axes where axis.verdict == .disagree {
                io.err("carouselctl: warning: gyroscope and accelerometer disagree in sign about \(axis.name) "
                       + "(correlation \(fmt(axis.correlation ?? 0, digits: 2))): check the gyroscope's mount matrix "
                       + "(in_anglvel_mount_matrix, or det(M)·M for a reflection) and the driver's axis signs\n")
            }
        } else {
            let collected = try capture(seconds: duration ?? 10, label: "calibrating")
            let kept = previous.flatMap { $0.belongs(toSensor: collected.sensorName, path: collected.sensorPath) ? $0 : nil }
            let accel = Calibration(accelOffset: kept?.calibration.accelOffset ?? .zero,
                                    accelScale: kept?.calibration.accelScale ?? Vector3(1, 1, 1))
            let result: StillCalibration.Result
            do throws(StillCalibration.Refusal) {
                result = try StillCalibration().compute(collected.samples, accelCorrection: accel)
            } catch {
                throw CommandError(.dataError, "calibrate: refused: \(error.description)")
            }
            let calibration = Calibration(gyroBias: result.gyroBias ?? .zero, accelOffset: accel.accelOffset,
                                          accelScale: accel.accelScale, neutralRoll: result.neutral.roll,
                                          neutralPitch: result.neutral.pitch)
            file = CalibrationFile(sensorName: collected.sensorName, sensorPath: collected.sensorPath,
                                   calibration: calibration, created: created, samples: result.statistics.count,
                                   method: "still", gyroNoise: result.gyroBias == nil ? nil : result.statistics.gyroStd,
                                   accelNoise: result.statistics.accelStd)
            io.out(CalibrationReport.still(result, file: file, keptAccelFrom: kept?.method == "six-position" ? kept : nil))
            let rotation = settings.configuration.tilt.displayRotation
            for warning in UpAxisCheck.warnings(upAxis: result.upAxis, accelConvention: sensorSettings.accelConvention.rawValue,
                                                displayRotation: rotation) {
                io.err("carouselctl: warning: \(warning)\n")
            }
        }

        if !args.has("--yes"), isatty(STDIN_FILENO) == 1 {
            io.err("Write \(output)? [Y/n] ")
            let answer = (readLine() ?? "n").lowercased()
            guard answer.isEmpty || answer == "y" || answer == "yes" else {
                io.err("not written\n")
                return .failure
            }
        }
        let hadPrevious: Bool
        do throws(FileIOError) {
            hadPrevious = try AtomicFileWriter(faultPoint: fault).write(file.serialized(), to: output)
        } catch {
            throw error.commandError
        }
        io.out("written to \(output)\(hadPrevious ? " (previous kept as \(output).bak)" : "")\n")
        DaemonReload.afterChange(client: client, settings: settings, args: args, io: io)
        return .ok
    }

    /// The existing calibration at `path`, nil when missing or unreadable (with a warning for a
    /// file that exists but does not parse: it is about to become the `.bak`).
    static func readPrevious(_ path: String, io: CommandIO) -> CalibrationFile? {
        guard access(path, F_OK) == 0 else { return nil }
        do {
            return try CalibrationFile.parse(text: try PosixFile.readText(path), path: path)
        } catch let error as CalibrationFileError {
            io.err("carouselctl: warning: the existing calibration is not usable (\(error.description)); it will be kept as .bak\n")
        } catch {
            io.err("carouselctl: warning: \(error)\n")
        }
        return nil
    }
}

/// Telling the daemon about a new or removed calibration file.
enum DaemonReload {
    /// Sends `reload` over `client` or a new connection. A daemon that is not running is fine (it
    /// reads the file when it starts); a refusal is a warning, since the file itself is in place.
    static func afterChange(client: DaemonClient?, settings: OperatorSettings, args: ParsedArguments, io: CommandIO) {
        let connection: DaemonClient
        if let client {
            connection = client
        } else {
            do {
                connection = try DaemonClient(socketPath: settings.socketPath(args))
            } catch {
                if error.status == .unavailable {
                    io.out("carouseld is not running; it reads the calibration when it starts\n")
                } else {
                    io.err("carouselctl: warning: could not tell carouseld to reload: \(error.message)\n")
                }
                return
            }
        }
        defer { connection.close() }
        do {
            let reply = try connection.request(ControlRequest.reload, cmd: "reload", expecting: ["ACK", "ERROR"])
            if reply["class"]?.stringValue == "ERROR" {
                let error = DaemonClient.error(from: reply, cmd: "reload", socketPath: connection.socketPath)
                io.err("carouselctl: warning: \(error.message); run 'systemctl reload carouseld' once it is fixed\n")
            } else {
                io.out("carouseld reloaded its calibration\n")
            }
        } catch {
            io.err("carouselctl: warning: could not tell carouseld to reload: \(error.message)\n")
        }
    }
}
