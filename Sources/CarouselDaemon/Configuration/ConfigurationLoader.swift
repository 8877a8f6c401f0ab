import CInih
#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// Reads and validates a configuration file.
    ///
    /// Keys the file leaves out keep their `defaults`. A relative `replay_file` or calibration
    /// `file` is resolved against the directory of `path` (so `configs/demo.conf` can name
    /// `../data/demo-recording.csv`).
    /// - Throws: `ConfigurationError.fileMissing` when `path` does not exist,
    ///   `.unreadable` when it cannot be read, and the content errors of `parse(text:path:)`.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let text = try ConfigurationFile.read(path)
        return try parse(text: text, path: path)
    }

    /// Parses configuration text with libinih and validates every key.
    ///
    /// - Parameters:
    ///   - text: the INI text: `[section]` headers, `key = value` lines, comments starting with
    ///     `;` or `#` at the start of a line, inline comments after ` ;`.
    ///   - path: the file the text came from, used in messages and to resolve relative paths
    ///     (a relative `path` is taken relative to the working directory).
    /// - Throws: `ConfigurationError` naming the first problem by line: a syntax error (the line
    ///   libinih reports), an over-long or continuation line, an unknown section or key, a key
    ///   given twice, a bad value (with what is allowed), or inconsistent values.
    public static func parse(text: String, path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let lines = IniLineScanner.scan(text)
        let parsed = IniParser.parse(text)

        // Pair libinih's key callbacks (in file order) with the scanned key lines, so each value
        // libinih produced has a line number (Debian's libinih is built without line numbers in
        // the handler).
        var entries = parsed.entries[...]
        var valueAtLine: [Int: String] = [:]
        for line in lines {
            switch line.kind {
            case .key(let section, let name), .continuation(let section, let name):
                if let entry = entries.first, entry.section == section, entry.name == name {
                    valueAtLine[line.number] = entry.value
                    entries = entries.dropFirst()
                }
            default:
                break
            }
        }

        var configuration = DaemonConfiguration.defaults
        var seen: [String: Int] = [:]
        for line in lines {
            if line.byteCount > IniLineScanner.maximumLineBytes {
                throw .lineTooLong(path: path, line: line.number, maximum: IniLineScanner.maximumLineBytes)
            }
            if line.containsNUL || line.number == parsed.syntaxErrorLine {
                throw .syntax(path: path, line: line.number, text: line.text)
            }
            switch line.kind {
            case .blank, .comment:
                continue
            case .malformed:
                throw .syntax(path: path, line: line.number, text: line.text)
            case .section(let name):
                guard ConfigurationKeys.sections.contains(name) else {
                    throw .unknownSection(path: path, line: line.number, section: name, known: ConfigurationKeys.sections)
                }
            case .continuation(let section, let name):
                throw .continuationLine(path: path, line: line.number, section: section, key: name)
            case .key(let section, let name):
                if section.isEmpty {
                    throw .keyOutsideSection(path: path, line: line.number, key: name)
                }
                guard let key = ConfigurationKeys.lookup(section: section, name: name) else {
                    throw .unknownKey(path: path, line: line.number, section: section, key: name,
                                      known: ConfigurationKeys.names(in: section))
                }
                let id = section + "." + name
                if let first = seen[id] {
                    throw .duplicateKey(path: path, line: line.number, section: section, key: name, firstLine: first)
                }
                seen[id] = line.number
                // A key line libinih did not report is impossible unless the scanner and libinih
                // disagree; refuse it rather than silently keep a default.
                guard let value = valueAtLine[line.number] else {
                    throw .syntax(path: path, line: line.number, text: line.text)
                }
                do {
                    try key.apply(value, &configuration)
                } catch {
                    throw .badValue(path: path, line: line.number, section: section, key: name,
                                    value: value, expected: error.expected)
                }
            }
        }
        if let line = parsed.syntaxErrorLine, line > lines.count {
            throw .syntax(path: path, line: line, text: "")
        }
        // Never drop a value silently: every key libinih saw must have been found on a line.
        if let stray = entries.first {
            throw .inconsistent(path: path, line: nil, section: stray.section, key: stray.name,
                                message: "libinih read this key but its line could not be located; check the file's line endings")
        }

        try validateCombinations(configuration, path: path, lineOf: { seen[$0] })
        configuration.resolveRelativePaths(configurationPath: path)
        return configuration
    }

    /// Checks rules that involve more than one key.
    private static func validateCombinations(_ c: DaemonConfiguration, path: String,
                                             lineOf: (String) -> Int?) throws(ConfigurationError) {
        if c.tilt.maxDeg <= c.tilt.deadZoneDeg {
            let key = lineOf("tilt.max_deg") != nil ? "max_deg" : "dead_zone_deg"
            throw .inconsistent(path: path, line: lineOf("tilt." + key), section: "tilt", key: key,
                                message: "max_deg (\(ConfigurationValue.format(c.tilt.maxDeg))°) must be greater than dead_zone_deg (\(ConfigurationValue.format(c.tilt.deadZoneDeg))°)")
        }
        if c.sensor.source == .replay && c.sensor.replayFile.isEmpty {
            throw .inconsistent(path: path, line: lineOf("sensor.source"), section: "sensor", key: "replay_file",
                                message: "source = replay needs replay_file (a native CSV recording)")
        }
    }

    /// Makes a relative `replay_file` and calibration `file` relative to the configuration
    /// file's directory (absolute when the working directory is known).
    mutating func resolveRelativePaths(configurationPath: String) {
        let directory = ConfigurationFile.directory(of: configurationPath)
        if !sensor.replayFile.isEmpty && !sensor.replayFile.hasPrefix("/") {
            sensor.replayFile = directory + "/" + sensor.replayFile
        }
        if !calibration.file.hasPrefix("/") {
            calibration.file = directory + "/" + calibration.file
        }
    }

    /// Every `(section, key)` the file format knows, in the order of `configs/carouseld.conf`.
    public static var knownKeys: [(section: String, key: String)] {
        ConfigurationKeys.all.map { ($0.section, $0.name) }
    }
}

