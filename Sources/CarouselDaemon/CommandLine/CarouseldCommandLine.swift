import CarouselConfig
import CarouselProtocol
import CarouselService
#if canImport(Glibc)
import Glibc
#endif

/// What `carouseld` was asked to do.
public enum CarouseldAction: Equatable, Sendable {
    /// Run the daemon.
    case run(CarouseldOptions)
    /// `--check-config`: validate the configuration and exit.
    case checkConfig(CarouseldOptions)
    /// `--help`.
    case help
    /// `--version`.
    case version
}

/// The options of `carouseld` (see `CarouseldCommandLine.helpText`).
public struct CarouseldOptions: Equatable, Sendable {
    /// `-c/--config PATH`, or `DaemonConfiguration.defaultPath`.
    public var configPath: String = DaemonConfiguration.defaultPath
    /// Whether `--config` was given: then a missing file is an error (exit 66); a missing
    /// default file means built-in defaults.
    public var configPathIsExplicit = false
    /// `--socket PATH`: overrides `[server] socket`.
    public var socketPath: String?
    /// `--foreground`: human-readable log lines for a terminal instead of journald prefixes.
    public var foreground = false
    /// `-v/--verbose`: log debug lines.
    public var verbose = false

    public init() {}
}

/// A command-line mistake (exit 64).
public struct CarouseldUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. "unknown option '--foo'".
    public var message: String
    public var description: String { message }
}

/// The `carouseld` command line: parsing, help, and the start-up sequence shared by `main`.
public enum CarouseldCommandLine {
    /// Parses the arguments after the program name.
    /// - Throws: `CarouseldUsageError` for an unknown option, a missing or empty option value,
    ///   or a stray argument.
    public static func parse(_ arguments: [String]) throws(CarouseldUsageError) -> CarouseldAction {
        var options = CarouseldOptions()
        var checkOnly = false
        var index = 0

        func value(for option: String, inline: String?) throws(CarouseldUsageError) -> String {
            if let inline {
                guard !inline.isEmpty else { throw CarouseldUsageError(message: "option '\(option)' needs a non-empty value") }
                return inline
            }
            index += 1
            guard index < arguments.count, !arguments[index].isEmpty else {
                throw CarouseldUsageError(message: "option '\(option)' needs a value")
            }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            let takesValue = ["-c", "--config", "--socket"].contains(name)
            if inline != nil && !takesValue && name.hasPrefix("--") && knownOptions.contains(name) {
                throw CarouseldUsageError(message: "option '\(name)' takes no value")
            }
            switch name {
            case "-h", "--help":
                return .help
            case "-V", "--version":
                return .version
            case "-c", "--config":
                options.configPath = try value(for: name, inline: inline)
                options.configPathIsExplicit = true
            case "--check-config":
                checkOnly = true
            case "--socket":
                let path = try value(for: name, inline: inline)
                guard path.hasPrefix("/") else {
                    throw CarouseldUsageError(message: "--socket needs an absolute path, got '\(path)'")
                }
                guard path.utf8.count <= 107 else {
                    throw CarouseldUsageError(message: "--socket path is longer than 107 bytes (sun_path)")
                }
                options.socketPath = path
            case "-f", "--foreground":
                options.foreground = true
            case "-v", "--verbose":
                options.verbose = true
            default:
                if argument.hasPrefix("-") && argument != "-" {
                    throw CarouseldUsageError(message: "unknown option '\(argument)'")
                }
                throw CarouseldUsageError(message: "unexpected argument '\(argument)' (carouseld takes options only)")
            }
            index += 1
        }
        return checkOnly ? .checkConfig(options) : .run(options)
    }

    /// The result of loading the configuration at start-up.
    public struct Loaded: Sendable {
        /// The configuration with command-line overrides applied.
        public var configuration: DaemonConfiguration
        /// The file it came from; `nil` for built-in defaults (default file absent).
        public var path: String?
        /// What the file is accepted with but should fix, each `FILE:LINE: …` (today: a last
        /// `key = value` without a newline, which a reload refuses).
        public var warnings: [String] = []
    }

