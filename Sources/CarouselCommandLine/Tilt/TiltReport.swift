import MotionFusion

/// The work of `carouselctl tilt`, free of I/O: recording text in, CSV rows out.
struct TiltReport {
    /// `time_s,roll_deg,pitch_deg` (INTERFACES §3).
    static let header = "time_s,roll_deg,pitch_deg"
    /// Angle decimals: 1e-6° is far below any IMU's resolution.
    static let angleDecimals = 6

    var format: RecordingFormat?
    var configuration: AttitudeEstimator.Configuration

    /// Runs the estimator over `text` and hands CSV text to `emit` in chunks (header first).
    /// One row per sample: `time_s` from the first sample (exact, from the nanosecond
    /// timestamps), then roll and pitch in degrees, or two empty fields when the estimator has
    /// no data for that sample.
    /// - Throws: `RecordingError` with the 1-based line of the first bad line.
    func run(text: String, emit: (String) -> Void) throws(RecordingError) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let headerLine = lines.popFirst(), !headerLine.allSatisfy({ $0 == "\r" || $0 == " " }) else {
            throw .empty
        }
        let parser = try RecordingLineParser(header: headerLine, format: format)
        var estimator = AttitudeEstimator(configuration)
        var buffer = Self.header + "\n"
        var firstTimestamp: Int64?
        var lineNumber = 1
        for line in lines {
            lineNumber += 1
            guard let sample = try parser.parse(line: line, lineNumber: lineNumber) else { continue }
            let t0 = firstTimestamp ?? sample.timestampNanoseconds
            firstTimestamp = t0
            buffer += DecimalFormatting.seconds(nanoseconds: sample.timestampNanoseconds &- t0)
            if let e = estimator.update(sample) {
                buffer += ","
                buffer += DecimalFormatting.fixed(e.rollDegrees, decimals: Self.angleDecimals)
                buffer += ","
                buffer += DecimalFormatting.fixed(e.pitchDegrees, decimals: Self.angleDecimals)
                buffer += "\n"
            } else {
                buffer += ",,\n"
            }
            if buffer.utf8.count >= 1 << 16 {
                emit(buffer)
                buffer = ""
            }
        }
        if !buffer.isEmpty { emit(buffer) }
    }
}
