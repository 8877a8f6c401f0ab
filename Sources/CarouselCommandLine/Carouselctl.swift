import CarouselProtocol

/// The `carouselctl` program: subcommand table and dispatch.
public enum Carouselctl {
    /// Every subcommand, in the order `carouselctl --help` lists them. Each lives in its own file
    /// under `Commands/`.
    public static let commands: [CommandSpec] = [
        StatusCommand.spec,
        WatchCommand.spec,
        ScrollToCommand.spec,
        SetCountCommand.spec,
        RecenterCommand.spec,
        ReloadCommand.spec,
        SensorsCommand.spec,
        RecordCommand.spec,
        CalibrateCommand.spec,
        CalibrationShowCommand.spec,
        CalibrationResetCommand.spec,
        TiltCommand.spec,
        SimulateCommand.spec,
    ]

    /// Runs `carouselctl` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String], io: CommandIO) -> ExitStatus {
        guard let first = arguments.first else {
            io.err(overviewText(commands: commands))
            return .usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                let name = arguments.dropFirst().joined(separator: " ")
                if let spec = commands.first(where: { $0.name == name }) {
                    io.out(helpText(for: spec))
                    return .ok
                }
                io.err("carouselctl: unknown command '\(name)'\n")
                return .usage
            }
            io.out(overviewText(commands: commands))
            return .ok
        }
        if first == "--version" {
            io.out("carouselctl \(carouseldRelease)\n")
            return .ok
        }
        // Longest match first, so "calibration show" wins over a plain "calibration".
        let match = commands
            .filter { spec in
                let words = spec.name.split(separator: " ").map(String.init)
                return arguments.count >= words.count && Array(arguments.prefix(words.count)) == words
            }
            .max { $0.name.count < $1.name.count }
        guard let spec = match else {
            // A group word such as "calibration" alone: list its subcommands.
            let group = commands.filter { $0.name.hasPrefix(first + " ") }
            if !group.isEmpty {
                var text = "Usage: carouselctl \(first) SUBCOMMAND [OPTIONS]\n\nSubcommands:\n"
                for c in group { text += "  \(c.name)\n      \(c.summary)\n" }
                text += "\nRun 'carouselctl \(first) SUBCOMMAND --help' for its options.\n"
                let asksForHelp = arguments.count > 1 && ["--help", "-h"].contains(arguments[1])
                if asksForHelp { io.out(text) } else { io.err(text) }
                return asksForHelp ? .ok : .usage
            }
            io.err("carouselctl: unknown command '\(first)' (see 'carouselctl --help')\n")
            return .usage
        }
        let rest = Array(arguments.dropFirst(spec.name.split(separator: " ").count))
        if rest.contains("--help") || rest.contains("-h") {
            io.out(helpText(for: spec))
            return .ok
        }
        do {
            let parsed = try parseArguments(rest, for: spec)
            return try spec.run(parsed, io)
        } catch let error as CommandError {
            io.err("carouselctl: \(error.message)\n")
            return error.status
        } catch {
            io.err("carouselctl: \(error)\n")
            return .software
        }
    }
}
