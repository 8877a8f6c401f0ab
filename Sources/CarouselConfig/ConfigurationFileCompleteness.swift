import CarouselINI

/// Whether a configuration file looks whole, the rule `DaemonConfiguration.load(path:)` adds to
/// the parsing of its text (docs/CONFIGURATION.md "Empty and truncated files").
///
/// An editor or a configuration tool that is interrupted while writing (a full disk, a crash,
/// `>` redirected from a failing command) leaves an empty or cut-off file, and every key it
/// lost would silently fall back to its built-in default: on a reload that replaces a running
/// configuration the operator never asked to change. So a file is refused, and a reload keeps
/// the running configuration, when
///
/// - it holds no `[section]` header at all (zero bytes, blank, or only comments): a file that
///   asks for the built-in defaults on purpose says so with one header, e.g. just `[server]`;
/// - with `UnterminatedLastLine.refused` (a reload), its last line is a `key = value` line, or
///   a line libinih cannot read, without a newline after it: the write may have stopped inside
///   the value (`max_deg = 2` of `25`). Start-up and `--check-config` accept such a file and
///   warn (`unterminatedKeyLine`): some editors (Visual Studio Code by default) save without a
///   final newline, and a daemon that stops starting after an upgrade for that is worse than
///   the warning; a reload, which would replace a configuration that runs, refuses it.
///
/// A last line that is a comment or a `[section]` header may lack its newline: cutting either
/// short loses nothing (a cut-off header is a syntax error anyway).
/// What `DaemonConfiguration.load(path:unterminatedLastLine:)` does with a file whose last
/// `key = value` line has no newline after it (`ConfigurationFileCompleteness`).
public enum UnterminatedLastLine: Sendable, Hashable {
    /// Refused with `ConfigurationError.truncated` naming the line: what a reload asks for, so
    /// that a file caught half-written keeps the running configuration.
    case refused
    /// Loaded as it is; the caller warns (`DaemonConfiguration.unterminatedKeyLine(inFile:)`).
    case accepted
}

enum ConfigurationFileCompleteness {
    /// - Throws: `ConfigurationError.noSection`, or `.truncated` when `unterminated` is
    ///   `.refused`.
    static func check(text: String, document: INIDocument, path: String,
                      unterminated: UnterminatedLastLine) throws(ConfigurationError) {
        if document.sections.isEmpty { throw .noSection(path: path) }
        if unterminated == .refused, let last = unterminatedKeyLine(text: text, document: document) {
            throw .truncated(path: path, line: last)
        }
    }

    /// The line of the last `key = value` when it ends the text without a newline; nil otherwise.
    static func unterminatedKeyLine(text: String, document: INIDocument) -> Int? {
        guard let last = unterminatedLastLine(of: text), document.entries.contains(where: { $0.line == last }) else { return nil }
        return last
    }

    /// The 1-based number of the last line when the text does not end with a newline and that
    /// line is not empty; nil otherwise.
    static func unterminatedLastLine(of text: String) -> Int? {
        let bytes = text.utf8
        guard let last = bytes.last, last != 0x0A else { return nil }
        return bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}
