import CarouselConfig
import CarouselProtocol
import CarouselService

/// Everything `carouseld` hands the daemon after parsing its command line and loading its
/// configuration.
public struct DaemonOptions: Sendable {
    /// The validated configuration, with the command-line overrides (`--socket`) applied.
    public var configuration: DaemonConfiguration
    /// The file the configuration came from, re-read on SIGHUP / `reload`; `nil` when the daemon
    /// runs on built-in defaults because the default file does not exist (a reload then looks
    /// for `DaemonConfiguration.defaultPath` again).
    public var configurationPath: String?
    /// `--socket PATH`, which overrides `[server] socket` on every (re)load.
    public var socketPathOverride: String?
    /// The logger to use (threshold from `-v`, format from `--foreground`).
    public var logger: Logger
    /// The systemd notifier (`READY=1`, `STATUS=`, `WATCHDOG=1`, `RELOADING=1`, `STOPPING=1`).
    public var notifier: ServiceNotifier

    /// Creates options; `notifier` defaults to the real `sd_notify`.
    public init(configuration: DaemonConfiguration, configurationPath: String?, socketPathOverride: String? = nil,
                logger: Logger, notifier: ServiceNotifier = .systemd) {
        self.configuration = configuration
        self.configurationPath = configurationPath
        self.socketPathOverride = socketPathOverride
        self.logger = logger
        self.notifier = notifier
    }

    /// Loads the configuration again for a reload (SIGHUP or the `reload` command), with the
    /// same rules and checks as at start-up and `--check-config`
    /// (`CarouseldCommandLine.loadConfiguration`): the explicit or default file, built-in
    /// defaults when the default file is absent, then `--socket`, then `ConfigurationValidator`;
    /// a last `key = value` line without a newline, only a warning at start-up, is refused here.
    /// On error the caller keeps the running configuration and logs `error.description`.
    /// - Throws: `ConfigurationError` as `CarouseldCommandLine.loadConfiguration`.
    public func reloadConfiguration() throws(ConfigurationError) -> DaemonConfiguration {
        try CarouseldCommandLine.loadConfiguration(
            path: configurationPath ?? DaemonConfiguration.defaultPath,
            explicit: configurationPath != nil && configurationPath != DaemonConfiguration.defaultPath,
            socketPathOverride: socketPathOverride, reloading: true).configuration
    }
}

/// Runs the daemon until SIGTERM/SIGINT and returns its exit status (docs/SERVICE.md "Exit statuses"): binds or
/// takes over the socket (`SocketActivation`), sends `options.notifier.ready(...)`, pings the
/// watchdog, reloads on SIGHUP through `options.reloadConfiguration()` and sends `stopping()`
/// before returning (`runCarouseld`, `DaemonRuntime`).
public func runDaemon(options: DaemonOptions) -> ExitStatus {
    runCarouseld(options: options)
}