/// Reading the file and naming its directory, with plain POSIX calls (no Foundation).
enum ConfigurationFile {
    /// The whole file as UTF-8 text (invalid bytes become U+FFFD).
    static func read(_ path: String) throws(ConfigurationError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw code == ENOENT ? .fileMissing(path: path) : .unreadable(path: path, errno: code)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            // A configuration file is small; refuse to slurp a device or a huge file.
            if bytes.count > 1 << 20 { throw .unreadable(path: path, errno: EFBIG) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The directory holding `path`, made absolute with the working directory when `path` is
    /// relative.
    static func directory(of path: String) -> String {
        var directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = String(path[..<slash])
            if directory.isEmpty { return "/" == path.prefix(1) ? "" : "." }
        } else {
            directory = "."
        }
        if !directory.hasPrefix("/"), let cwd = workingDirectory() {
            directory = directory == "." ? cwd : cwd + "/" + directory
        }
        return directory
    }

    private static func workingDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The libinih call: collects every `name = value` callback and the first syntax error line.
enum IniParser {
    struct Entry {
        var section: String
        var name: String
        var value: String
    }

    struct Result {
        var entries: [Entry]
        /// libinih's return value when positive: the first line it could not parse.
        var syntaxErrorLine: Int?
    }

    private final class Collector {
        var entries: [Entry] = []
    }

    /// Runs `ini_parse_string` (libinih r55) over `text`.
    static func parse(_ text: String) -> Result {
        let collector = Collector()
        let user = Unmanaged.passUnretained(collector).toOpaque()
        let status = withExtendedLifetime(collector) {
            text.withCString { cText in
                ini_parse_string(cText, { user, section, name, value in
                    guard let user else { return 0 }
                    let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
                    collector.entries.append(Entry(
                        section: section.map { String(cString: $0) } ?? "",
                        name: name.map { String(cString: $0) } ?? "",
                        value: value.map { String(cString: $0) } ?? ""))
                    // Always continue: libinih's return value then reports syntax errors only.
                    return 1
                }, user)
            }
        }
        return Result(entries: collector.entries, syntaxErrorLine: status > 0 ? Int(status) : nil)
    }
}
