#if canImport(Glibc)
import Glibc
#endif
import CarouselConfig

import CarouselProtocol

/// The daemon configuration as the operator commands see it: `--config PATH`, else
/// `/etc/carouseld/carouseld.conf` when it exists, else the built-in defaults. It gives the
/// default socket (`[server] socket`), calibration file (`[calibration] file`), sensor selector,
/// `accel_convention` and `display_rotation`.
struct OperatorSettings {
    /// The file the settings came from, nil for built-in defaults.
    var configPath: String?
    var configuration: DaemonConfiguration

    /// Options every client command accepts.
    static let socketOption = OptionSpec("--socket", short: "-s", value: "PATH",
                                         help: "carouseld's socket (default: [server] socket of the config, /run/carouseld/carouseld.sock).")
    static let configOption = OptionSpec("--config", short: "-c", value: "FILE",
                                         help: "Daemon configuration to take defaults from (default /etc/carouseld/carouseld.conf if present).")

    /// - Throws: `CommandError` with `ConfigurationError.exitStatus` when an explicit `--config`
    ///   is refused: 66 missing, 77/74 unreadable, 78 invalid (as `carouseld -c` exits). A broken
    ///   default config is reported as a warning and the defaults are used, so `status` still
    ///   works while the operator fixes it.
    static func load(_ args: ParsedArguments, io: CommandIO) throws(CommandError) -> OperatorSettings {
        if let path = args.value("--config") {
            do {
                return OperatorSettings(configPath: path, configuration: try DaemonConfiguration.load(path: path))
            } catch {
                throw CommandError(error.exitStatus, error.description)
            }
        }
        let path = DaemonConfiguration.defaultPath
        guard access(path, F_OK) == 0 else { return OperatorSettings(configPath: nil, configuration: .defaults) }
        do {
            return OperatorSettings(configPath: path, configuration: try DaemonConfiguration.load(path: path))
        } catch {
            io.err("carouselctl: warning: \(error.description); using built-in defaults\n")
            return OperatorSettings(configPath: nil, configuration: .defaults)
        }
    }

    /// `--socket`, else the configuration's socket.
    func socketPath(_ args: ParsedArguments) -> String {
        args.value("--socket") ?? configuration.server.socketPath
    }

    /// Connects to the daemon (exit 69 naming the socket when it is not running).
    func connect(_ args: ParsedArguments) throws(CommandError) -> DaemonClient {
        try DaemonClient(socketPath: socketPath(args))
    }
}
