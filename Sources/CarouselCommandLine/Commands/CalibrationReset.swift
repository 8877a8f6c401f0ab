#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol

/// `carouselctl calibration reset`: remove the calibration (kept as `.bak`) and tell the daemon.
enum CalibrationResetCommand {
    static let spec = CommandSpec(
        name: "calibration reset",
        summary: "Remove the calibration (kept as FILE.bak) and make carouseld reload.",
        discussion: """
        Renames the calibration file to FILE.bak (replacing an older .bak), syncs the directory \
        and tells a running carouseld to reload, so the sensor is used uncalibrated. To undo, \
        rename FILE.bak back and run 'carouselctl reload'. No file is not an error (nothing to do).
        Exit status: 0 removed or nothing to remove, 74 rename failed, 77 permission denied.
        """,
        options: [
            OptionSpec("--file", short: "-f", value: "FILE", help: "Calibration file (default: the daemon's)."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            let settings = try OperatorSettings.load(args, io: io)
            let path = args.value("--file") ?? settings.configuration.calibration.file
            guard access(path, F_OK) == 0 else {
                io.out("no calibration at \(path): nothing to reset\n")
                return .ok
            }
            guard rename(path, path + ".bak") == 0 else {
                throw FileIOError(path: path, operation: "rename to \(path).bak", errno: errno).commandError
            }
            do throws(FileIOError) {
                try PosixFile.syncDirectory(PathName.directory(of: path))
            } catch {
                throw error.commandError
            }
            io.out("removed \(path) (kept as \(path).bak)\n")
            DaemonReload.afterChange(client: nil, settings: settings, args: args, io: io)
            return .ok
        }
    )
}
