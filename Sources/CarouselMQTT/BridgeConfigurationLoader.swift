import CarouselINI
import CarouselProtocol
import Mosquitto
#if canImport(Glibc)
import Glibc
#endif

/// Reads carousel-mqtt's INI file (`configs/carousel-mqtt.conf`) through `CarouselINI`
/// (libinih with exact line numbers): every key in `keys` once at most, unknown sections and
/// keys refused, each value checked by its key's parser, then the rules between keys.
public enum BridgeConfigurationLoader {
    /// What a value must look like, for the error message ("a whole number from 1 to 65535").
    struct ValueProblem: Error { var expected: String }

    /// One configuration key: where it lives and how its text changes the configuration.
    struct Key: Sendable {
        let section: String
        let name: String
        let apply: @Sendable (inout BridgeConfiguration, String) throws(ValueProblem) -> Void
    }

    /// Every key of the file, in the file's order.
    static let keys: [Key] = [
        Key(section: "daemon", name: "socket") { c, v throws(ValueProblem) in c.socketPath = try path(v) },
        Key(section: "daemon", name: "reconnect_min_s") { c, v throws(ValueProblem) in
            c.daemonReconnectMinimumSeconds = try number(v, 0.01...3600, "seconds") },
        Key(section: "daemon", name: "reconnect_max_s") { c, v throws(ValueProblem) in
            c.daemonReconnectMaximumSeconds = try number(v, 0.01...3600, "seconds") },
        Key(section: "daemon", name: "liveness_timeout_s") { c, v throws(ValueProblem) in
            c.daemonLivenessTimeoutSeconds = try number(v, 0.5...3600, "seconds") },
        Key(section: "broker", name: "host") { c, v throws(ValueProblem) in
            guard !v.isEmpty, !v.contains(where: { $0 == " " || $0 == "/" || $0.asciiValue.map { $0 < 0x20 } == true }) else {
                throw ValueProblem(expected: "a host name or IP address")
            }
            c.brokerHost = v
        },
        Key(section: "broker", name: "port") { c, v throws(ValueProblem) in c.brokerPort = try integer(v, 1...65535, "") },
        Key(section: "broker", name: "username") { c, v throws(ValueProblem) in c.username = try mqttString(v, "a user name") },
        Key(section: "broker", name: "password_file") { c, v throws(ValueProblem) in c.passwordFile = try path(v) },
        Key(section: "broker", name: "ca_file") { c, v throws(ValueProblem) in c.caFile = try path(v) },
        Key(section: "broker", name: "cert_file") { c, v throws(ValueProblem) in c.certificateFile = try path(v) },
        Key(section: "broker", name: "key_file") { c, v throws(ValueProblem) in c.keyFile = try path(v) },
        Key(section: "broker", name: "client_id") { c, v throws(ValueProblem) in
            let id = try mqttString(v, "an MQTT client identifier")
            guard id.utf8.count <= 65535 else { throw ValueProblem(expected: "at most 65535 bytes") }
            c.clientID = id
        },
        Key(section: "broker", name: "qos") { c, v throws(ValueProblem) in c.qos = try integer(v, 0...2, "") },
        Key(section: "broker", name: "keepalive_s") { c, v throws(ValueProblem) in c.keepaliveSeconds = try integer(v, 5...65535, "seconds") },
        Key(section: "broker", name: "reconnect_min_s") { c, v throws(ValueProblem) in
            c.brokerReconnectMinimumSeconds = try number(v, 0.01...3600, "seconds") },
        Key(section: "broker", name: "reconnect_max_s") { c, v throws(ValueProblem) in
            c.brokerReconnectMaximumSeconds = try number(v, 0.01...3600, "seconds") },
        Key(section: "device", name: "id") { c, v throws(ValueProblem) in
            let id = DeviceIdentifier.sanitized(v)
            guard !id.isEmpty else { throw ValueProblem(expected: "a device name (letters, digits, _ and -; others become _)") }
            c.deviceID = id
            c.deviceIDAsWritten = v
        },
        Key(section: "device", name: "topic_prefix") { c, v throws(ValueProblem) in c.topicPrefix = try topicLevels(v) },
        Key(section: "publish", name: "position_max_hz") { c, v throws(ValueProblem) in
            c.positionMaximumRateHz = try number(v, 0...60, "Hz") },
        Key(section: "homeassistant", name: "enabled") { c, v throws(ValueProblem) in c.homeAssistantEnabled = try bool(v) },
        Key(section: "homeassistant", name: "discovery_prefix") { c, v throws(ValueProblem) in c.discoveryPrefix = try topicLevels(v) },
        Key(section: "homeassistant", name: "republish_min_interval_s") { c, v throws(ValueProblem) in
            c.discoveryRepublishMinimumIntervalSeconds = try number(v, 0.1...86400, "seconds") },
    ]

    static var sections: [String] {
        var result: [String] = []
        for key in keys where !result.contains(key.section) { result.append(key.section) }
        return result
    }

