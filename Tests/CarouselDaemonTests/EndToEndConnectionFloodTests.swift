import CarouselProtocol
import CLinux
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A client that connects and closes in a loop must not starve the watchers: the daemon's
/// accept loop took connections until the backlog was empty, and a flood kept it non-empty (each
/// accept slower than the last, with the dead connections piling up unclosed), so no timer,
/// sensor or client event was handled for as long as the flood lasted.
@Suite(.serialized) struct EndToEndConnectionFloodTests {
    @Test func aConnectCloseFloodDoesNotStarveAWatcher() throws {
        // A steady 20° roll: the cyclic carousel scrolls without end, a STATE due every 1/60 s.
        let daemon = try E2EDaemon.steadyRoll("connection-flood", scrolling: true,
                                              overrides: ["server": ["max_clients": "4096"]])
        let watcher = try daemon.client()
        try watcher.send(#"{"cmd":"watch"}"#)
        _ = try watcher.readUntil { $0.isState && $0["phase"] == .string("tilting") }

        // 1.5 s of connections closed at once, never read. The watcher keeps reading between
        // bursts (a watcher that does not read is coalesced after ~0.5 s of STATEs, by design).
        var stamps: [Double] = []
        func take(_ line: String) {
            if let v = try? WireJSONParser.parse(line), v.isState, let t = v["time_ns"]?.number { stamps.append(t) }
        }
        let start = clinux_monotonic_ns()
        let end = start + 1_500_000_000
        var flooded = 0
        while clinux_monotonic_ns() < end {
            for _ in 0..<50 {
                let c = try SocketClient(path: daemon.socketPath)
                c.close()
                flooded += 1
            }
            // What the watcher has been sent so far (a poll of ~1 ms when nothing is waiting).
            while case let line? = try? watcher.readLine(timeoutSeconds: 0.0001) { take(line) }
        }
        // STATEs stamped inside the flood window, up to the first one after it.
        let marker = try SocketClient(path: daemon.socketPath)
        _ = try marker.readJSON()
        let rest = try watcher.readUntil(timeoutSeconds: 10) {
            $0.isState && ($0["time_ns"]?.number ?? 0) >= Double(end)
        }
        stamps += rest.filter(\.isState).compactMap { $0["time_ns"]?.number }
        let during = stamps.filter { $0 >= Double(start) && $0 < Double(end) }
        // 60 Hz for 1.5 s is 90; a loaded test machine may run the daemon less often, but a
        // starved watcher got none.
        #expect(during.count >= 30, "\(during.count) STATEs during a flood of \(flooded) connections")
        #expect(try daemon.stop() == 0)
    }
}
