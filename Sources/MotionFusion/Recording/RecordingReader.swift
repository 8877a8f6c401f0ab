/// Parses a whole recording held in memory (MotionFusion does no file I/O: the caller reads the
/// file and reports errors as `file:line`).
public enum RecordingReader {
    /// Parses `text` (lines separated by `\n` or `\r\n`; line 1 is the header).
    /// - Parameters:
    ///   - text: the whole file as UTF-8 text.
    ///   - format: the expected format, or `nil` to recognise it from the header.
    /// - Returns: the samples in file order, in SI units (m/s², rad/s), timestamps in ns as
    ///   recorded (x-io and BROAD: seconds from the start × 1e9, rounded).
    /// - Throws: `RecordingError` with the 1-based line number of the first bad line.
    public static func parse(text: String, format: RecordingFormat? = nil) throws(RecordingError) -> [IMUSample] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let header = lines.popFirst(), !header.allSatisfy({ $0 == "\r" || $0 == " " }) else {
            throw .empty
        }
        let parser = try RecordingLineParser(header: header, format: format)
        var samples: [IMUSample] = []
        samples.reserveCapacity(lines.count)
        var lineNumber = 1
        for line in lines {
            lineNumber += 1
            if let sample = try parser.parse(line: line, lineNumber: lineNumber) {
                samples.append(sample)
            }
        }
        return samples
    }
}
