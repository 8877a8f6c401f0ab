#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CLinux
import IIOSensors
import MotionFusion

/// The event loop of `carouselctl record`: the sensor's poll descriptor and a signalfd for
/// SIGINT/SIGTERM, a deadline for `--duration`, rows appended as samples arrive.
enum RecordSession {
    static func run(_ args: ParsedArguments, io: CommandIO) throws -> ExitStatus {
        guard let output = args.value("--output"), !output.isEmpty else {
            throw CommandError(.usage, "record: --output FILE is required")
        }
        let duration = try args.double("--duration", in: 0...1e9)
        let rate = try args.double("--rate", in: 0.1...100_000) ?? 100
        let mode = try args.choice("--mode", IIOReadMode.allCases.map(\.rawValue)).flatMap(IIOReadMode.init) ?? .auto
        let convention = try args.choice("--accel-convention", AccelConvention.allCases.map(\.rawValue))
            .flatMap(AccelConvention.init) ?? .gravity
        let hotplug = args.has("--hotplug")
        if let uri = args.value("--uri"), let problem = IIOContext.uriProblem(uri) {
            throw CommandError(.usage, "record: --uri: \(problem)")
        }

        // Signals first, before anything could start a thread (threads inherit the signal mask they start
        // with, and the signalfd needs these blocked in every thread).
        let signals: [Int32] = [SIGINT, SIGTERM]
        let signalFD = signals.withUnsafeBufferPointer { clinux_signalfd_for($0.baseAddress, Int32($0.count)) }
        guard signalFD >= 0 else { throw CommandError(.ioError, "record: signalfd: errno \(clinux_errno())") }
        defer { close(signalFD) }

        let source = IIOSensorSource(
            configuration: IIOSourceConfiguration(uri: args.value("--uri"), device: args.value("--sensor"),
                                                  sampleRateHz: rate, mode: mode, accelConvention: convention,
                                                  watchHotplug: true),
            log: io.sensorLog("record"))
        do {
            try source.start()
        } catch {
            throw CommandError(.unavailable, "record: \(error)")
        }
        defer { source.stop() }
        if source.status == .absent, !hotplug {
            throw CommandError(.unavailable, "record: no motion sensor found (\(source.selectionFailure ?? source.statusMessage ?? "none"))"
                               + "; 'carouselctl sensors' lists what libiio finds, and --hotplug waits for one")
        }

        let recorder: Recorder
        do {
            recorder = output == "-" ? try Recorder(descriptor: STDOUT_FILENO) : try Recorder(path: output)
        } catch {
            throw CommandError(exitStatus(for: error), "record: \(error)")
        }
        let start = clinux_monotonic_ns()
        let deadline = duration.map { start + Int64($0 * 1e9) }
        var samples: [IMUSample] = []
        var lastStatus = source.status
        // Without --hotplug a recording is of one device: when it goes, the recording ends, even
        // where the selection rule would go on with another accelerometer (docs/CLI.md "record").
        let recorded = source.selectedDevice?.path
        loop: while true {
            var waitMs: Int32 = 1000
            if let deadline {
                let left = deadline - clinux_monotonic_ns()
                if left <= 0 { break }
                waitMs = Int32(min(1000, left / 1_000_000 + 1))
            }
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            if let fd = source.pollDescriptor { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), waitMs)
            if n < 0 && errno != EINTR { throw CommandError(.ioError, "record: poll: errno \(errno)") }
            if fds[0].revents & Int16(POLLIN) != 0, clinux_signalfd_read(signalFD) > 0 { break loop }
            samples.removeAll(keepingCapacity: true)
            do {
                try source.readAvailable(into: &samples)
                try recorder.append(samples)
            } catch {
                io.err("carouselctl: record: \(error)\n")
                try? recorder.finish()
                return .ioError
            }
            if !hotplug, let recorded, let current = source.selectedDevice?.path, current != recorded {
                io.err("carouselctl: record: \(recorded) is no longer read; the recording ends (--hotplug follows the sensor)\n")
                break loop
            }
            if source.status != lastStatus {
                lastStatus = source.status
                io.err("carouselctl: record: sensor status: \(source.status.rawValue)\(source.statusMessage.map { " (\($0))" } ?? "")\n")
                if source.status == .absent, !hotplug { break loop }
            }
        }
        do {
            try recorder.finish()
        } catch {
            throw CommandError(.ioError, "record: \(error)")
        }
        io.err("carouselctl: record: recorded \(recorder.rowCount) samples\(recorder.path.map { " to \($0)" } ?? "")\n")
        return .ok
    }

    /// docs/CLI.md "EXIT STATUS": permission problems are 77, other file errors 74.
    static func exitStatus(for error: SensorError) -> ExitStatus {
        if case let .io(_, _, code) = error, code == EACCES || code == EPERM || code == EROFS { return .noPermission }
        return .ioError
    }
}