    /// Loads the configuration as `carouseld` does: `path` if it exists; when it does not and
    /// `explicit` is false, the built-in defaults; then `--socket`; then
    /// `ConfigurationValidator` (a readable, playable `replay_file`, the STATE item budget).
    /// Start-up, `--check-config` and every reload load through here, so they accept and refuse
    /// the same files, with one difference: a last `key = value` line without a newline is a
    /// warning at start-up and for `--check-config` (`Loaded.warnings`), and refused when
    /// `reloading` (it may be a file caught half-written; docs/CONFIGURATION.md).
    /// - Throws: `ConfigurationError` (`fileMissing` only when `explicit`; `.truncated` only
    ///   when `reloading`; `.unusable` from the validator).
    public static func loadConfiguration(path: String, explicit: Bool, socketPathOverride: String?,
                                         reloading: Bool = false) throws(ConfigurationError) -> Loaded {
        var loaded: Loaded
        do {
            let configuration = try DaemonConfiguration.load(path: path, unterminatedLastLine: reloading ? .refused : .accepted)
            loaded = Loaded(configuration: configuration, path: path)
            if !reloading, let line = DaemonConfiguration.unterminatedKeyLine(inFile: path) {
                loaded.warnings.append("\(path):\(line): the file ends in this line, without a newline: a reload refuses "
                                       + "such a file (it may have been cut short while being written); end the line with a newline")
            }
        } catch .fileMissing where !explicit {
            loaded = Loaded(configuration: .defaults, path: nil)
        }
        if let socketPathOverride { loaded.configuration.server.socketPath = socketPathOverride }
        try ConfigurationValidator.validate(loaded.configuration, path: loaded.path)
        return loaded
    }

    /// Runs `carouseld` with `arguments` (after the program name) and returns the exit status.
    /// `output` receives stdout text (help, version, check results), `logger` everything else.
    /// `run` is the daemon's entry point (`runDaemon(options:)` by default).
    /// - Parameter errorOutputIsTerminal: `errorOutput` reaches a terminal (`isatty(2)`): log
    ///   lines are then laid out as with `--foreground`, since journald's `<3>` prefixes mean
    ///   nothing there.
    public static func main(arguments: [String],
                            output: @Sendable (String) -> Void,
                            errorOutput: @escaping @Sendable (String) -> Void,
                            errorOutputIsTerminal: Bool = false,
                            run: (DaemonOptions) -> ExitStatus = runDaemon(options:)) -> ExitStatus {
        let action: CarouseldAction
        do {
            action = try parse(arguments)
        } catch {
            errorOutput("carouseld: \(error.message)\nTry 'carouseld --help' for more information.\n")
            return .usage
        }
        switch action {
        case .help:
            output(helpText)
            return .ok
        case .version:
            output("carouseld \(carouseldRelease) (protocol \(protocolVersionText))\n")
            return .ok
        case .checkConfig(let options):
            do {
                let loaded = try loadConfiguration(path: options.configPath, explicit: options.configPathIsExplicit,
                                                   socketPathOverride: options.socketPath)
                for warning in loaded.warnings { errorOutput("carouseld: warning: \(warning)\n") }
                if let path = loaded.path {
                    output("\(path): configuration OK\n")
                } else {
                    output("\(options.configPath) not found: built-in defaults are valid\n")
                }
                return .ok
            } catch {
                errorOutput("carouseld: \(error.description)\n")
                return error.exitStatus
            }
        case .run(let options):
            let logger = Logger(threshold: options.verbose ? .debug : .info,
                                format: options.foreground || errorOutputIsTerminal ? .plain : .journal,
                                sink: errorOutput)
            let loaded: Loaded
            do {
                loaded = try loadConfiguration(path: options.configPath, explicit: options.configPathIsExplicit,
                                               socketPathOverride: options.socketPath)
            } catch {
                logger.error(error.description)
                return error.exitStatus
            }
            for warning in loaded.warnings { logger.warning(warning) }
            if loaded.path == nil {
                logger.notice("\(options.configPath) not found: running with built-in defaults")
            }
            return run(DaemonOptions(configuration: loaded.configuration, configurationPath: loaded.path,
                                     socketPathOverride: options.socketPath, logger: logger))
        }
    }

    /// Every long option, to tell "takes no value" from "unknown option".
    static let knownOptions = ["--help", "--version", "--config", "--check-config", "--socket", "--foreground", "--verbose"]

    /// `MAJOR.MINOR`, the socket protocol version this build speaks, as its greeting says it.
    static let protocolVersionText = "\(ServerMessage.protoMajor).\(ServerMessage.protoMinor)"
}

extension CarouseldCommandLine {
    /// Writes all of `text` to the file descriptor `fd` (stdout or stderr) with `write(2)`.
    public static func write(_ text: String, to fd: Int32) { TextOutput.write(text, to: fd) }
}
