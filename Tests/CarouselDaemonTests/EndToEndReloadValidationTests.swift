import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, defects 2 and 3, through the real binary: a `reload` applied a `replay_file` that
/// `--check-config` rejects (the sensor then showed `error`), and an empty or cut-off file
/// replaced the running configuration with the built-in defaults. Each is now refused: the
/// running configuration stays, the reply and the log name file:line.
@Suite(.serialized) struct EndToEndReloadValidationTests {
    /// Sends `reload` and returns the reply.
    private func reload(_ c: SocketClient) throws -> WireJSON {
        try c.send(#"{"cmd":"reload"}"#)
        return try c.readJSON()
    }

    private func status(_ c: SocketClient) throws -> WireJSON {
        try c.send(#"{"cmd":"status"}"#)
        return try c.readJSON()
    }

    @Test func aReloadNamingAMissingReplayFileKeepsTheRunningReplay() throws {
        let daemon = try E2EDaemon.steadyRoll("reload-replay", scrolling: false, overrides: ["carousel": ["count": "7"]])
        let c = try daemon.client()
        #expect(try status(c)["sensor"] == .string("replay"))
        let missing = TestTemp.path("no-such-recording.csv")
        let text = E2EDaemon.configText(socketPath: daemon.socketPath, overrides: [
            "sensor": ["source": "replay", "replay_file": missing], "carousel": ["count": "3"]])
        try TestTemp.write(text, to: daemon.configPath)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.hasPrefix("replay_file") }) + 1
        let e = try reload(c)
        #expect(e["code"] == .string("unavailable"))
        let expected = "\(daemon.configPath):\(line): [sensor] replay_file: cannot read '\(missing)': No such file or directory"
        #expect(e["message"] == .string("reload failed, keeping the running configuration: \(expected)"))
        #expect(try status(c)["sensor"] == .string("replay"))
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(7))
        #expect(daemon.process.log.contains("reload failed, keeping the running configuration: \(expected)"))
        // --check-config says the same of the same file.
        let check = CarouseldCommandLineProcessTests.run(["--check-config", "-c", daemon.configPath])
        #expect(check.status == 78)
        #expect(check.standardError == "carouseld: \(expected)\n")
        #expect(try daemon.stop() == 0)
    }

    @Test func anEmptyOrCutOffFileKeepsTheRunningConfiguration() throws {
        let daemon = try E2EDaemon("reload-empty", overrides: ["carousel": ["count": "7"]])
        let c = try daemon.client()
        // Emptied, as a failed `> carouseld.conf` leaves it.
        try TestTemp.write("", to: daemon.configPath)
        daemon.process.signal(SIGHUP)
        let empty = try reload(c)  // answered after the signal's reload
        #expect(empty["code"] == .string("unavailable"))
        #expect(empty["message"]?.stringValue?.contains("\(daemon.configPath): no [section] in the file") == true)
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(7))
        // Cut inside its last value: `count = 3` of `count = 30`.
        let good = E2EDaemon.configText(socketPath: daemon.socketPath, overrides: ["carousel": ["count": "30"]])
        let countLine = try #require(good.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == "count = 30" })
        let cut = good.split(separator: "\n", omittingEmptySubsequences: false).prefix(countLine).map { $0 + "\n" }.joined() + "count = 3"
        try TestTemp.write(cut, to: daemon.configPath)
        let lines = cut.split(separator: "\n", omittingEmptySubsequences: false).count
        let truncated = try reload(c)
        #expect(truncated["message"] == .string("reload failed, keeping the running configuration: \(daemon.configPath):\(lines): "
            + "the file ends in this line, without a newline: it may have been cut short while being written; end the line with a newline"))
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(7))
        // The whole file is applied.
        try TestTemp.write(good, to: daemon.configPath)
        #expect(try reload(c)["class"] == .string("ACK"))
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(30))
        #expect(daemon.process.log.contains("no [section] in the file"))
        #expect(try daemon.stop() == 0)
    }
}
