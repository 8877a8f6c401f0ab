/// Parses a recording one line at a time, for callers that stream a file (replay) as well as
/// for `RecordingReader.parse(text:format:)`.
///
/// Create it from the header line (line 1), then feed every following line with its 1-based
/// line number. Each data row must have as many fields as the header. Blank lines are skipped;
/// so are NCSU estimate rows (their raw accelerometer/gyroscope block is empty).
public struct RecordingLineParser: Sendable {
    /// The format in use (given, or detected from the header).
    public let format: RecordingFormat
    private let fieldCount: Int
    private let indices: [Int]
    private let maxIndex: Int

    /// - Parameters:
    ///   - header: line 1 of the recording (a trailing `\r` is ignored).
    ///   - format: the expected format, or `nil` to detect it from the header.
    /// - Throws: `RecordingError.unknownHeader(line: 1, …)` when the header is not recognised
    ///   or lacks a column the format needs.
    public init(header: Substring, format: RecordingFormat? = nil) throws(RecordingError) {
        let names = RecordingFormat.splitHeader(header)
        let chosen: RecordingFormat
        if let format {
            chosen = format
        } else if let detected = RecordingFormat.detect(header: header) {
            chosen = detected
        } else {
            throw .unknownHeader(line: 1, text: RecordingError.printable(header, limit: 200))
        }
        guard let indices = chosen.columnIndices(in: names) else {
            throw .unknownHeader(line: 1, text: RecordingError.printable(header, limit: 200))
        }
        self.format = chosen
        self.fieldCount = names.count
        self.indices = indices
        self.maxIndex = indices.max() ?? 0
    }

    /// Parses one data line.
    /// - Returns: the sample in SI units, or `nil` for a line that carries none (blank line,
    ///   NCSU estimate row).
    /// - Throws: `RecordingError.malformedRow(line: lineNumber, …)` naming the column and text
    ///   for a wrong field count, a non-numeric or non-finite value, a partly filled gyroscope
    ///   or NCSU raw block, or a timestamp out of range.
    public func parse(line rawLine: Substring, lineNumber: Int) throws(RecordingError) -> IMUSample? {
        var line = rawLine
        if line.hasSuffix("\r") { line = line.dropLast() }
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return nil }
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == fieldCount else {
            throw .malformedRow(line: lineNumber,
                                reason: "expected \(fieldCount) fields, found \(fields.count)")
        }
        let names = format.columnNames
        func isEmpty(_ k: Int) -> Bool { fields[indices[k]].allSatisfy { $0 == " " } }

        if format == .ncsu {
            let filled = (1...6).filter { !isEmpty($0) }.count
            if filled == 0 { return nil }  // an estimate row of the IMU's own filter
            if filled != 6 {
                throw .malformedRow(line: lineNumber,
                                    reason: "raw block partly empty (\(filled) of 6 accelerometer/gyroscope fields)")
            }
        }

        func number(_ k: Int) throws(RecordingError) -> Double {
            let text = trimmed(fields[indices[k]])
            guard let v = Double(text), v.isFinite else {
                throw .malformedRow(line: lineNumber, reason: "\(names[k]): '\(RecordingError.printable(text))' is not a finite number")
            }
            return v
        }

        // Timestamp.
        let timestamp: Int64
        let timeText = trimmed(fields[indices[0]])
        if format.timeIsNanoseconds {
            guard let ns = Int64(timeText) else {
                throw .malformedRow(line: lineNumber, reason: "\(names[0]): '\(RecordingError.printable(timeText))' is not an integer nanosecond count")
            }
            timestamp = ns
        } else {
            let seconds = try number(0)
            // ±9.2e9 s is Int64's range in ns; anything near it is not a plausible recording.
            guard abs(seconds) < 9.0e9 else {
                throw .malformedRow(line: lineNumber, reason: "\(names[0]): '\(RecordingError.printable(timeText))' is out of range")
            }
            timestamp = Int64((seconds * 1e9).rounded())
        }

        let a = Vector3(try number(1), try number(2), try number(3)) * format.accelToSI

        var gyro: Vector3?
        let gyroEmpty = (4...6).filter { isEmpty($0) }.count
        if gyroEmpty == 3 && format == .native {
            gyro = nil  // accelerometer-only sensor (docs/CLI.md "record")
        } else if gyroEmpty != 0 {
            throw .malformedRow(line: lineNumber, reason: "gyroscope fields partly empty (\(3 - gyroEmpty) of 3 given)")
        } else {
            gyro = Vector3(try number(4), try number(5), try number(6)) * format.gyroToSI
        }
        return IMUSample(timestampNanoseconds: timestamp, accel: a, gyro: gyro)
    }

    private func trimmed(_ s: Substring) -> Substring {
        var f = s
        while f.first == " " { f = f.dropFirst() }
        while f.last == " " { f = f.dropLast() }
        return f
    }
}
