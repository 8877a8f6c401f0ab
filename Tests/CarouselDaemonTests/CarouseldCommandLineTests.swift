import CarouselConfig
import CarouselProtocol
import CarouselTestSupport
import Testing
@testable import CarouselDaemon

/// `carouseld`'s options, in process.
@Suite struct CarouseldCommandLineTests {
    static func options(_ configure: (inout CarouseldOptions) -> Void) -> CarouseldOptions {
        var options = CarouseldOptions()
        configure(&options)
        return options
    }

    @Test func noArgumentsRunsWithTheDefaultConfig() throws {
        let action = try CarouseldCommandLine.parse([])
        #expect(action == .run(CarouseldOptions()))
        #expect(CarouseldOptions().configPath == "/etc/carouseld/carouseld.conf")
        #expect(!CarouseldOptions().configPathIsExplicit)
    }

    @Test func everyOption() throws {
        let expected = Self.options {
            $0.configPath = "x.conf"; $0.configPathIsExplicit = true
            $0.socketPath = "/tmp/s.sock"; $0.verbose = true; $0.foreground = true
        }
        #expect(try CarouseldCommandLine.parse(["-c", "x.conf", "--socket", "/tmp/s.sock", "-v", "--foreground"]) == .run(expected))
        #expect(try CarouseldCommandLine.parse(["--config=x.conf", "--socket=/tmp/s.sock", "--verbose", "-f"]) == .run(expected))
        #expect(try CarouseldCommandLine.parse(["--check-config", "--config", "x.conf"])
                == .checkConfig(Self.options { $0.configPath = "x.conf"; $0.configPathIsExplicit = true }))
        #expect(try CarouseldCommandLine.parse(["-v", "--help"]) == .help)
        #expect(try CarouseldCommandLine.parse(["-h"]) == .help)
        #expect(try CarouseldCommandLine.parse(["--version"]) == .version)
        #expect(try CarouseldCommandLine.parse(["-V"]) == .version)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["-x"], "unknown option '-x'"),
        (["-c"], "option '-c' needs a value"),
        (["--config"], "option '--config' needs a value"),
        (["--config="], "option '--config' needs a non-empty value"),
        (["--socket", "run/c.sock"], "--socket needs an absolute path, got 'run/c.sock'"),
        (["--verbose=2"], "option '--verbose' takes no value"),
        (["--check-config=yes"], "option '--check-config' takes no value"),
        (["start"], "unexpected argument 'start' (carouseld takes options only)"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: CarouseldUsageError(message: message)) {
            try CarouseldCommandLine.parse(arguments)
        }
    }

    @Test func socketPathLongerThanSunPathIsRefused() {
        let long = "/tmp/" + String(repeating: "s", count: 103)
        #expect(throws: CarouseldUsageError(message: "--socket path is longer than 107 bytes (sun_path)")) {
            try CarouseldCommandLine.parse(["--socket", long])
        }
    }

    final class Captured: @unchecked Sendable {
        var output = ""
        var errors = ""
        var options: DaemonOptions?
    }

    @Test func mainHandsTheLoadedConfigurationToTheDaemon() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[server]\nsocket = /tmp/from-file.sock\nmax_clients = 3\n"))
        let captured = Captured()
        let status = CarouseldCommandLine.main(
            arguments: ["-c", path, "--socket", "/tmp/override.sock", "-v", "-f"],
            output: { captured.output += $0 }, errorOutput: { captured.errors += $0 },
            run: { options in captured.options = options; options.logger.debug("started"); return .unavailable })
        #expect(status == .unavailable)
        #expect(captured.options?.configuration.server.socketPath == "/tmp/override.sock")
        #expect(captured.options?.configuration.server.maxClients == 3)
        #expect(captured.options?.configurationPath == path)
        #expect(captured.options?.socketPathOverride == "/tmp/override.sock")
        #expect(captured.errors == "carouseld: debug: started\n")

        // A reload re-reads the same file and keeps the command-line override.
        #expect(ServiceTestSupport.writeFile(path, "[server]\nmax_clients = 9\n"))
        let reloaded = try? captured.options?.reloadConfiguration()
        #expect(reloaded?.server.maxClients == 9)
        #expect(reloaded?.server.socketPath == "/tmp/override.sock")
        #expect(ServiceTestSupport.writeFile(path, "[server]\nmax_clients = many\n"))
        #expect(throws: ConfigurationError.badValue(path: path, line: 2, section: "server", key: "max_clients",
                                                    value: "many", expected: "a whole number from 1 to 4096 (connections)")) {
            try captured.options?.reloadConfiguration()
        }
    }

    @Test func aBadConfigurationNeverReachesTheDaemon() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[tilt]\nmode = spin\n"))
        let captured = Captured()
        let status = CarouseldCommandLine.main(
            arguments: ["--config", path], output: { captured.output += $0 }, errorOutput: { captured.errors += $0 },
            run: { _ in captured.errors += "ran"; return .ok })
        #expect(status == .configuration)
        #expect(captured.errors == "<3>\(path):2: [tilt] mode: bad value 'spin': expected one of velocity, position\n")
    }

    /// On a terminal the same error reads as with `--foreground`: journald's `<3>` meant
    /// nothing to the newcomer who ran `carouseld -c /nonexistent` by hand.
    @Test func onATerminalLogLinesAreForPeople() {
        let captured = Captured()
        let status = CarouseldCommandLine.main(
            arguments: ["--config", "/nonexistent/carouseld.conf"], output: { captured.output += $0 },
            errorOutput: { captured.errors += $0 }, errorOutputIsTerminal: true, run: { _ in .ok })
        #expect(status == .noInput)
        #expect(captured.errors == "carouseld: error: /nonexistent/carouseld.conf: configuration file not found\n")
    }

    @Test func missingDefaultFileMeansBuiltInDefaults() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let loaded = try CarouseldCommandLine.loadConfiguration(path: directory + "/absent.conf", explicit: false,
                                                                socketPathOverride: nil)
        #expect(loaded.configuration == .defaults)
        #expect(loaded.path == nil)
        #expect(throws: ConfigurationError.fileMissing(path: directory + "/absent.conf")) {
            try CarouseldCommandLine.loadConfiguration(path: directory + "/absent.conf", explicit: true, socketPathOverride: nil)
        }
    }

    @Test func helpReadsLikeAManPage() {
        let help = CarouseldCommandLine.helpText
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SIGNALS", "FILES", "ENVIRONMENT", "EXIT STATUS", "SEE ALSO"] {
            #expect(help.contains("\n\(heading)\n") || help.hasPrefix("\(heading)\n"), "no \(heading) section")
        }
        for option in ["-c, --config PATH", "--check-config", "--socket PATH", "-f, --foreground", "-v, --verbose",
                       "-h, --help", "-V, --version"] {
            #expect(help.contains("\n    \(option)\n"), "option \(option) not described")
        }
        // Every exit status carouseld can return is listed (docs/SERVICE.md "Exit statuses").
        for status in [ExitStatus.ok, .usage, .noInput, .unavailable, .software, .ioError, .noPermission, .configuration] {
            #expect(help.contains("\n    \(status.rawValue) "), "exit status \(status.rawValue) not listed")
        }
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 96 })
    }
}
