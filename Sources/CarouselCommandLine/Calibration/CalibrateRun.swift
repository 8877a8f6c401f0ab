#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CarouselProtocol
import CLinux
import IIOSensors
import MotionFusion

/// The workflow of `carouselctl calibrate`: choose the sample source, capture, compute (still or
/// six-position), report, confirm, write the file atomically, tell the daemon to reload. The
/// operator's answers come from `CommandIO.readLine`, so tests drive the interactive flow.
enum CalibrateRun {
    /// What the arguments ask for, checked for conflicts.
    struct Plan {
        var sixPosition: Bool
        var fromFiles: Bool
        /// `--duration`, seconds; nil: the method's default.
        var durationSeconds: Double?
        var fault: AtomicFileWriter.FaultPoint?
        /// The calibration file to write.
        var output: String
    }

    static func run(_ args: ParsedArguments, io: CommandIO) throws -> ExitStatus {
        let settings = try OperatorSettings.load(args, io: io)
        let plan = try makePlan(args, io: io, settings: settings)
        try checkWritable(plan.output)
        let previous = readPrevious(plan.output, io: io)
        let client = try connectUnlessLocal(args, plan: plan, settings: settings, io: io)
        let source = SampleSource(args: args, client: client, settings: settings.configuration.sensor,
                                  durationSeconds: plan.durationSeconds, io: io)
        let created = ISO8601UTC.format(epochSeconds: clinux_realtime_ns() / 1_000_000_000)
        let file = plan.fromFiles || plan.sixPosition
            ? try sixPositionFile(args, plan: plan, source: source, previous: previous, created: created, io: io)
            : try stillFile(source: source, plan: plan, settings: settings, previous: previous, created: created, io: io)
        guard args.has("--yes") || confirmWrite(plan.output, io: io) else {
            io.err("not written\n")
            return .failure
        }
        let hadPrevious: Bool
        do throws(FileIOError) {
            hadPrevious = try AtomicFileWriter(faultPoint: plan.fault).write(file.serialized(), to: plan.output)
        } catch {
            throw error.writeFailure
        }
        io.out("written to \(plan.output)\(hadPrevious ? " (previous kept as \(plan.output).bak)" : "")\n")
        DaemonReload.afterChange(client: client, settings: settings, args: args, io: io)
        return .ok
    }

    /// - Throws: `CommandError(.usage)` for sources or methods that exclude each other, a wrong
    ///   number of recordings, or an unknown fault point.
    static func makePlan(_ args: ParsedArguments, io: CommandIO, settings: OperatorSettings) throws -> Plan {
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
        return Plan(sixPosition: sixPosition, fromFiles: fromFiles,
                    durationSeconds: try args.double("--duration", in: 0.5...3600),
                    fault: try faultPoint(io), output: args.value("--output") ?? settings.configuration.calibration.file)
    }

