/// Severity of a log line, with the syslog/sd-daemon priority numbers journald reads from a
/// `<N>` prefix (`sd-daemon.h`: `SD_ERR` 3 … `SD_DEBUG` 7). Defined here, below the sensor
/// sources (the lowest module that logs), so their messages carry a level rather than a prefix
/// in text.
public enum LogLevel: Int32, Sendable, CaseIterable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// The word used in human-readable output (`--foreground`).
    public var name: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .notice: return "notice"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    /// More severe levels compare smaller, as their priority numbers do.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a component (a sensor source, a bridge) reports events: one call per event, with its level and a one-line
/// message (no priority prefix: the receiver lays the line out, `<4>…` for journald or
/// `warning: …` for a terminal).
public typealias LogSink = (LogLevel, String) -> Void
