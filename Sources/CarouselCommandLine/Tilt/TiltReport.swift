import MotionFusion

/// The work of `carouselctl tilt`, free of I/O: recording lines in, CSV rows out.
struct TiltReport {
    /// `time_s,roll_deg,pitch_deg` (docs/CLI.md "tilt").
    static let header = "time_s,roll_deg,pitch_deg"
    /// Angle decimals: 1e-6° is far below any IMU's resolution.
    static let angleDecimals = 6
    /// Output is handed on in chunks of about this many bytes.
    static let chunkBytes = 1 << 16

    /// `--orientation`: the header and every row gain an `orientation` column.
    static let orientationColumn = ",orientation"

    var format: RecordingFormat?
    var configuration: AttitudeEstimator.Configuration
    /// The orientation detector's settings for the `orientation` column; nil: no column.
    var orientation: OrientationDetector.Configuration? = nil

    /// The CSV header line (without `\n`).
    var headerLine: String { Self.header + (orientation == nil ? "" : Self.orientationColumn) }

    /// One pass over a recording, fed line by line (so a caller can stream a file of any size).
    struct Pass {
        private let parser: RecordingLineParser
        private var estimator: AttitudeEstimator
        private var detector: OrientationDetector?
        private var firstTimestamp: Int64?

        /// - Parameter header: line 1 of the recording.
        /// - Throws: `RecordingError.empty` for a blank line 1, `.unknownHeader` otherwise.
        init(header: Substring, report: TiltReport) throws(RecordingError) {
            guard !header.allSatisfy({ $0 == "\r" || $0 == " " }) else { throw .empty }
            parser = try RecordingLineParser(header: header, format: report.format)
            estimator = AttitudeEstimator(report.configuration)
            detector = report.orientation.map(OrientationDetector.init)
        }

        /// One data line through the estimator: nil for a line without a sample (blank, NCSU
        /// estimate row); otherwise the nanoseconds since the first sample (negative for a
        /// sample older than the first) and the estimate, nil when the estimator has no data.
        /// - Throws: `RecordingError.malformedRow` for a bad row, or a timestamp more than
        ///   Int64 nanoseconds (292 years) away from the first one.
        mutating func step(for line: Substring, lineNumber: Int) throws(RecordingError) -> (elapsed: Int64, estimate: TiltEstimate?)? {
            guard let sample = try parser.parse(line: line, lineNumber: lineNumber) else { return nil }
            let t0 = firstTimestamp ?? sample.timestampNanoseconds
            firstTimestamp = t0
            let (elapsed, overflow) = sample.timestampNanoseconds.subtractingReportingOverflow(t0)
            if overflow {
                throw .malformedRow(line: lineNumber, reason: "timestamp \(sample.timestampNanoseconds) ns is more than 292 years from the first sample's (\(t0) ns)")
            }
            return (elapsed, estimator.update(sample))
        }

        /// The CSV row (with its `\n`) for data line `lineNumber`, or nil for a line without a
        /// sample (see `step(for:lineNumber:)`). `time_s` is exact, from the nanosecond
        /// timestamps; roll and pitch are empty when the estimator has no data for that sample.
        /// - Throws: as `step(for:lineNumber:)`.
        mutating func row(for line: Substring, lineNumber: Int) throws(RecordingError) -> String? {
            guard let (elapsed, estimate) = try step(for: line, lineNumber: lineNumber) else { return nil }
            var row = DecimalFormatting.seconds(nanoseconds: elapsed)
            if let e = estimate {
                row += ","
                row += DecimalFormatting.fixed(e.rollDegrees, decimals: TiltReport.angleDecimals)
                row += ","
                row += DecimalFormatting.fixed(e.pitchDegrees, decimals: TiltReport.angleDecimals)
            } else {
                row += ",,"
            }
            if detector != nil {
                // Without an estimate the orientation holds (undefined before the first one).
                if let e = estimate { detector?.update(e) }
                row += "," + (detector?.orientation.rawValue ?? "")
            }
            return row + "\n"
        }
    }

    /// Runs the estimator over a whole recording `text` and hands CSV text to `emit` in chunks
    /// (header first). One row per sample, see `Pass.row(for:lineNumber:)`.
    /// - Throws: `RecordingError` with the 1-based line of the first bad line.
    func run(text: String, emit: (String) -> Void) throws(RecordingError) {
        var lines = RecordingReader.lines(of: text)[...]
        guard let headerLine = lines.popFirst() else { throw .empty }
        var pass = try Pass(header: headerLine, report: self)
        var buffer = self.headerLine + "\n"
        var lineNumber = 1
        for line in lines {
            lineNumber += 1
            if let row = try pass.row(for: line, lineNumber: lineNumber) { buffer += row }
            if buffer.utf8.count >= Self.chunkBytes {
                emit(buffer)
                buffer = ""
            }
        }
        if !buffer.isEmpty { emit(buffer) }
    }
}
