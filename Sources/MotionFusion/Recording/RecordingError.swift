/// Why a recording's text could not be turned into samples. Every case that concerns a row
/// carries its 1-based line number (the header is line 1), so a caller can report `file:line`.
public enum RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text holds no header line at all.
    case empty
    /// Line 1 matches none of the known formats (`RecordingFormat.detect`), or lacks a column
    /// that the requested format needs; `text` is the header as found.
    case unknownHeader(line: Int, text: String)
    /// A data row could not be parsed; `reason` names the column and the text found.
    case malformedRow(line: Int, reason: String)

    /// The 1-based line the error concerns (0 for `.empty`).
    public var line: Int {
        switch self {
        case .empty: return 0
        case let .unknownHeader(line, _), let .malformedRow(line, _): return line
        }
    }

    /// The reason without the line number, for callers that prefix `file:line:`.
    public var reason: String {
        switch self {
        case .empty: return "empty recording (no header line)"
        case let .unknownHeader(_, text):
            return "unrecognised header '\(text)' (expected native, x-io, BROAD or NCSU columns)"
        case let .malformedRow(_, reason): return reason
        }
    }

    public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
}
