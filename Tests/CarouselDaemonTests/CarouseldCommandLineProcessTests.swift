import CarouselProtocol
import CarouselTestSupport
import Testing
@testable import CarouselDaemon

/// The built `carouseld` binary: exit codes and output of `--version`, `--help`,
/// `--check-config` and usage errors (docs/SERVICE.md "Exit statuses").
@Suite struct CarouseldCommandLineProcessTests {
    static let binary = TestPaths.product("carouseld")

    static func run(_ arguments: [String]) -> ServiceTestSupport.ProcessResult {
        ServiceTestSupport.run([binary] + arguments)
    }

    @Test func version() {
        let result = Self.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput == "carouseld \(carouseldRelease) (protocol 1.2)\n")
    }

    @Test func help() {
        let result = Self.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput == CarouseldCommandLine.helpText)
        #expect(result.standardError == "")
    }

    @Test func usageErrorExits64() {
        let result = Self.run(["--frobnicate"])
        #expect(result.status == 64)
        #expect(result.standardError == "carouseld: unknown option '--frobnicate'\nTry 'carouseld --help' for more information.\n")
        #expect(result.standardOutput == "")
    }

    @Test func checkConfigAcceptsTheShippedFiles() {
        for file in ["configs/carouseld.conf", "configs/demo.conf"] {
            let path = TestPaths.packageRoot + "/" + file
            let result = Self.run(["--check-config", "-c", path])
            #expect(result.status == 0, "\(file): \(result.standardError)")
            #expect(result.standardOutput == "\(path): configuration OK\n")
        }
    }

    @Test func checkConfigRejectsABadFileWith78() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/bad.conf"
        #expect(ServiceTestSupport.writeFile(path, "[sensor]\nsource = iio\n\n[server]\nmax_rate_hz = 0\n"))
        let result = Self.run(["--check-config", "--config", path])
        #expect(result.status == 78)
        #expect(result.standardError == "carouseld: \(path):5: [server] max_rate_hz: bad value '0': expected a number from 1 to 1000 (Hz)\n")
        #expect(result.standardOutput == "")
    }

    @Test func checkConfigReportsTheLibinihSyntaxLine() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/syntax.conf"
        #expect(ServiceTestSupport.writeFile(path, "[sensor]\nsource = iio\nthis line is wrong\n"))
        let result = Self.run(["--check-config", "-c", path])
        #expect(result.status == 78)
        #expect(result.standardError.hasPrefix("carouseld: \(path):3: syntax error"))
    }

    @Test func checkConfigRejectsAMissingReplayFile() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/replay.conf"
        #expect(ServiceTestSupport.writeFile(path, "[sensor]\nsource = replay\nreplay_file = gone.csv\n"))
        let result = Self.run(["--check-config", "-c", path])
        #expect(result.status == 78)
        // Named by file and line, as every other configuration error.
        #expect(result.standardError == "carouseld: \(path):3: [sensor] replay_file: cannot read '\(directory)/gone.csv': No such file or directory\n")
    }

    @Test func missingExplicitConfigExits66() {
        let path = ServiceTestSupport.temporaryDirectory() + "/none.conf"
        let check = Self.run(["--check-config", "-c", path])
        #expect(check.status == 66)
        #expect(check.standardError == "carouseld: \(path): configuration file not found\n")
        // The daemon itself refuses to start the same way.
        let start = Self.run(["-c", path])
        #expect(start.status == 66)
        #expect(start.standardError == "<3>\(path): configuration file not found\n")
    }

    @Test func badConfigStopsTheDaemonWith78() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/bad.conf"
        #expect(ServiceTestSupport.writeFile(path, "[display]\n"))
        let result = Self.run(["-c", path, "--foreground"])
        #expect(result.status == 78)
        #expect(result.standardError.hasPrefix("carouseld: error: \(path):1: unknown section [display]; known sections: [sensor], "))
    }

    /// The daemon links FoundationEssentials at most, never Foundation (which maps
    /// ICU's data). The system libicu that libxml2 (via libiio) brings is not Foundation's.
    @Test func linksNoFoundation() {
        let result = ServiceTestSupport.run(["ldd", Self.binary])
        #expect(result.status == 0, "ldd: \(result.standardError)")
        #expect(result.standardOutput.contains("libc.so"))
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
                        "libFoundationNetworking.so", "libFoundationXML.so"] {
            #expect(!result.standardOutput.contains(library), "carouseld links \(library)")
        }
    }
}
