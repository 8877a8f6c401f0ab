import CarouselProtocol
import MotionFusion

/// `carouselctl tilt`: Estimate roll and pitch from a recording; CSV on stdout.
enum TiltCommand {
    static let spec = CommandSpec(
        name: "tilt",
        summary: "Estimate roll and pitch from a recording; CSV on stdout.",
        discussion: """
        Reads a recording (native CSV, x-io, BROAD or NCSU; see docs/FUSION.md), runs the tilt
        estimator on every sample with its real timestamps and writes 'time_s,roll_deg,pitch_deg'
        (time from the first sample; empty angles where there is no estimate yet).
        Exit status: 64 usage, 65 malformed recording (file:line), 66 missing file.
        """,
        options: [
            OptionSpec("--input", short: "-i", value: "FILE", help: "Recording to read (required)."),
            OptionSpec("--format", value: "FORMAT", help: "auto|native|xio|broad|ncsu (default auto: from the header)."),
            OptionSpec("--method", value: "METHOD", help: "fusion|complementary|accel (default fusion)."),
            OptionSpec("--gain", value: "G", help: "Accelerometer correction rate, 1/s (default 0.5)."),
            OptionSpec("--lowpass-hz", value: "F", help: "Butterworth low-pass of the accelerometer, Hz (default off; 0 = off)."),
        ],
        run: run
    )

    @Sendable static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> ExitStatus {
        guard let path = args.value("--input"), !path.isEmpty else {
            throw CommandError(.usage, "tilt: --input FILE is required (see 'carouselctl tilt --help')")
        }
        let formatName = try args.choice("--format", ["auto"] + RecordingFormat.allCases.map(\.rawValue)) ?? "auto"
        let methodName = try args.choice("--method", EstimationMethod.allCases.map(\.rawValue)) ?? EstimationMethod.fusion.rawValue
        let gain = try args.double("--gain", in: 0...1000)
        let lowpass = try args.double("--lowpass-hz", in: 0...100_000)
        let method = EstimationMethod(rawValue: methodName) ?? .fusion
        let report = TiltReport(
            format: RecordingFormat(rawValue: formatName),
            configuration: AttitudeEstimator.Configuration(method: method, gain: gain,
                                                           lowpassCutoffHz: lowpass.flatMap { $0 > 0 ? $0 : nil }))

        let text: String
        do {
            text = try TextFile.read(path: path)
        } catch {
            throw error.commandError
        }
        // Buffer output so that a malformed row late in the file leaves stdout empty rather
        // than half a CSV.
        var chunks: [String] = []
        do {
            try report.run(text: text) { chunks.append($0) }
        } catch {
            let location = error.line > 0 ? "\(path):\(error.line)" : path
            throw CommandError(.dataError, "tilt: \(location): \(error.reason)")
        }
        for chunk in chunks { io.out(chunk) }
        return .ok
    }
}
