#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
@testable import CarouselCommandLine

/// `carouselctl watch --orientation` and `status` against the real `carouseld` replaying a
/// generated portrait/landscape turn (`TurningRecording`: normal for 3 s, then a 0.5 s turn to
/// right-up, ended at 3.5 s of the recording).
@Suite(.serialized) struct OrientationEndToEndTests {
    static func recording() -> String {
        let path = makeTempDirectory("turn") + "/turn.csv"
        writeFile(path, TurningRecording(turns: 1).nativeCSV)
        return path
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    @Test func watchOrientationPrintsOneLinePerChange() throws {
        let daemon = try ClientDaemonEndToEndTests.Daemon(replayFile: Self.recording(), replayLoop: false)
        final class Box: @unchecked Sendable { var lines: [(String, Double)] = [] }
        let box = Box()
        let io = CommandIO(out: { box.lines.append(($0, Self.monotonicSeconds())) }, err: { _ in })
        // Watching starts the sensor: no estimate yet (undefined), then the first sample's
        // orientation, then the turn's.
        let status = Carouselctl.main(["watch", "--orientation", "--count", "3", "--config", daemon.config], io: io)
        #expect(status == .ok, "log: \(daemon.process.log)")
        #expect(box.lines.map(\.0) == ["undefined\n", "normal\n", "right-up\n"])
        // "normal" comes with the first sample (recording time 0), "right-up" after the turn's
        // end at 3.5 s: their distance minus 3.5 s is the delay from the end of the turn to the
        // watcher (the 0.5 s dwell counts from when the in-plane angle passed 55°, mid-turn).
        if box.lines.count == 3 {
            let delay = box.lines[2].1 - box.lines[1].1 - 3.5
            print("orientation delay from the end of the turn to the watcher: \(delay) s")
            #expect(delay > 0 && delay < 0.6, "delay \(delay) s")
        }

        // A watcher that stays keeps the sensor reading; while it holds right-up (before the
        // recording ends at 6.5 s and the sensor goes stale), the other surfaces report it too.
        let watcher = try SocketClient(path: daemon.socket)
        defer { watcher.close() }
        _ = try watcher.readJSON()
        try watcher.send(#"{"cmd":"watch","orientation":true,"max_rate_hz":1}"#)
        _ = try watcher.readUntil(timeoutSeconds: 10) { $0["orientation"]?.stringValue == "right-up" }
        let json = runCtl(["watch", "--orientation", "--json", "--count", "1", "--config", daemon.config])
        #expect(json.out == #"{"class":"ORIENTATION","orientation":"right-up"}"# + "\n", "err: \(json.err)")
        let text = runCtl(["status", "--config", daemon.config])
        #expect(text.out.contains("\n  orientation:  right-up\n"), "out: \(text.out)")
    }
}
