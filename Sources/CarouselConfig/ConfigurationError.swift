import CarouselINI
import CarouselProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Why a configuration file was refused. Every case names the file, and where it can the line,
/// section and key, so the message alone tells an operator what to fix.
///
/// `description` is the one-line message (`path:line: [section] key: ...`); `exitStatus` is the
/// process exit status it maps to (docs/CLI.md "EXIT STATUS").
public enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist (exit 66).
    case fileMissing(path: String)
    /// The file exists but cannot be read; `errno` from `open(2)`/`read(2)` (exit 77 for
    /// `EACCES`/`EPERM`, else 74).
    case unreadable(path: String, errno: Int32)
    /// The path names a FIFO, a device or a socket, refused unread (exit 74): a FIFO would keep
    /// a reload waiting for a writer.
    case notRegularFile(path: String, kind: String)
    /// libinih rejected the line (no `=`/`:` in a key line, an unterminated `[section`); libinih
    /// reports only the first such line. `text` is that line as written.
    case syntax(path: String, line: Int, text: String)
    /// A line longer than libinih's buffer (`maximum` bytes), which it would silently split.
    case lineTooLong(path: String, line: Int, maximum: Int)
    /// A line starting with whitespace after a key: libinih would append it to the previous key.
    case continuationLine(path: String, line: Int, section: String, key: String)
    /// A `[section]` this version does not know. `known` lists the sections it does.
    case unknownSection(path: String, line: Int, section: String, known: [String])
    /// A key before any `[section]` header.
    case keyOutsideSection(path: String, line: Int, key: String)
    /// A value that is not UTF-8 text (`INIError.valueNotUTF8`).
    case valueNotUTF8(path: String, line: Int, section: String, key: String)
    /// A key this version does not know in a known section. `known` lists that section's keys.
    case unknownKey(path: String, line: Int, section: String, key: String, known: [String])
    /// The same key twice in one section.
    case duplicateKey(path: String, line: Int, section: String, key: String, firstLine: Int)
    /// A value that does not parse or is out of range; `expected` says what is allowed
    /// (e.g. "one of iio, replay", "a number from 1 to 2000 (Hz)").
    case badValue(path: String, line: Int?, section: String, key: String, value: String, expected: String)
    /// Values that are fine alone but not together (e.g. `max_deg` not above `dead_zone_deg`);
    /// `line` is that of the key named, when the file sets it.
    case inconsistent(path: String, line: Int?, section: String, key: String, message: String)
    /// A value that parses but cannot be used: a `replay_file` that cannot be read or can never
    /// play, a geometry whose STATE would list too many items. Found by the daemon's
    /// configuration check, after the file itself was read; `line` is that of the key named.
    case unusable(path: String, line: Int?, section: String, key: String, message: String)
    /// The file holds no `[section]` header (it is empty, blank or only comments). Refused,
    /// since a write that was cut short leaves such a file and the built-in defaults would
    /// silently replace the running configuration; a file with a single header such as
    /// `[server]` asks for the defaults on purpose.
    case noSection(path: String)
    /// The file ends inside a `key = value` line, or a line libinih cannot read, with no newline
    /// after it: a write cut short there leaves a value that may read as a different valid one
    /// (`max_deg = 2` of `25`).
    case truncated(path: String, line: Int)

    /// The `INIReader` problem `error`, in the file at `path`.
    init(_ error: INIError, path: String) {
        switch error {
        case .syntax(let line, let text): self = .syntax(path: path, line: line, text: text)
        case .lineTooLong(let line, let maximum): self = .lineTooLong(path: path, line: line, maximum: maximum)
        case .continuationLine(let line, let section, let key):
            self = .continuationLine(path: path, line: line, section: section, key: key)
        case .keyOutsideSection(let line, let key): self = .keyOutsideSection(path: path, line: line, key: key)
        case .valueNotUTF8(let line, let section, let key):
            self = .valueNotUTF8(path: path, line: line, section: section, key: key)
        }
    }

    /// The exit status for this error (docs/CLI.md "EXIT STATUS"): 66 missing file, 77 permission denied,
    /// 74 other read errors, 78 anything wrong with the contents.
    public var exitStatus: ExitStatus {
        switch self {
        case .fileMissing: return .noInput
        case .unreadable(_, let code): return (code == EACCES || code == EPERM) ? .noPermission : .ioError
        case .notRegularFile: return .ioError
        default: return .configuration
        }
    }

    /// The path of the file concerned.
    public var path: String {
        switch self {
        case .fileMissing(let path), .unreadable(let path, _), .notRegularFile(let path, _): return path
        case .syntax(let path, _, _), .lineTooLong(let path, _, _),
             .continuationLine(let path, _, _, _), .unknownSection(let path, _, _, _),
             .keyOutsideSection(let path, _, _), .valueNotUTF8(let path, _, _, _), .unknownKey(let path, _, _, _, _),
             .duplicateKey(let path, _, _, _, _), .badValue(let path, _, _, _, _, _),
             .inconsistent(let path, _, _, _, _), .unusable(let path, _, _, _, _),
             .noSection(let path), .truncated(let path, _):
            return path
        }
    }

    /// The 1-based line concerned, when there is one.
    public var line: Int? {
        switch self {
        case .fileMissing, .unreadable, .notRegularFile, .noSection: return nil
        case .truncated(_, let line): return line
        case .syntax(_, let line, _), .lineTooLong(_, let line, _), .continuationLine(_, let line, _, _),
             .unknownSection(_, let line, _, _), .keyOutsideSection(_, let line, _), .valueNotUTF8(_, let line, _, _),
             .unknownKey(_, let line, _, _, _), .duplicateKey(_, let line, _, _, _):
            return line
        case .badValue(_, let line, _, _, _, _), .inconsistent(_, let line, _, _, _), .unusable(_, let line, _, _, _):
            return line
        }
    }

    /// One line: `path:line: what is wrong`. Text taken from the file is shown with control
    /// characters as `\xNN`, so a binary or hostile file cannot write escape sequences or line
    /// breaks into the journal or the operator's terminal.
    public var description: String {
        let location = line.map { "\(path):\($0)" } ?? path
        let shown = Self.visible
        switch self {
        case .fileMissing(let path):
            return "\(path): configuration file not found"
        case .unreadable(let path, let code):
            return "\(path): cannot read configuration file: \(String(cString: strerror(code))) (errno \(code))"
        case .notRegularFile(let path, let kind):
            return "\(path): cannot read configuration file: not a regular file but \(kind)"
        case .syntax(_, _, let text):
            return "\(location): syntax error: expected '[section]', 'key = value' or a comment, found '\(shown(text))'"
        case .lineTooLong(_, _, let maximum):
            return "\(location): line longer than \(maximum) bytes"
        case .continuationLine(_, _, let section, let key):
            return "\(location): " + INIError.indentedLineText(section: shown(section), key: shown(key))
        case .unknownSection(_, _, let section, let known):
            return "\(location): unknown section [\(shown(section))]; known sections: \(known.map { "[\($0)]" }.joined(separator: ", "))"
        case .keyOutsideSection(_, _, let key):
            return "\(location): key '\(shown(key))' before any [section] header"
        case .valueNotUTF8(_, _, let section, let key):
            return "\(location): [\(shown(section))] \(shown(key)): \(INIError.notUTF8Text)"
        case .unknownKey(_, _, let section, let key, let known):
            return "\(location): [\(shown(section))] unknown key '\(shown(key))'; known keys: \(known.joined(separator: ", "))"
        case .duplicateKey(_, _, let section, let key, let firstLine):
            return "\(location): [\(shown(section))] \(shown(key)): given twice (first on line \(firstLine))"
        case .badValue(_, _, let section, let key, let value, let expected):
            return "\(location): [\(shown(section))] \(shown(key)): bad value '\(shown(value))': expected \(expected)"
        case .inconsistent(_, _, let section, let key, let message), .unusable(_, _, let section, let key, let message):
            return "\(location): [\(section)] \(key): \(message)"
        case .noSection(let path):
            return "\(path): no [section] in the file (empty, blank or only comments), as a write cut short leaves it; "
                + "refused rather than running on the built-in defaults (a file with just a [server] line asks for them)"
        case .truncated:
            return "\(location): the file ends in this line, without a newline: "
                + "it may have been cut short while being written; end the line with a newline"
        }
    }

    /// `text` with C0 control characters and DEL as `\xNN` (a NUL already shows as `\0`).
    static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
