import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fault: a reload storm (issue 15). 1,000 reloads, good and bad (syntax error) files
/// alternating, by `reload` request and by SIGHUP, while four watchers read: no watcher is lost,
/// the daemon does not crash, every bad file is refused naming its file and line, and the last
/// good file is the one in effect.
@Suite(.serialized) struct FaultReloadStormTests {
    /// The good file of reload `i` (even `i`): the test defaults with `count = 3 + (i/2) mod 7`,
    /// so consecutive good files differ and each one changes the layout.
    static func goodCount(_ i: Int) -> Int { 3 + (i / 2) % 7 }

    @Test func aThousandReloadsWithGoodAndBadFilesKeepEveryWatcherAndTheLastGoodFileWins() throws {
        let daemon = try E2EDaemon("reload-storm")
        let watchers = try (0..<4).map { _ in try CountingWatcher(socketPath: daemon.socketPath) }
        let control = try daemon.client()
        let text = { (count: Int) in E2EDaemon.configText(socketPath: daemon.socketPath, overrides: ["carousel": ["count": "\(count)"]]) }
        // The bad file sets count = 99 too, so applying any part of it would show.
        let badText = text(99) + "this line has no equals sign\n"
        let badLine = badText.filter { $0 == "\n" }.count
        var requestReloads = 0, signalReloads = 0
        var expectedCount = 10
        for i in 0..<1000 {
            let good = i % 2 == 0
            try replaceFile(daemon.configPath, with: good ? text(Self.goodCount(i)) : badText)
            // Pairs 0-1, 10-11, 20-21, …: a good and a bad file by SIGHUP (200 in all).
            if (i / 2) % 5 == 0 {
                let marker = good ? "configuration reloaded from" : "reload failed, keeping the running configuration"
                let before = lineCount(of: marker, in: daemon.process.log)
                daemon.process.signal(SIGHUP)
                let deadline = clinux_monotonic_ns() + 10_000_000_000
                while lineCount(of: marker, in: daemon.process.log) == before {
                    try #require(clinux_monotonic_ns() < deadline, "SIGHUP reload \(i) not logged; log: \(daemon.process.log.suffix(800))")
                    _ = poll(nil, 0, 2)
                }
                signalReloads += 1
            } else {
                try control.send(#"{"cmd":"reload"}"#)
                let reply = try control.readJSON(timeoutSeconds: 10)
                if good {
                    try #require(reply["class"] == .string("ACK"), "reload \(i) of a good file: \(reply)")
                } else {
                    try #require(reply["class"] == .string("ERROR") && reply["code"] == .string("unavailable"), "reload \(i) of a bad file: \(reply)")
                    let message = reply["message"]?.stringValue ?? ""
                    try #require(message.contains("\(daemon.configPath):\(badLine): syntax error"), "reload \(i): \(message)")
                }
                requestReloads += 1
            }
            if good { expectedCount = Self.goodCount(i) }
            if i % 8 == 7 { for w in watchers { try w.drain() } }
        }
        #expect(requestReloads == 800 && signalReloads == 200)
        // Reload 998 was the last good one: count = 3 + 499 mod 7 = 5 (reload 999 was bad).
        #expect(expectedCount == 5)

        try control.send(#"{"cmd":"poll"}"#)
        let state = try control.readJSON()
        #expect(state["class"] == .string("STATE"))
        #expect(state["count"] == .number(5))
        try control.send(#"{"cmd":"status"}"#)
        let status = try control.readJSON()
        #expect(status["class"] == .string("STATUS"))
        #expect(status["config_path"]?.stringValue == daemon.configPath)
        #expect(status["watchers"] == .number(4))
        for (n, w) in watchers.enumerated() {
            // Every watcher is still connected and its newest LAYOUT and STATE show count 5.
            _ = try? w.readUntil(timeoutSeconds: 2) { _ in false }
            #expect(!w.closed, "watcher \(n) was dropped; last lines: \(w.client.transcript.suffix(3))")
            #expect(w.lastLayout?["count"] == .number(5), "watcher \(n): \(String(describing: w.lastLayout))")
            #expect(w.lastState?["count"] == .number(5), "watcher \(n): \(String(describing: w.lastState))")
            // A count change reaches a watcher as a LAYOUT; states may be coalesced, LAYOUTs too,
            // but a watcher that read along saw many of the 500 changes.
            #expect(w.count("LAYOUT") > 50, "watcher \(n) saw \(w.count("LAYOUT")) LAYOUTs")
        }
        let log = daemon.process.log
        #expect(lineCount(of: "reload failed, keeping the running configuration", in: log) >= 100)
        #expect(!daemon.process.hasExited)
        #expect(try daemon.stop() == 0, "log: \(log.suffix(800))")
    }
}
