import CarouselConfig
import CarouselProtocol
import CarouselTestSupport
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// What an operator sees when the config or the socket path is wrong in a hostile way.
@Suite struct HostileOperatorInputTests {
    /// A binary or crafted config must not write escape sequences or raw control bytes into the
    /// journal: they are shown as \xNN (ESC = 0x1B, BEL = 0x07).
    @Test func controlCharactersFromTheFileAreShownEscaped() {
        let text = "[sensor]\nsource = \u{1B}[2Jusb\u{07}\n"
        // do/catch rather than `let thrown = #expect(throws:)`, which Swift 6.0's Testing lacks.
        do {
            _ = try DaemonConfiguration.parse(text: text, path: "c.conf")
            Issue.record("a source with control characters was accepted")
        } catch {
            #expect(error.description == "c.conf:2: [sensor] source: bad value '\\x1B[2Jusb\\x07': expected one of iio, replay")
        }
        #expect(ConfigurationError.syntax(path: "c.conf", line: 1, text: "\u{01}\u{7F}x\ty").description
            == "c.conf:1: syntax error: expected '[section]', 'key = value' or a comment, found '\\x01\\x7Fx\\x09y'")
    }

    /// A socket whose directory is missing is named, with the directory and what to do
    /// (`EndToEndSocketFileTests` checks the daemon's exit status and log line).
    @Test func socketInAMissingDirectoryNamesThePath() {
        let directory = "/tmp/carouseld-test-no-such-dir-\(getpid())"
        let path = directory + "/x.sock"
        do {
            let bound = try UnixListener.bind(path: path, mode: 0o666, gid: nil)
            close(bound.fd)
            Issue.record("bind in a missing directory succeeded")
        } catch {
            #expect(error == .missingDirectory(directory: directory, path: path))
            #expect(error.description.hasPrefix("\(path): its directory \(directory) does not exist"))
        }
    }
}
