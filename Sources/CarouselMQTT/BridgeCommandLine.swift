import CarouselProtocol
import CarouselService
import Mosquitto
#if canImport(Glibc)
import Glibc
#endif

/// `carousel-mqtt [--config PATH] [--check-config] [--verbose]`: flags, configuration, and the
/// bridge's run. Exit statuses as docs/MQTT.md "Configuration" lists them (the sysexits.h codes
/// of docs/SERVICE.md "Exit statuses").
public enum BridgeCommandLine {
    /// Where the packaged unit points `--config`.
    public static let defaultConfigPath = "/etc/carouseld/carousel-mqtt.conf"

    public static let help = """
    Usage: carousel-mqtt [--config PATH] [--check-config] [--verbose]

    Bridges carouseld's Unix socket and an MQTT broker: publishes the carousel state (retained)
    and the bridge's availability (retained; "offline" is its last will) under
    <topic_prefix>/<device_id>/, turns the command topics set/index, set/count, set/tilt and
    recenter into carouseld control commands, and announces the device to Home Assistant
    through MQTT discovery. See \(ReferencePages.current.page("MQTT.md")).

    Options:
      -c, --config PATH   configuration file (default \(defaultConfigPath), which lists
                          every key with its unit and default as installed)
          --check-config  read the configuration and the password file, print the settings
                          in effect, and exit (0 when valid)
      -v, --verbose       also log debug lines
      -h, --help          show this help
          --version       show the version

    Logging: one line per event on standard error; with the "<N>" priority prefix journald
    reads when standard error is the journal (systemd sets JOURNAL_STREAM), otherwise
    "carousel-mqtt: LEVEL: message".

    Signals: SIGTERM/SIGINT publish "offline" and disconnect cleanly; SIGHUP republishes the
    retained state, availability and discovery.

    Exit status: 0 ok, 64 usage, 66 configuration file missing, 70 internal error,
    74 configuration file unreadable, 77 permission denied reading it, 78 configuration
    error (not restarted by carousel-mqtt.service).
    """

    /// Runs the command with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> ExitStatus {
        var configPath = defaultConfigPath
        var checkOnly = false
        var verbose = false
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "-h", "--help": write(help + "\n", to: STDOUT_FILENO); return .ok
            case "--version":
                write("carousel-mqtt \(carouseldRelease) (libmosquitto \(MosquittoClient.libraryVersion))\n", to: STDOUT_FILENO)
                return .ok
            case "--check-config": checkOnly = true
            case "-v", "--verbose": verbose = true
            case "-c", "--config":
                guard i + 1 < arguments.count else { return usage("\(argument) needs a PATH") }
                i += 1
                configPath = arguments[i]
            default:
                if argument.hasPrefix("--config=") {
                    configPath = String(argument.dropFirst("--config=".count))
                } else {
                    return usage("unknown argument '\(argument)'")
                }
            }
            i += 1
        }
        let log = Logger.standardError(threshold: verbose ? .debug : .info,
                                       format: standardErrorIsJournal ? .journal : .plain,
                                       programName: "carousel-mqtt")
        let configuration: BridgeConfiguration
        let password: String?
        do {
            configuration = try BridgeConfigurationLoader.load(path: configPath, hostName: hostName())
            password = try configuration.passwordFile.map { path throws(BridgeConfigurationError) in
                try BridgeConfigurationLoader.readPassword(path, configPath: configPath, line: configuration.passwordFileLine)
            }
            try checkReadable(configuration, configPath: configPath)
        } catch {
            log.error(error.description)
            return error.exitStatus
        }
        if checkOnly {
            write(summary(configuration, path: configPath), to: STDOUT_FILENO)
            return .ok
        }
        let bridge: Bridge
        do {
            bridge = try Bridge(configuration: configuration, password: password, log: log)
        } catch {
            log.error("\(configPath): \(error)")
            return .configuration
        }
        return bridge.run()
    }

    /// The TLS files must be readable by this user now (libmosquitto would only say "Invalid
    /// arguments provided" later, without naming the key).
    static func checkReadable(_ c: BridgeConfiguration, configPath: String) throws(BridgeConfigurationError) {
        for (key, path) in [("ca_file", c.caFile), ("cert_file", c.certificateFile), ("key_file", c.keyFile)] {
            guard let path, access(path, R_OK) != 0 else { continue }
            let reason = String(cString: strerror(errno))
            throw BridgeConfigurationError(path: configPath, section: "broker", key: key, message: "cannot read \(path): \(reason)")
        }
    }

    private static func usage(_ problem: String) -> ExitStatus {
        write("carousel-mqtt: \(problem)\nTry 'carousel-mqtt --help'.\n", to: STDERR_FILENO)
        return .usage
    }

    /// The settings in effect, for `--check-config`.
    static func summary(_ c: BridgeConfiguration, path: String) -> String {
        let t = c.topics
        return """
        \(path): configuration OK
        carouseld socket:  \(c.socketPath)
        broker:            \(c.brokerHost):\(c.effectivePort)\(c.usesTLS ? " with TLS (CA \(c.caFile ?? ""))" : " without TLS")
        client id:         \(c.effectiveClientID)
        credentials:       \(c.username.map { "user '\($0)'" + (c.passwordFile != nil ? " with password file" : "") } ?? "none")
        qos, keepalive:    \(c.qos), \(c.keepaliveSeconds) s
        device id:         \(c.deviceID)\(c.deviceIDAsWritten.map { " (written '\(LogPayloadText.shown(daemonText: $0))': any id that reduces to \(c.deviceID) shares its topics and client id)" } ?? "")
        daemon liveness:   offline after \(WireJSONWriter.format(c.daemonLivenessTimeoutSeconds)) s without a word (a poll after half of it)
        state:             \(t.state) (retained)
        availability:      \(t.availability) (retained, last will "offline")
        commands:          \(BridgeCommand.allCases.map { t.command($0) }.joined(separator: ", "))
        errors:            \(t.error)
        position updates:  at most \(WireJSONWriter.format(c.positionMaximumRateHz)) Hz while moving
        home assistant:    \(c.homeAssistantEnabled ? "discovery under \(c.discoveryPrefix)/, republished at most every \(WireJSONWriter.format(c.discoveryRepublishMinimumIntervalSeconds)) s" : "off")

        """
    }

    /// Whether standard error is the journal: systemd sets `JOURNAL_STREAM=DEV:INODE` to the
    /// stream it connected, and a process whose stderr was redirected since no longer matches.
    static var standardErrorIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// `gethostname(2)`, the default `[device] id`.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "carouseld" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func write(_ text: String, to fd: Int32) { TextOutput.write(text, to: fd) }
}