    /// Reads and checks the file at `path`.
    /// - Parameter hostName: the default `[device] id`.
    /// - Throws: `BridgeConfigurationError` (exit 66 for a missing file, 77 without permission to
    ///   read it, 74 on other read errors, 78 for its contents).
    public static func load(path: String, hostName: String) throws(BridgeConfigurationError) -> BridgeConfiguration {
        let text: String
        do { text = try INIReader.readFile(path) } catch {
            let status: ExitStatus
            switch error {
            case .missing: status = .noInput
            case let .unreadable(_, code): status = code == EACCES || code == EPERM ? .noPermission : .ioError
            case .notRegularFile: status = .ioError
            }
            throw BridgeConfigurationError(path: path, message: "cannot read the configuration: \(reason(error))", exitStatus: status)
        }
        return try parse(text, path: path, hostName: hostName)
    }

    /// Checks configuration `text` as if read from `path`.
    public static func parse(_ text: String, path: String, hostName: String) throws(BridgeConfigurationError) -> BridgeConfiguration {
        let document: INIDocument
        do { document = try INIReader.parse(text) } catch {
            throw syntaxError(error, path: path)
        }
        var configuration = BridgeConfiguration(deviceID: hostName)
        if configuration.deviceID.isEmpty { configuration.deviceID = "carouseld" }
        for section in document.sections where !sections.contains(section.name) {
            throw BridgeConfigurationError(path: path, line: section.line, section: section.name,
                                           message: "unknown section; known sections: " + sections.map { "[\($0)]" }.joined(separator: ", "))
        }
        var seen: [String: Int] = [:]
        var firstLine: [String: Int] = [:]
        for entry in document.entries {
            guard sections.contains(entry.section) else {
                throw BridgeConfigurationError(path: path, line: entry.line, section: entry.section,
                                               message: "unknown section; known sections: " + sections.map { "[\($0)]" }.joined(separator: ", "))
            }
            guard let key = keys.first(where: { $0.section == entry.section && $0.name == entry.key }) else {
                let known = keys.filter { $0.section == entry.section }.map(\.name).joined(separator: ", ")
                throw BridgeConfigurationError(path: path, line: entry.line, section: entry.section, key: entry.key,
                                               message: "unknown key; [\(entry.section)] has \(known)")
            }
            let id = entry.section + "." + entry.key
            if let first = seen[id] {
                throw BridgeConfigurationError(path: path, line: entry.line, section: entry.section, key: entry.key,
                                               message: "repeated (first set on line \(first))")
            }
            seen[id] = entry.line
            firstLine[id] = entry.line
            do { try key.apply(&configuration, entry.value) } catch {
                throw BridgeConfigurationError(path: path, line: entry.line, section: entry.section, key: entry.key,
                                               message: "'\(entry.value)' is not \(error.expected)")
            }
        }
        configuration.passwordFileLine = firstLine["broker.password_file"]
        try checkRules(configuration, path: path, lines: firstLine)
        return configuration
    }

    private static func checkRules(_ c: BridgeConfiguration, path: String, lines: [String: Int]) throws(BridgeConfigurationError) {
        func fail(_ section: String, _ key: String, _ message: String) -> BridgeConfigurationError {
            BridgeConfigurationError(path: path, line: lines[section + "." + key], section: section, key: key, message: message)
        }
        if (c.certificateFile == nil) != (c.keyFile == nil) {
            throw fail("broker", c.certificateFile == nil ? "key_file" : "cert_file", "cert_file and key_file go together (TLS client authentication)")
        }
        if c.certificateFile != nil, c.caFile == nil {
            throw fail("broker", "cert_file", "needs ca_file: TLS is on only when ca_file is set")
        }
        if c.passwordFile != nil, c.username == nil {
            throw fail("broker", "password_file", "needs username")
        }
        if c.brokerReconnectMinimumSeconds > c.brokerReconnectMaximumSeconds {
            throw fail("broker", "reconnect_max_s", "must be ≥ reconnect_min_s")
        }
        if c.daemonReconnectMinimumSeconds > c.daemonReconnectMaximumSeconds {
            throw fail("daemon", "reconnect_max_s", "must be ≥ reconnect_min_s")
        }
        let longest = BridgeCommand.allCases.map { c.topics.command($0) } + [c.topics.availability, c.topics.state, c.topics.error]
        if let topic = longest.first(where: { !MosquittoText.isPublishableTopic($0) }) {
            throw fail("device", "topic_prefix", "makes the topic \(topic.utf8.count) bytes long; MQTT allows 65535")
        }
    }

