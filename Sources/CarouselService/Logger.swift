#if canImport(Glibc)
import Glibc
#endif

/// A small logger: one line per event on standard error, shared by carouseld and the bridges.
///
/// In `.journal` format each line starts with the sd-daemon priority prefix (`<3>` … `<7>`), which
/// journald turns into the entry's priority when the service's stderr goes to the journal
/// (systemd's default). `.plain` writes `carouseld: warning: ...` for a terminal. Messages are
/// kept to one line (embedded newlines become `\n`) so the journal never splits an event.
public struct Logger: Sendable {
    /// How a line is laid out.
    public enum Format: Sendable, Equatable {
        /// `<4>message` — for journald (sd-daemon.h prefixes).
        case journal
        /// `carouseld: warning: message` — for a terminal.
        case plain
    }

    /// Lines less severe than this are dropped (`.info` by default, `.debug` with `-v`).
    public var threshold: LogLevel
    /// The line layout.
    public var format: Format
    private let write: @Sendable (String) -> Void

    /// The program named in `.plain` lines (`carouseld`, `carousel-mqtt`).
    public var programName: String

    /// A logger writing to `sink` (one call per complete line, newline included).
    public init(threshold: LogLevel = .info, format: Format = .journal, programName: String = "carouseld",
                sink: @escaping @Sendable (String) -> Void) {
        self.threshold = threshold
        self.format = format
        self.programName = programName
        self.write = sink
    }

    /// A logger writing to standard error with `write(2)` (the C `stderr` global is not usable
    /// from Swift 6, and `write` on a pipe of up to PIPE_BUF bytes is atomic, so lines from
    /// several processes in one journal stream do not interleave).
    public static func standardError(threshold: LogLevel = .info, format: Format = .journal,
                                     programName: String = "carouseld") -> Logger {
        Logger(threshold: threshold, format: format, programName: programName, sink: { TextOutput.write($0, to: STDERR_FILENO) })
    }

    /// Whether a message at `level` would be written (to skip building expensive messages).
    public func isEnabled(_ level: LogLevel) -> Bool { level <= threshold }

    /// Writes `message` at `level` if the threshold lets it through.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        write(formatLine(level, message()))
    }

    /// The exact line written for `message` at `level`, newline included.
    public func formatLine(_ level: LogLevel, _ message: String) -> String {
        var text = ""
        text.reserveCapacity(message.utf8.count + 16)
        for character in message.unicodeScalars {
            switch character {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            default: text.unicodeScalars.append(character)
            }
        }
        switch format {
        case .journal: return "<\(level.rawValue)>\(text)\n"
        case .plain: return "\(programName): \(level.name): \(text)\n"
        }
    }

    /// Logs at `.error`: the daemon cannot do what it was asked.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Logs at `.warning`: something is wrong but the daemon carries on.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Logs at `.notice`: a normal but significant event (start, stop, reload, sensor plugged).
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    /// Logs at `.info`.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs at `.debug` (only with `-v`).
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// This logger as a `LogSink` for sensor sources: each message keeps its own level.
    public var sink: LogSink { { level, message in self.log(level, message) } }
}
