import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A client that shuts down its sending side after its requests (`shutdown(SHUT_WR)`, what
/// `nc -N` and `socat` do when their input ends) is still served while it watches, and is
/// closed when it closes; one that does not watch is closed at its EOF, as before.
@Suite(.serialized) struct EndToEndHalfCloseTests {
    /// The `clients` count of a STATUS asked on a fresh connection (which counts itself).
    func clientCount(_ daemon: E2EDaemon) throws -> Double? {
        let probe = try daemon.client()
        defer { probe.close() }
        try probe.send(#"{"cmd":"status"}"#)
        return try probe.readJSON()["clients"]?.number
    }

    @Test func aHalfClosedWatcherKeepsGettingStatesUntilItCloses() throws {
        // A steady 20° roll: the cyclic carousel scrolls without end.
        let daemon = try E2EDaemon.steadyRoll("half-close", scrolling: true)
        let watcher = try daemon.client()
        try watcher.send(#"{"cmd":"watch"}"#)
        Glibc.shutdown(watcher.fd, Int32(SHUT_WR))
        #expect(try watcher.readJSON()["class"] == .string("WATCH"))
        #expect(try watcher.readJSON()["class"] == .string("LAYOUT"))
        // Well after the EOF was read: STATEs keep coming, with increasing seq.
        var seqs: [Double] = []
        while seqs.count < 30 {
            let v = try watcher.readJSON()
            if v.isState, let seq = v["seq"]?.number { seqs.append(seq) }
        }
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try clientCount(daemon) == 2)
        // The watcher closes: the daemon closes its side too.
        watcher.close()
        var remaining = 100
        while try clientCount(daemon) != 1, remaining > 0 {
            var tick = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&tick, nil)
            remaining -= 1
        }
        #expect(try clientCount(daemon) == 1)
        #expect(try daemon.stop() == 0)
    }

    @Test func aHalfClosedClientThatDoesNotWatchGetsItsReplyAndIsClosed() throws {
        let daemon = try E2EDaemon("half-close-status")
        let c = try daemon.client()
        try c.send(#"{"cmd":"status"}"#)
        Glibc.shutdown(c.fd, Int32(SHUT_WR))
        #expect(try c.readJSON()["class"] == .string("STATUS"))
        #expect(try c.waitForClose(timeoutSeconds: 5))
        #expect(try daemon.stop() == 0)
    }
}
