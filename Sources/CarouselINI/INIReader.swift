import CarouselPosix
import CInih
#if canImport(Glibc)
import Glibc
#endif

/// Reads INI text with libinih (r55, `ini_parse_stream`), giving every key its line number.
///
/// Debian builds libinih with `INI_HANDLER_LINENO 0`, so its handler is called without a line
/// number. This reader hands libinih the text one line at a time through the stream reader
/// callback and counts the lines it hands out: libinih calls the handler for a key while it
/// processes the line it was just given, so the count is the key's line.
///
/// libinih's rules (r55 defaults, which Debian keeps): whitespace is stripped at both ends; a
/// line starting with `;` or `#` is a comment; `[name]` starts a section; otherwise the key runs
/// to the first `=` or `:`; an inline comment starts at a `;` after whitespace; a UTF-8 BOM on
/// line 1 is skipped; lines end at `\n` (a `\r` before it is whitespace). On top of libinih, this
/// reader refuses what libinih would accept silently or misread: a line longer than libinih's
/// buffer, a NUL byte, an indented continuation line, a key before any section, and a value
/// that is not UTF-8 text (its invalid bytes read as U+FFFD; comments may hold any bytes).
public enum INIReader {
    /// The largest file `readFile` reads, in bytes (1 MiB): an INI file is small, and a device or
    /// a huge file is refused rather than read whole.
    public static let maximumFileBytes = 1 << 20

    /// Parses INI text.
    ///
    /// - Returns: every `key = value` in file order with its 1-based line, and every `[section]`
    ///   header in file order.
    /// - Throws: `INIError` for the first problem in line order: `.syntax` (a line libinih cannot
    ///   parse, or a NUL byte), `.lineTooLong`, `.continuationLine`, `.keyOutsideSection`,
    ///   `.valueNotUTF8` (a value holding U+FFFD, which is what an invalid byte decodes to).
    public static func parse(_ text: String) throws(INIError) -> INIDocument {
        let stream = INILineStream(text)
        let status = withExtendedLifetime(stream) {
            let context = Unmanaged.passUnretained(stream).toOpaque()
            return ini_parse_stream({ buffer, capacity, context in
                guard let buffer, let context else { return nil }
                return Unmanaged<INILineStream>.fromOpaque(context).takeUnretainedValue()
                    .nextLine(into: buffer, capacity: Int(capacity))
            }, context, { context, section, key, value in
                guard let context else { return 0 }
                Unmanaged<INILineStream>.fromOpaque(context).takeUnretainedValue().record(
                    section: section.map { String(cString: $0) } ?? "",
                    key: key.map { String(cString: $0) } ?? "",
                    value: value.map { String(cString: $0) } ?? "")
                // Always continue: libinih's return value then reports its own syntax errors only.
                return 1
            }, context)
        }
        // libinih returns the first line it could not parse; the stream stops at its own first
        // problem, so whichever comes first in the file is reported.
        if status > 0, stream.problem.map({ Int(status) < $0.line }) ?? true {
            throw .syntax(line: Int(status), text: stream.displayText(ofLine: Int(status)))
        }
        if let problem = stream.problem { throw problem }
        return INIDocument(entries: stream.entries, sections: stream.sections)
    }

    /// Reads a whole regular file as UTF-8 text (invalid bytes become U+FFFD), through
    /// `BoundedFile` (open without blocking, fstat, read at most `maximumFileBytes`).
    ///
    /// - Throws: `INIFileError.missing(path:)` when there is no file at `path`,
    ///   `.unreadable(path:errno:)` when it cannot be opened or read, is a directory (`EISDIR`)
    ///   or is larger than `maximumFileBytes` (`EFBIG`), `.notRegularFile(path:kind:)` for a
    ///   FIFO, a device or a socket.
    public static func readFile(_ path: String) throws(INIFileError) -> String {
        do {
            return String(decoding: try BoundedFile.read(path, limit: maximumFileBytes), as: UTF8.self)
        } catch {
            switch error {
            case .system(let e) where e.rawValue == ENOENT: throw .missing(path: path)
            case .system(let e): throw .unreadable(path: path, errno: e.rawValue)
            case .notRegular(kind: "a directory"): throw .unreadable(path: path, errno: EISDIR)
            case .notRegular(let kind): throw .notRegularFile(path: path, kind: kind)
            case .tooLarge: throw .unreadable(path: path, errno: EFBIG)
            }
        }
    }
}
