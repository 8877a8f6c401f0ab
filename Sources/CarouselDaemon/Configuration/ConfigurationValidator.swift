import CarouselConfig
import CarouselEngine
import IIOSensors
#if canImport(Glibc)
import Glibc
#endif

/// What a configuration must satisfy beyond its file's syntax and ranges (which
/// `DaemonConfiguration.load(path:)` checks) before the daemon runs with it: the one check that
/// `carouseld --check-config`, start-up and every reload (SIGHUP, `reload`) share, through
/// `CarouseldCommandLine.loadConfiguration`, so a reload cannot apply what `--check-config`
/// refuses.
///
/// - `source = replay`: `replay_file` is readable and holds at least one valid sample, loaded as
///   the replay source loads it (`ReplaySource`, every row parsed), so a missing file, one with
///   only a header, a bad row or an unknown header is reported with its `file:line` instead of a
///   daemon that starts (or reloads) and shows `error`.
/// - `[carousel]`: the geometry and style keep a STATE within `StateItemBudget`, and a custom
///   style's cards in front of the eye (`CustomStyleEyeCheck`).
/// - `[server] socket_group`: the group exists (a name in the group database, or a number), so a
///   file that would stop the next start (exit 78) is refused by `--check-config` and by a reload
///   too, not only when the socket is bound.
enum ConfigurationValidator {
    /// - Parameter path: the file the configuration came from, for `file:line` in messages; nil
    ///   for the built-in defaults.
    /// - Throws: `ConfigurationError.unusable` naming the key and its line.
    static func validate(_ configuration: DaemonConfiguration, path: String?) throws(ConfigurationError) {
        try checkReplayFile(configuration, path: path)
        try checkItemBudget(configuration, path: path)
        try checkSocketGroup(configuration, path: path)
    }

    private static func checkSocketGroup(_ configuration: DaemonConfiguration, path: String?) throws(ConfigurationError) {
        let group = configuration.server.socketGroup
        guard !group.isEmpty, UnixListener.groupID(group) == nil else { return }
        throw unusable("server", "socket_group", in: path, "no group named '\(group)' (getent group lists them)")
    }

    private static func checkReplayFile(_ configuration: DaemonConfiguration, path: String?) throws(ConfigurationError) {
        let sensor = configuration.sensor
        guard sensor.source == .replay, !sensor.replayFile.isEmpty else { return }
        if access(sensor.replayFile, R_OK) != 0 {
            let reason = String(cString: strerror(errno))
            throw unusable("sensor", "replay_file", in: path, "cannot read '\(sensor.replayFile)': \(reason)")
        }
        do {
            _ = try ReplaySource(path: sensor.replayFile, speed: sensor.replaySpeed, loop: sensor.replayLoop)
        } catch {
            throw unusable("sensor", "replay_file", in: path, "'\(sensor.replayFile)' can never play: \(error.description)")
        }
    }

    private static func checkItemBudget(_ configuration: DaemonConfiguration, path: String?) throws(ConfigurationError) {
        let engine = EngineSetup.carouselConfiguration(configuration)
        guard let problem = StateItemBudget.problem(engine, names: .file) ?? CustomStyleEyeCheck.problem(engine, wire: false)
        else { return }
        throw unusable(problem.section, problem.field, in: path, problem.message)
    }

    /// `.unusable` for `[section] key`, with the line of the file that sets it (none when the
    /// file leaves the key out, or for the built-in defaults).
    private static func unusable(_ section: String, _ key: String, in path: String?, _ message: String) -> ConfigurationError {
        let line = path.flatMap { DaemonConfiguration.line(of: section, key, inFile: $0) }
        return .unusable(path: path ?? "built-in defaults", line: line, section: section, key: key, message: message)
    }
}
