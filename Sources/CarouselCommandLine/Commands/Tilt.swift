import CarouselProtocol
import CarouselService
import MotionFusion

/// `carouselctl tilt`: Estimate roll and pitch from a recording; CSV on stdout.
enum TiltCommand {
    static let spec = CommandSpec(
        name: "tilt",
        summary: "Estimate roll and pitch from a recording; CSV on stdout.",
        discussion: """
        Reads a recording (native CSV, x-io, BROAD or NCSU; see \(ReferencePages.current.page("FUSION.md"))), runs the tilt
        estimator on every sample with its real timestamps and writes 'time_s,roll_deg,pitch_deg'
        (time from the first sample; empty angles where there is no estimate yet).
        Lines may end in LF or CRLF. A row whose timestamp is not after the previous one
        (duplicate, out of order) repeats the held estimate; a step over 0.5 s restarts the
        estimator from that row's accelerometer. The file is streamed: on a malformed row the
        rows before it may already be on stdout. The low-pass cutoff is limited to 0.45 times
        the sample rate.
        With --orientation each row gains a fourth column, 'orientation': the device orientation \
        carouseld's detector decides on that row's estimate with its default settings \
        (normal, bottom-up, left-up, right-up, face-up, face-down, undefined; \(ReferencePages.current.page("ORIENTATION.md"))).
        With --score (BROAD files, which carry an optical reference) it prints instead one line,
        'rms_deg=R mean_deg=M p95_deg=P max_deg=X scored=N': the inclination error (angle between
        estimated and reference up vectors, degrees) over the rows of the movement phase that
        have a reference.
        Exit status: 64 usage, 65 malformed recording (file:line) or nothing to score, 66 missing
        file or a directory, 74 read error, 77 permission denied.
        """,
        options: [
            OptionSpec("--input", short: "-i", value: "FILE", help: "Recording to read (required)."),
            OptionSpec("--format", value: "FORMAT", help: "auto|native|xio|broad|ncsu (default auto: from the header)."),
            OptionSpec("--method", value: "METHOD", help: "inertial|fusion|complementary|accel (default inertial)."),
            OptionSpec("--gain", value: "G", help: "Accelerometer correction rate, 1/s (default 0.5)."),
            OptionSpec("--lowpass-hz", value: "F", help: "Butterworth low-pass of the accelerometer, Hz (default off; 0 = off)."),
            OptionSpec("--orientation", help: "Add an 'orientation' column: the detected device orientation per row."),
            OptionSpec("--score", help: "Print the inclination error against a BROAD file's reference instead of the CSV."),
        ],
        run: run
    )

    @Sendable static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> ExitStatus {
        guard let path = args.value("--input"), !path.isEmpty else {
            throw CommandError(.usage, "tilt: --input FILE is required (see 'carouselctl tilt --help')")
        }
        let formatName = try args.choice("--format", ["auto"] + RecordingFormat.allCases.map(\.rawValue)) ?? "auto"
        let methodName = try args.choice("--method", EstimationMethod.allCases.map(\.rawValue)) ?? AttitudeEstimator.Configuration().method.rawValue
        let gain = try args.double("--gain", in: 0...1000)
        let lowpass = try args.double("--lowpass-hz", in: 0...100_000)
        let method = EstimationMethod(rawValue: methodName) ?? AttitudeEstimator.Configuration().method
        let report = TiltReport(
            format: RecordingFormat(rawValue: formatName),
            configuration: AttitudeEstimator.Configuration(method: method, gain: gain,
                                                           lowpassCutoffHz: lowpass.flatMap { $0 > 0 ? $0 : nil }),
            orientation: args.has("--orientation") ? OrientationDetector.Configuration() : nil)

        // Streamed line by line: memory stays bounded for any file size. Output goes out in
        // chunks, so when a malformed row comes late, stdout already holds the rows before it
        // (the exit status says the run failed).
        if args.has("--score") { return try score(path: path, report: report, io: io) }
        var buffer = ""
        do {
            let reader = try LineReader(path: path)
            var pass = try TiltReport.Pass(header: (try reader.next() ?? "")[...], report: report)
            buffer = report.headerLine + "\n"
            while let line = try reader.next() {
                if let row = try pass.row(for: line[...], lineNumber: reader.lineNumber) { buffer += row }
                if buffer.utf8.count >= TiltReport.chunkBytes {
                    io.out(buffer)
                    buffer = ""
                }
            }
        } catch let error as TextFile.Failure {
            throw error.commandError
        } catch let error as RecordingError {
            let location = error.line > 0 ? "\(path):\(error.line)" : path
            throw CommandError(.dataError, "tilt: \(location): \(error.reason)")
        }
        io.out(buffer)
        return .ok
    }

    /// `--score`: streams the file through the estimator and prints the `TiltScore` line.
    static func score(path: String, report: TiltReport, io: CommandIO) throws -> ExitStatus {
        do {
            let reader = try LineReader(path: path)
            let header = (try reader.next() ?? "")[...]
            var pass = try TiltReport.Pass(header: header, report: report)
            guard let columns = TiltScore.Columns(header: header) else {
                throw CommandError(.usage, "tilt: --score needs a BROAD recording with opt_qw, opt_qx, opt_qy, opt_qz and movement columns; \(path) has none")
            }
            var score = TiltScore(columns: columns)
            while let line = try reader.next() {
                guard let (_, estimate) = try pass.step(for: line[...], lineNumber: reader.lineNumber) else { continue }
                score.add(line: line[...], estimate: estimate)
            }
            guard let summary = score.summary else {
                throw CommandError(.dataError, "tilt: \(path): no row to score (none with movement = 1 and a finite reference)")
            }
            io.out(TiltScore.line(summary) + "\n")
            return .ok
        } catch let error as TextFile.Failure {
            throw error.commandError
        } catch let error as RecordingError {
            let location = error.line > 0 ? "\(path):\(error.line)" : path
            throw CommandError(.dataError, "tilt: \(location): \(error.reason)")
        }
    }
}
