import Testing
import CarouselProtocol
@testable import CarouselCommandLine

/// Argument handling of `calibrate`, `calibration show` and `calibration reset`: help, bad flags,
/// exclusive options (all refused with 64 before any sample is read).
@Suite struct CalibrationArgumentTests {
    @Test(arguments: ["calibrate", "calibration show", "calibration reset"])
    func helpPrintsUsageAndExitsZero(command: String) {
        let words = command.split(separator: " ").map(String.init)
        for flag in ["--help", "-h"] {
            let run = runCtl(words + [flag])
            #expect(run.status == .ok)
            #expect(run.out.hasPrefix("Usage: carouselctl \(command) [OPTIONS]"))
            #expect(run.out.contains("Exit status:"))
            #expect(run.err.isEmpty)
        }
        let viaHelp = runCtl(["help"] + words)
        #expect(viaHelp.status == .ok && viaHelp.out.hasPrefix("Usage: carouselctl \(command)"))
    }

    @Test func calibrateHelpDocumentsThresholdsAndOptions() {
        let text = runCtl(["calibrate", "--help"]).out
        for needle in ["0.2 m/s²", "0.05 rad/s", "--duration", "--output", "--socket", "--sensor", "--replay",
                       "--six-position", "--from-files", "--yes", "--config", ".bak"] {
            #expect(text.contains(needle), "help lacks \(needle)")
        }
    }

    @Test(arguments: [
        (["calibrate", "--bogus"], "unknown option '--bogus'"),
        (["calibrate", "--duration"], "needs a value"),
        (["calibrate", "--duration", "abc"], "'abc' is not a number"),
        (["calibrate", "--duration", "0.1", "--replay", "x.csv"], "outside"),
        (["calibrate", "--socket", "/tmp/a.sock", "--sensor", "bmi160"], "exclude each other"),
        (["calibrate", "--socket", "/tmp/a.sock", "--replay", "x.csv"], "exclude each other"),
        (["calibrate", "--from-files", "a", "b"], "needs 6 recordings"),
        (["calibrate", "--six-position", "--from-files", "a", "b", "c", "d", "e", "f"], "exclude each other"),
        (["calibrate", "--replay", "x.csv", "stray"], "unexpected argument 'stray'"),
        (["calibrate", "--six-position", "--replay", "x.csv"], "--from-files"),
        (["calibrate", "--yes=1"], "takes no value"),
        (["calibration", "show", "--bogus"], "unknown option '--bogus'"),
        (["calibration", "show", "extra"], "unexpected argument 'extra'"),
        (["calibration", "reset", "--json"], "unknown option '--json'"),
        (["calibration"], "Usage: carouselctl calibration SUBCOMMAND"),
    ] as [([String], String)])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) {
        let run = runCtl(arguments)
        #expect(run.status == .usage)
        #expect(run.err.contains(message), "stderr: \(run.err)")
        #expect(run.out.isEmpty)
    }

    @Test func fromFilesTakesSixPositionals() throws {
        let spec = try #require(Carouselctl.commands.first { $0.name == "calibrate" })
        let parsed = try parseArguments(["--from-files", "a", "b", "c", "d", "e", "f", "-o", "out.conf", "-y"], for: spec)
        #expect(parsed.positionals == ["a", "b", "c", "d", "e", "f"])
        #expect(parsed.value("--output") == "out.conf")
        #expect(parsed.has("--yes") && parsed.has("--from-files"))
    }

    @Test func unknownFaultPointIsUsageError() {
        let dir = makeTempDirectory("fault-arg")
        let run = runCtl(["calibrate", "--replay", "x.csv", "--config", writeTestConfig(in: dir)],
                         environment: ["CAROUSELCTL_FAULT": "after-lunch"])
        #expect(run.status == .usage)
        #expect(run.err.contains("CAROUSELCTL_FAULT='after-lunch' is not one of after-temp-write, after-backup"))
    }

    @Test func missingRecordingAndMissingConfigAre66() {
        let dir = makeTempDirectory("missing")
        let config = writeTestConfig(in: dir)
        let missing = runCtl(["calibrate", "--replay", dir + "/nope.csv", "--config", config, "--yes"])
        #expect(missing.status == .noInput)
        #expect(missing.err.contains(dir + "/nope.csv"))
        let missingConfig = runCtl(["calibrate", "--replay", "x.csv", "--config", dir + "/absent.conf"])
        #expect(missingConfig.status == .noInput)
    }

    @Test func badRecordingRowIs65WithFileAndLine() {
        let dir = makeTempDirectory("badrow")
        let csv = dir + "/bad.csv"
        writeFile(csv, "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n0,0,0,9.8,0,0,0\n10,0,zero,9.8,0,0,0\n")
        let run = runCtl(["calibrate", "--replay", csv, "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .dataError)
        #expect(run.err.contains("\(csv):3:"), "stderr: \(run.err)")
        #expect(!fileExists(dir + "/calibration.conf"))
    }
}