    /// The test-only fault point named by `CAROUSELCTL_FAULT`, nil when unset.
    private static func faultPoint(_ io: CommandIO) throws(CommandError) -> AtomicFileWriter.FaultPoint? {
        guard let name = io.environment[AtomicFileWriter.faultEnvironmentVariable], !name.isEmpty else { return nil }
        guard let point = AtomicFileWriter.FaultPoint(rawValue: name) else {
            throw CommandError(.usage, "\(AtomicFileWriter.faultEnvironmentVariable)='\(name)' is not one of "
                               + AtomicFileWriter.FaultPoint.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return point
    }

    /// The daemon, when it runs, owns the IIO buffer: go through it unless the samples come from
    /// recordings or `--sensor`. Without a daemon (and no `--socket`), nil: read the sensor.
    private static func connectUnlessLocal(_ args: ParsedArguments, plan: Plan, settings: OperatorSettings,
                                           io: CommandIO) throws(CommandError) -> DaemonClient? {
        guard !plan.fromFiles, !args.has("--replay"), !args.has("--sensor") else { return nil }
        do {
            return try DaemonClient(socketPath: settings.socketPath(args))
        } catch {
            guard error.status == .unavailable, !args.has("--socket") else { throw error }
            io.err("carouseld is not running: reading the sensor directly\n")
            return nil
        }
    }

    /// Six poses (prompted, or `--from-files` recordings) → offset and scale, keeping the gyro
    /// bias and neutral of a previous calibration of the same sensor where the poses lack them.
    private static func sixPositionFile(_ args: ParsedArguments, plan: Plan, source: SampleSource,
                                        previous: CalibrationFile?, created: String, io: CommandIO) throws(CommandError) -> CalibrationFile {
        let (captures, identity) = try capturePoses(args, plan: plan, source: source, io: io)
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
        let file = CalibrationFile(sensorName: identity.name, sensorPath: identity.path, calibration: calibration,
                                   created: created, samples: result.sampleCount, method: "six-position",
                                   gyroNoise: result.gyroNoise, accelNoise: result.accelNoise)
        io.out(CalibrationReport.sixPosition(result, file: file, keptNeutralFrom: kept))
        reportAgreement(captures, io: io)
        return file
    }

    /// The six captures in pose order, and the sensor they belong to.
    private static func capturePoses(_ args: ParsedArguments, plan: Plan, source: SampleSource, io: CommandIO)
        throws(CommandError) -> (captures: [(name: String, samples: [IMUSample])], identity: (name: String, path: String)) {
        var captures: [(name: String, samples: [IMUSample])] = []
        var identity = (name: "", path: "")
        for (i, axis) in SixPositionRun.poses.enumerated() {
            let collected: CollectedSamples
            if plan.fromFiles {
                collected = try SampleCollection.fromRecording(path: args.positionals[i], durationSeconds: nil)
                captures.append((args.positionals[i], collected.samples))
            } else {
                io.err("Place the device with \(axis.rawValue.uppercased()) pointing up, keep it still, then press Enter (Ctrl-D aborts): ")
                guard io.readLine() != nil else { throw CommandError(.failure, "calibrate: aborted, nothing written") }
                collected = try source.capture(seconds: plan.durationSeconds ?? 5, label: "\(axis.rawValue) up")
                captures.append(("pose \(axis.rawValue) up", collected.samples))
            }
            if i == 0 { identity = (collected.sensorName, collected.sensorPath) }
        }
        if plan.fromFiles {
            if args.value("--sensor") == nil {
                io.err("carouselctl: warning: calibrate: --from-files without --sensor: the file is bound to the sensor "
                       + "'recordings', which carouseld applies to no real sensor; give --sensor NAME (the device's IIO name)\n")
            }
            identity = (args.value("--sensor") ?? "recordings", "")
        }
        return (captures, identity)
    }

    /// Sign agreement of gyro and accelerometer per axis, from the turns into each pose.
    private static func reportAgreement(_ captures: [(name: String, samples: [IMUSample])], io: CommandIO) {
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
    }

    /// One still capture → gyro bias and neutral attitude, keeping the accelerometer offset and
    /// scale of a previous calibration of the same sensor.
    private static func stillFile(source: SampleSource, plan: Plan, settings: OperatorSettings,
                                  previous: CalibrationFile?, created: String, io: CommandIO) throws(CommandError) -> CalibrationFile {
        let collected = try source.capture(seconds: plan.durationSeconds ?? 10, label: "calibrating")
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
        let file = CalibrationFile(sensorName: collected.sensorName, sensorPath: collected.sensorPath,
                                   calibration: calibration, created: created, samples: result.statistics.count,
                                   method: "still", gyroNoise: result.gyroBias == nil ? nil : result.statistics.gyroStd,
                                   accelNoise: result.statistics.accelStd)
        io.out(CalibrationReport.still(result, file: file, keptAccelFrom: kept?.method == "six-position" ? kept : nil))
        let sensor = settings.configuration.sensor
        for warning in UpAxisCheck.warnings(upAxis: result.upAxis, accelConvention: sensor.accelConvention.rawValue,
                                            displayRotation: settings.configuration.tilt.displayRotation) {
            io.err("carouselctl: warning: \(warning)\n")
        }
        return file
    }

    /// Asks `Write FILE? [Y/n]` on a terminal (Enter or y/yes writes; anything else, or the end
    /// of input, does not); without a terminal the answer is yes.
    static func confirmWrite(_ output: String, io: CommandIO) -> Bool {
        guard io.isInteractive else { return true }
        io.err("Write \(output)? [Y/n] ")
        let answer = (io.readLine() ?? "n").lowercased()
        return answer.isEmpty || answer == "y" || answer == "yes"
    }

    /// Refuses, before any sample is taken, an output that names a directory (the atomic write
    /// would fail only at the end, with a confusing link error) or is itself a FIFO, a device or
    /// a socket: the atomic write renames a new regular file over the name, so `--output
    /// /dev/null` run as root replaced the device node with a file (the node kept as `.bak`),
    /// and a FIFO made the backup's read wait for a writer. A symbolic link is replaced, as any
    /// file, whatever it points to.
    /// - Throws: `CommandError(.ioError)` naming the path and what it is.
    static func checkWritable(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw CommandError(.ioError, "calibrate: cannot write \(path): it is a directory (--output names the file to write)")
        }
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK, let kind = BoundedFile.kindName(info.st_mode) {
            throw CommandError(.ioError, "calibrate: cannot write \(path): it is \(kind), not a regular file "
                                         + "(--output names the file to write, which is replaced whole)")
        }
    }

    /// The existing calibration at `path`, nil when missing or unreadable (with a warning for a
    /// file that exists but does not parse: it is about to become the `.bak`).
    static func readPrevious(_ path: String, io: CommandIO) -> CalibrationFile? {
        guard access(path, F_OK) == 0 else { return nil }
        do {
            let text = try TextFile.read(path: path, limit: CalibrationFile.maximumFileBytes, acceptsPipes: false)
            return try CalibrationFile.parse(text: text, path: path)
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
            let socketPath = settings.socketPath(args)
            do {
                connection = try DaemonClient(socketPath: socketPath)
            } catch {
                if error.status == .unavailable {
                    // Only this socket was tried: a daemon elsewhere (the demo's private one) may
                    // run, so name the socket and the way to make that one read the file.
                    io.out("no carouseld answers on \(socketPath); a daemon reads the calibration when it starts, "
                           + "or on 'carouselctl reload --socket PATH'\n")
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
