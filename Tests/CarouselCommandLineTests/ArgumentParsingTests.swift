import Testing
import CarouselProtocol
@testable import CarouselCommandLine

@Suite struct ArgumentParsingTests {
    static let spec = CommandSpec(
        name: "demo", summary: "A demo.",
        options: [
            OptionSpec("--output", short: "-o", value: "FILE", help: "Where."),
            OptionSpec("--json", help: "JSON."),
            OptionSpec("--rate", value: "HZ", help: "Rate."),
        ],
        positionals: [PositionalSpec("INPUT", help: "In.")],
        run: { _, _ in .ok })

    @Test func parsesLongShortInlineAndFlags() throws {
        let p = try parseArguments(["in.csv", "-o", "x", "--json", "--rate=-12.5"], for: Self.spec)
        #expect(p.positionals == ["in.csv"])
        #expect(p.value("--output") == "x")
        #expect(p.has("--json"))
        #expect(try p.double("--rate") == -12.5)
    }

    @Test func negativeNumbersArePositionals() throws {
        let p = try parseArguments(["-3"], for: Self.spec)
        #expect(p.positionals == ["-3"])
    }

    @Test func rejectsUnknownOptionMissingValueAndExtraArguments() {
        #expect(throws: CommandError.self) { try parseArguments(["a", "--bogus"], for: Self.spec) }
        #expect(throws: CommandError.self) { try parseArguments(["a", "--output"], for: Self.spec) }
        #expect(throws: CommandError.self) { try parseArguments(["a", "b"], for: Self.spec) }
        #expect(throws: CommandError.self) { try parseArguments([], for: Self.spec) }
        #expect(throws: CommandError.self) { try parseArguments(["a", "--json=1"], for: Self.spec) }
    }

    @Test func badNumberIsUsageError() throws {
        let p = try parseArguments(["a", "--rate", "fast"], for: Self.spec)
        #expect(throws: CommandError(.usage, "--rate: 'fast' is not a number")) { try p.double("--rate") }
    }

    @Test func unknownCommandAndHelp() {
        var out = "", err = ""
        let io = CommandIO(out: { out += $0 }, err: { err += $0 })
        #expect(Carouselctl.main(["frobnicate"], io: io) == .usage)
        #expect(err.contains("unknown command 'frobnicate'"))
        #expect(Carouselctl.main(["--help"], io: io) == .ok)
        #expect(out.contains("simulate"))
        out = ""
        #expect(Carouselctl.main(["calibration", "show", "--help"], io: io) == .ok)
        #expect(out.hasPrefix("Usage: carouselctl calibration show"))
    }
}

@Suite struct CommandGroupTests {
    @Test func groupWordListsItsSubcommands() {
        var out = "", err = ""
        let io = CommandIO(out: { out += $0 }, err: { err += $0 })
        #expect(Carouselctl.main(["calibration", "--help"], io: io) == .ok)
        #expect(out.contains("calibration show"))
        #expect(out.contains("calibration reset"))
        #expect(Carouselctl.main(["calibration"], io: io) == .usage)
        #expect(err.contains("Usage: carouselctl calibration SUBCOMMAND"))
    }
}
