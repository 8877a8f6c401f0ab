import CarouselINI
#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// Reads and validates a configuration file.
    ///
    /// Keys the file leaves out keep their `defaults`. A relative `replay_file` or calibration
    /// `file` is resolved against the directory of `path` (so `configs/demo.conf` can name
    /// `../data/demo-recording.csv`). A file must look whole (`ConfigurationFileCompleteness`):
    /// at least one `[section]` header, and, when `unterminatedLastLine` is `.refused`, no
    /// `key = value` line without a newline at its end.
    /// - Throws: `ConfigurationError.fileMissing` when `path` does not exist,
    ///   `.unreadable` when it cannot be read, `.noSection` / `.truncated` for a file that looks
    ///   cut short, and the content errors of `parse(text:path:)`.
    public static func load(path: String,
                            unterminatedLastLine: UnterminatedLastLine = .accepted) throws(ConfigurationError) -> DaemonConfiguration {
        let text: String
        do {
            text = try INIReader.readFile(path)
        } catch {
            switch error {
            case .missing(let path): throw .fileMissing(path: path)
            case .unreadable(let path, let code): throw .unreadable(path: path, errno: code)
            case .notRegularFile(let path, let kind): throw .notRegularFile(path: path, kind: kind)
            }
        }
        return try parse(text: text, path: path, wholeFile: unterminatedLastLine)
    }

    /// The line of the file's last `key = value` when no newline follows it, the line a reload
    /// refuses and start-up warns about; nil when the file ends properly or cannot be read or
    /// parsed.
    public static func unterminatedKeyLine(inFile path: String) -> Int? {
        guard let text = try? INIReader.readFile(path), let document = try? INIReader.parse(text) else { return nil }
        return ConfigurationFileCompleteness.unterminatedKeyLine(text: text, document: document)
    }

    /// Parses configuration text with libinih and validates every key.
    ///
    /// - Parameters:
    ///   - text: the INI text: `[section]` headers, `key = value` lines, comments starting with
    ///     `;` or `#` at the start of a line, inline comments after ` ;`.
    ///   - path: the file the text came from, used in messages and to resolve relative paths
    ///     (a relative `path` is taken relative to the working directory).
    /// - Throws: `ConfigurationError` naming the problem by line: first a problem of the INI
    ///   text itself (a syntax error, an over-long or continuation line, a key outside any
    ///   section: `INIReader`), else the first in line order of an unknown section or key, a key
    ///   given twice, a bad value (with what is allowed), then inconsistent values.
    public static func parse(text: String, path: String) throws(ConfigurationError) -> DaemonConfiguration {
        try parse(text: text, path: path, wholeFile: nil)
    }

    /// `parse(text:path:)`; with `wholeFile`, `text` is a file's whole content and must look
    /// complete (`ConfigurationFileCompleteness`), its unterminated last line treated as said.
    private static func parse(text: String, path: String,
                              wholeFile: UnterminatedLastLine?) throws(ConfigurationError) -> DaemonConfiguration {
        let document: INIDocument
        do {
            document = try INIReader.parse(text)
        } catch {
            // A line libinih cannot read at the very end, with no newline: most likely cut short.
            if wholeFile == .refused, case let .syntax(line, _) = error,
               line == ConfigurationFileCompleteness.unterminatedLastLine(of: text) {
                throw .truncated(path: path, line: line)
            }
            throw ConfigurationError(error, path: path)
        }
        if let wholeFile {
            try ConfigurationFileCompleteness.check(text: text, document: document, path: path, unterminated: wholeFile)
        }
        // Sections and keys in line order, so the first problem in the file is the one reported.
        var sections = document.sections[...]
        var configuration = DaemonConfiguration.defaults
        var seen: [String: Int] = [:]
        for entry in document.entries {
            while let section = sections.first, section.line < entry.line {
                try checkSection(section, path: path)
                sections = sections.dropFirst()
            }
            try apply(entry, to: &configuration, seen: &seen, path: path)
        }
        for section in sections { try checkSection(section, path: path) }

        try validateCombinations(configuration, path: path, lineOf: { seen[$0] })
        configuration.resolveRelativePaths(configurationPath: path)
        return configuration
    }

    /// The line of the last `[section] key` in the file at `path`; nil when the file cannot be
    /// read or parsed or does not set the key.
    public static func line(of section: String, _ key: String, inFile path: String) -> Int? {
        guard let text = try? INIReader.readFile(path), let document = try? INIReader.parse(text) else { return nil }
        return document.entries.last { $0.section == section && $0.key == key }?.line
    }

    private static func checkSection(_ section: INISection, path: String) throws(ConfigurationError) {
        guard ConfigurationKeys.sections.contains(section.name) else {
            throw .unknownSection(path: path, line: section.line, section: section.name, known: ConfigurationKeys.sections)
        }
    }

    /// Stores one key's value, refusing unknown and repeated keys and bad values.
    private static func apply(_ entry: INIEntry, to configuration: inout DaemonConfiguration,
                              seen: inout [String: Int], path: String) throws(ConfigurationError) {
        // An unknown section is reported at its header, which precedes its keys.
        guard ConfigurationKeys.sections.contains(entry.section) else { return }
        guard let key = ConfigurationKeys.lookup(section: entry.section, name: entry.key) else {
            throw .unknownKey(path: path, line: entry.line, section: entry.section, key: entry.key,
                              known: ConfigurationKeys.names(in: entry.section))
        }
        let id = entry.section + "." + entry.key
        if let first = seen[id] {
            throw .duplicateKey(path: path, line: entry.line, section: entry.section, key: entry.key, firstLine: first)
        }
        seen[id] = entry.line
        do {
            try key.apply(entry.value, &configuration)
        } catch {
            throw .badValue(path: path, line: entry.line, section: entry.section, key: entry.key,
                            value: entry.value, expected: error.expected)
        }
    }

    /// Checks rules that involve more than one key.
    private static func validateCombinations(_ c: DaemonConfiguration, path: String,
                                             lineOf: (String) -> Int?) throws(ConfigurationError) {
        // Each number was range-checked as it was read; what remains is their order.
        do {
            try c.tilt.mapping.check()
        } catch {
            let key = lineOf("tilt.max_deg") != nil ? "max_deg" : "dead_zone_deg"
            throw .inconsistent(path: path, line: lineOf("tilt." + key), section: "tilt", key: key,
                                message: "max_deg (\(ConfigurationValue.format(c.tilt.mapping.maxDegrees))°) must be greater than dead_zone_deg (\(ConfigurationValue.format(c.tilt.mapping.deadZoneDegrees))°)")
        }
        if lineOf("server.control_reserve") != nil, c.server.controlReserve > c.server.maxClients / 2 {
            throw .inconsistent(path: path, line: lineOf("server.control_reserve"), section: "server", key: "control_reserve",
                                message: "\(c.server.controlReserve) is more than half of max_clients (\(c.server.maxClients)): "
                                    + "at most \(c.server.maxClients / 2), so that clients without control rights can connect")
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

/// The directory of the configuration file, for resolving relative paths (no Foundation).
public enum ConfigurationFile {
    /// `path` made absolute with the working directory when it is relative (`configs/demo.conf`
    /// run from `/home/u/carouseld` is `/home/u/carouseld/configs/demo.conf`), so that it means
    /// the same file to a client in another directory (STATUS `config_path`). `.` and `..` are
    /// kept; an absolute path is returned as it is.
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), !path.isEmpty else { return path }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        return directory(of: path) + "/" + name
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

