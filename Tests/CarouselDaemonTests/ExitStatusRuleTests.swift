import CarouselProtocol
import CarouselTestSupport
import Testing

/// One rule for both programs (docs/CLI.md "EXIT STATUS", sysexits): a configuration file named with `-c`
/// that does not exist is a missing input file (66, `EX_NOINPUT`) for `carouseld` and
/// `carouselctl` alike; a daemon that cannot be reached, or that is full (`too_many_clients`),
/// is an unavailable service (69, `EX_UNAVAILABLE`).
@Suite(.serialized) struct ExitStatusRuleTests {
    private static let carouseld = TestPaths.product("carouseld")
    private static let carouselctl = TestPaths.product("carouselctl")

    @Test func aMissingConfigurationFileIs66ForBothPrograms() {
        let path = ServiceTestSupport.temporaryDirectory() + "/missing.conf"
        let daemon = ServiceTestSupport.run([Self.carouseld, "-c", path])
        let check = ServiceTestSupport.run([Self.carouseld, "--check-config", "-c", path])
        let status = ServiceTestSupport.run([Self.carouselctl, "status", "-c", path])
        #expect(daemon.status == ExitStatus.noInput.rawValue)
        #expect(check.status == ExitStatus.noInput.rawValue)
        #expect(status.status == ExitStatus.noInput.rawValue, "stderr: \(status.standardError)")
        #expect(status.standardError.contains("\(path): configuration file not found"))
    }

    @Test func anUnreachableDaemonIs69() {
        let socket = ServiceTestSupport.temporaryDirectory() + "/none.sock"
        let run = ServiceTestSupport.run([Self.carouselctl, "status", "--socket", socket])
        #expect(run.status == ExitStatus.unavailable.rawValue)
        #expect(run.standardError.contains("carouseld is not running (cannot connect to \(socket)"))
    }

    @Test func aFullDaemonIs69() throws {
        let daemon = try E2EDaemon("fullctl", overrides: ["server": ["max_clients": "1"]])
        let holder = try daemon.client()
        let run = ServiceTestSupport.run([Self.carouselctl, "status", "--socket", daemon.socketPath])
        #expect(run.status == ExitStatus.unavailable.rawValue, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("too_many_clients"))
        holder.close()
        #expect(try daemon.stop() == 0)
    }
}
