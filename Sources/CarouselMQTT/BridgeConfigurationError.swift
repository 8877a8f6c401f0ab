import CarouselProtocol

/// A configuration problem, naming the file, line, section and key it concerns (what is known),
/// as `PATH:LINE: [section] key: message`.
public struct BridgeConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var section: String?
    public var key: String?
    public var message: String
    /// 66 missing, 77 permission denied, 74 other read errors, 78 its contents (sysexits.h; docs/MQTT.md "Configuration").
    public var exitStatus: ExitStatus

    public init(path: String, line: Int? = nil, section: String? = nil, key: String? = nil, message: String,
                exitStatus: ExitStatus = .configuration) {
        self.path = path
        self.line = line
        self.section = section
        self.key = key
        self.message = message
        self.exitStatus = exitStatus
    }

    public var description: String {
        var text = path
        if let line { text += ":\(line)" }
        text += ":"
        if let section { text += " [\(section)]" }
        if let key { text += " \(key)" }
        if section != nil || key != nil { text += ":" }
        return text + " " + message
    }
}