    private static func syntaxError(_ error: INIError, path: String) -> BridgeConfigurationError {
        switch error {
        case let .syntax(line, text):
            return BridgeConfigurationError(path: path, line: line, message: "not a [section] or key = value line: '\(text)'")
        case let .lineTooLong(line, maximum):
            return BridgeConfigurationError(path: path, line: line, message: "line longer than \(maximum) bytes")
        case let .continuationLine(line, section, key):
            return BridgeConfigurationError(path: path, line: line, message: INIError.indentedLineText(section: section, key: key))
        case let .keyOutsideSection(line, key):
            return BridgeConfigurationError(path: path, line: line, key: key, message: "key before any [section]")
        case let .valueNotUTF8(line, section, key):
            return BridgeConfigurationError(path: path, line: line, section: section, key: key, message: INIError.notUTF8Text)
        }
    }

    /// The password: the first line of `path` without its newline (a file of mode 0600 or 0640
    /// owned by the bridge's user keeps it out of the configuration, which may be world-readable).
    /// - Parameters:
    ///   - path: the password file.
    ///   - configPath, line: the configuration and the line that names it, for errors.
    /// - Throws: `BridgeConfigurationError` naming `[broker] password_file` and its line.
    public static func readPassword(_ path: String, configPath: String, line: Int? = nil) throws(BridgeConfigurationError) -> String {
        let text: String
        do { text = try INIReader.readFile(path) } catch {
            throw BridgeConfigurationError(path: configPath, line: line, section: "broker", key: "password_file",
                                           message: "cannot read \(path): \(reason(error))")
        }
        var password = Substring(text)
        if let newline = password.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) { password = password[..<newline] }
        if password.hasSuffix("\r") { password = password.dropLast() }
        guard !password.isEmpty else {
            throw BridgeConfigurationError(path: configPath, line: line, section: "broker", key: "password_file",
                                           message: "\(path) is empty; its first line is the password")
        }
        // Read as UTF-8, a byte that is not would reach the broker as U+FFFD: another password,
        // refused there as "not authorised" with nothing to say why.
        guard !password.unicodeScalars.contains("\u{FFFD}") else {
            throw BridgeConfigurationError(path: configPath, line: line, section: "broker", key: "password_file",
                                           message: "the first line of \(path) is not UTF-8 text; write the password in UTF-8")
        }
        return String(password)
    }

    private static func reason(_ error: INIFileError) -> String {
        switch error {
        case .missing: return "no such file"
        case let .unreadable(_, code): return String(cString: strerror(code)) + " (errno \(code))"
        case let .notRegularFile(_, kind): return "not a regular file but \(kind)"
        }
    }

    // MARK: Value syntaxes

    static func text(_ v: String, _ what: String) throws(ValueProblem) -> String {
        guard !v.isEmpty, !v.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ValueProblem(expected: what + " without control characters")
        }
        return v
    }

    static func path(_ v: String) throws(ValueProblem) -> String {
        let p = try text(v, "an absolute path")
        guard p.hasPrefix("/") else { throw ValueProblem(expected: "an absolute path") }
        return p
    }

    static func bool(_ v: String) throws(ValueProblem) -> Bool {
        switch v.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw ValueProblem(expected: "yes or no (also true/false, on/off, 1/0)")
        }
    }

    static func integer(_ v: String, _ range: ClosedRange<Int>, _ unit: String) throws(ValueProblem) -> Int {
        guard let n = Int(v), range.contains(n) else {
            throw ValueProblem(expected: "a whole number from \(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " (\(unit))"))
        }
        return n
    }

    static func number(_ v: String, _ range: ClosedRange<Double>, _ unit: String) throws(ValueProblem) -> Double {
        // Decimal only: Double(String) would also take "nan", "inf" and hex floats.
        guard !v.isEmpty, v.allSatisfy({ "0123456789+-.eE".contains($0) }), let n = Double(v), n.isFinite, range.contains(n) else {
            throw ValueProblem(expected: "a number from \(WireJSONWriter.format(range.lowerBound)) to \(WireJSONWriter.format(range.upperBound)) (\(unit))")
        }
        return n
    }

    /// Text that goes into an MQTT packet as a UTF-8 string: `text`, and valid for the broker
    /// (`MosquittoText.isValidUTF8`: no C1 control such as U+0085, no non-character such as U+FFFF).
    static func mqttString(_ v: String, _ what: String) throws(ValueProblem) -> String {
        let t = try text(v, what)
        guard MosquittoText.isValidUTF8(t) else {
            throw ValueProblem(expected: what + " that MQTT allows (no control characters such as U+0085, no non-characters such as U+FFFF)")
        }
        return t
    }

    /// One or more MQTT topic levels: no wildcards (`+`, `#`), no empty level, no leading or
    /// trailing `/`, no first level starting with `$` (the broker's own topics such as `$SYS/…`
    /// and shared subscriptions `$share/…`: a client cannot publish there), and MQTT UTF-8
    /// (`mqttString`).
    static func topicLevels(_ v: String) throws(ValueProblem) -> String {
        let expected = "topic levels such as carouseld or site/lobby (no +, #, empty level or leading $)"
        let t = try text(v, expected)
        guard !t.contains("+"), !t.contains("#"), !t.hasPrefix("$"),
              !t.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw ValueProblem(expected: expected)
        }
        return try mqttString(t, expected)
    }
}
