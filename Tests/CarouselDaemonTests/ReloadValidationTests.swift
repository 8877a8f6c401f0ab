import CarouselConfig
import CarouselProtocol
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, defects 2 and 3, in process: a reload (`DaemonOptions.reloadConfiguration`, what
/// SIGHUP and `reload` call) accepted a `replay_file` that `--check-config` rejects, and an
/// empty or cut-off file silently became the built-in defaults. Start-up, `--check-config` and
/// reload now share `CarouseldCommandLine.loadConfiguration`, and a file must look whole.
@Suite struct ReloadValidationTests {
    final class Captured: @unchecked Sendable {
        var output = ""
        var errors = ""
        var options: DaemonOptions?
    }

    /// Starts `main` on `path` with a daemon that only captures its options.
    private func start(_ path: String) -> Captured {
        let captured = Captured()
        let status = CarouseldCommandLine.main(
            arguments: ["-c", path], output: { captured.output += $0 }, errorOutput: { captured.errors += $0 },
            run: { options in captured.options = options; return .ok })
        #expect(status == .ok, "\(captured.errors)")
        return captured
    }

    /// `--check-config`'s standard error for `path`.
    private func checkConfig(_ path: String) -> (CarouselProtocol.ExitStatus, String) {
        let captured = Captured()
        let status = CarouseldCommandLine.main(arguments: ["--check-config", "-c", path], output: { captured.output += $0 },
                                               errorOutput: { captured.errors += $0 })
        return (status, captured.errors)
    }

    /// The error a reload of `text` throws, and what `--check-config` says of the same file.
    private func reloadAndCheck(_ text: String, directory: String) -> (reload: ConfigurationError?, check: (CarouselProtocol.ExitStatus, String)) {
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\ncount = 7\n"))
        let captured = start(path)
        #expect(ServiceTestSupport.writeFile(path, text))
        var thrown: ConfigurationError?
        do { _ = try captured.options?.reloadConfiguration() } catch { thrown = error }
        return (thrown, checkConfig(path))
    }

    /// `--check-config` passed a group that does not exist, then the daemon refused to start on
    /// the same file (78) and a reload applied it (found by a newcomer's trial).
    @Test func aSocketGroupThatDoesNotExistIsRefusedByReloadAsByCheckConfig() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let (reload, (status, stderr)) = reloadAndCheck("[server]\nsocket_group = nosuchgroup-carouseld\n", directory: directory)
        let path = directory + "/c.conf"
        #expect(reload == .unusable(path: path, line: 2, section: "server", key: "socket_group",
                                    message: "no group named 'nosuchgroup-carouseld' (getent group lists them)"))
        #expect(status == .configuration)
        #expect(stderr == "carouseld: \(path):2: [server] socket_group: no group named 'nosuchgroup-carouseld' (getent group lists them)\n")
        // A group that exists (root's, by name and by number) passes.
        #expect(ServiceTestSupport.writeFile(path, "[server]\nsocket_group = root\n"))
        #expect(checkConfig(path).0 == .ok)
        #expect(ServiceTestSupport.writeFile(path, "[server]\nsocket_group = 0\n"))
        #expect(checkConfig(path).0 == .ok)
    }

    @Test func aMissingReplayFileIsRefusedByReloadAsByCheckConfig() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let (reload, (status, stderr)) = reloadAndCheck("[sensor]\nsource = replay\nreplay_file = gone.csv\n", directory: directory)
        let path = directory + "/c.conf"
        #expect(reload == .unusable(path: path, line: 3, section: "sensor", key: "replay_file",
                                    message: "cannot read '\(directory)/gone.csv': No such file or directory"))
        #expect(reload?.description == "\(path):3: [sensor] replay_file: cannot read '\(directory)/gone.csv': No such file or directory")
        #expect(reload?.exitStatus == .configuration)
        // One validation: --check-config says exactly the same.
        #expect(status == .configuration)
        #expect(stderr == "carouseld: \(reload?.description ?? "-")\n")
    }

    @Test func aRecordingThatCanNeverPlayIsRefusedByReload() {
        let directory = ServiceTestSupport.temporaryDirectory()
        #expect(ServiceTestSupport.writeFile(directory + "/rec.csv", "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"))
        let (reload, (_, stderr)) = reloadAndCheck("[sensor]\nsource = replay\nreplay_file = rec.csv\n", directory: directory)
        #expect(reload?.description == "\(directory)/c.conf:3: [sensor] replay_file: '\(directory)/rec.csv' can never play: \(directory)/rec.csv: no samples")
        #expect(stderr == "carouseld: \(reload?.description ?? "-")\n")
    }

    /// A `replay_file` that is a device or a FIFO: `/dev/zero` was read without end (start-up,
    /// `--check-config` and a reload alike: the daemon aborted once memory ran out) and a FIFO's
    /// open waited for a writer, stopping the daemon's loop; `/dev/null` read as an empty
    /// recording. Now each is refused by what it is, unread.
    @Test func aReplayFileThatIsNotARegularFileIsRefusedUnread() {
        let directory = ServiceTestSupport.temporaryDirectory()
        #expect(mkfifo(directory + "/fifo.csv", 0o600) == 0)
        for (file, kind) in [("/dev/zero", "a character device"), ("/dev/null", "a character device"),
                             (directory + "/fifo.csv", "a FIFO"), (directory, "a directory")] {
            let (reload, (status, stderr)) = reloadAndCheck("[sensor]\nsource = replay\nreplay_file = \(file)\n",
                                                            directory: directory)
            #expect(reload?.description == "\(directory)/c.conf:3: [sensor] replay_file: '\(file)' can never play: "
                + "\(file): cannot read: not a regular file but \(kind)")
            #expect(status == .configuration)
            #expect(stderr == "carouseld: \(reload?.description ?? "-")\n")
        }
    }

    /// The configuration file replaced by a FIFO (or a link to a device): a reload's open
    /// waited for a writer, stopping the daemon's loop for good; `/dev/null` read as an empty
    /// file. The reload is refused, naming what the path is, and the running configuration stays.
    @Test func aConfigurationThatIsNotARegularFileIsRefusedByReload() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\ncount = 7\n"))
        let captured = start(path)
        for (make, kind) in [({ symlink("/dev/null", path) }, "a character device"), ({ mkfifo(path, 0o600) }, "a FIFO")] {
            unlink(path)
            #expect(make() == 0)
            var thrown: ConfigurationError?
            do { _ = try captured.options?.reloadConfiguration() } catch { thrown = error }
            #expect(thrown == .notRegularFile(path: path, kind: kind))
            #expect(thrown?.description == "\(path): cannot read configuration file: not a regular file but \(kind)")
            #expect(thrown?.exitStatus == .ioError)
            #expect(checkConfig(path) == (.ioError, "carouseld: \(thrown?.description ?? "-")\n"))
        }
        unlink(path)
    }

    @Test func anEmptyOrCommentOnlyFileIsRefused() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        for text in ["", "\n\n", "# everything commented out\n;max_clients = 3\n"] {
            let (reload, (status, stderr)) = reloadAndCheck(text, directory: directory)
            #expect(reload == .noSection(path: path), "\(text.debugDescription)")
            #expect(status == .configuration)
            #expect(stderr == "carouseld: \(path): no [section] in the file (empty, blank or only comments), as a write cut short "
                    + "leaves it; refused rather than running on the built-in defaults (a file with just a [server] line asks for them)\n")
        }
    }

    @Test func aFileWithJustOneHeaderAsksForTheDefaults() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let (reload, (status, _)) = reloadAndCheck("[server]\n", directory: directory)
        #expect(reload == nil)
        #expect(status == .ok)
        // Without its newline too: a header cannot be cut short into another valid header.
        let path = directory + "/d.conf"
        #expect(ServiceTestSupport.writeFile(path, "# defaults on purpose\n[server]"))
        #expect(try DaemonConfiguration.load(path: path) == .defaults)
    }

    @Test func aFileCutInsideItsLastValueIsRefused() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        // `max_deg = 25` cut to `max_deg = 2`: a valid value, but not the one written.
        let (reload, (status, stderr)) = reloadAndCheck("[tilt]\ndead_zone_deg = 1\nmax_deg = 2", directory: directory)
        #expect(reload == .truncated(path: path, line: 3))
        #expect(reload?.description == "\(path):3: the file ends in this line, without a newline: it may have been cut short "
                + "while being written; end the line with a newline")
        // --check-config accepts it, as start-up does, and says that a reload would not.
        #expect(status == .ok)
        #expect(stderr == "carouseld: warning: \(path):3: the file ends in this line, without a newline: a reload refuses "
                + "such a file (it may have been cut short while being written); end the line with a newline\n")
        // Cut inside a key: libinih's syntax error on that last line is reported as the cut.
        #expect(reloadAndCheck("[tilt]\ndead_zone_deg = 1\nmax_d", directory: directory).reload == ConfigurationError.truncated(path: path, line: 3))
        // A syntax error elsewhere is still a syntax error.
        #expect(reloadAndCheck("[tilt]\nmax_d\nmax_deg = 20\n", directory: directory).reload
                == ConfigurationError.syntax(path: path, line: 2, text: "max_d"))
    }

    @Test func aLastCommentWithoutNewlineIsFine() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[tilt]\nmax_deg = 20\n# end"))
        #expect(try DaemonConfiguration.load(path: path).tilt.mapping.maxDegrees == 20)
        // CRLF files end their lines too.
        #expect(ServiceTestSupport.writeFile(path, "[tilt]\r\nmax_deg = 20\r\n"))
        #expect(try DaemonConfiguration.load(path: path).tilt.mapping.maxDegrees == 20)
    }

    /// Some editors save without a final newline: start-up runs such a file and warns, so that
    /// an upgrade never stops a daemon from starting for it.
    @Test func startUpRunsAFileWithoutAFinalNewlineAndWarns() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[tilt]\nmax_deg = 20"))
        let captured = start(path)
        #expect(captured.options?.configuration.tilt.mapping.maxDegrees == 20)
        #expect(captured.errors == "<4>\(path):2: the file ends in this line, without a newline: a reload refuses such a file "
                + "(it may have been cut short while being written); end the line with a newline\n")
        #expect(DaemonConfiguration.unterminatedKeyLine(inFile: path) == 2)
        #expect(try DaemonConfiguration.load(path: path).tilt.mapping.maxDegrees == 20)
        #expect(throws: ConfigurationError.truncated(path: path, line: 2)) {
            try DaemonConfiguration.load(path: path, unterminatedLastLine: .refused)
        }
    }

    @Test func startUpRefusesTheSameFiles() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, ""))
        let captured = Captured()
        let status = CarouseldCommandLine.main(
            arguments: ["-c", path], output: { captured.output += $0 }, errorOutput: { captured.errors += $0 },
            run: { _ in captured.errors += "ran"; return .ok })
        #expect(status == .configuration)
        #expect(captured.errors.hasPrefix("<3>\(path): no [section] in the file"))
        #expect(!captured.errors.contains("ran"))
    }
}
