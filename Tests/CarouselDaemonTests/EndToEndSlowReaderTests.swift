import CarouselProtocol
import CLinux
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A watcher that stops reading for a while gets the newest STATE when it reads again, not a
/// backlog of seconds-old ones (docs/PROTOCOL.md "Publishing rules": "a slow client receives only the newest STATE
/// when it drains"). The daemon coalesces STATEs once a client's socket refuses more; with the
/// kernel's default send buffer (~208 KiB) that took ~230 STATEs (~4 s at 60 Hz) of backlog.
@Suite(.serialized) struct EndToEndSlowReaderTests {
    @Test func aWatcherThatPausesReadsLittleBacklogBeforeTheNewestState() throws {
        // A steady 20° roll: the cyclic carousel scrolls without end and a watcher is due a
        // STATE every 1/60 s.
        let daemon = try E2EDaemon.steadyRoll("slow-reader-backlog", scrolling: true)
        let c = try daemon.client()
        try c.send(#"{"cmd":"watch"}"#)
        _ = try c.readUntil { $0.isState && $0["phase"] == .string("tilting") }
        // 3 s without reading: 180 STATEs are due meanwhile.
        var pause = timespec(tv_sec: 3, tv_nsec: 0)
        nanosleep(&pause, nil)
        let resumedNanoseconds = Double(clinux_monotonic_ns())
        // What was waiting, up to the first STATE made after the pause.
        let lines = try c.readUntil(timeoutSeconds: 5) { $0.isState && ($0["time_ns"]?.number ?? 0) >= resumedNanoseconds }
        let backlog = lines.filter(\.isState).count - 1
        // At most about half a second of old STATEs (the kernel's buffer, bounded by the daemon),
        // then coalesced ones: not the 3 s the pause lasted.
        #expect(backlog <= 45, "\(backlog) STATEs from before the pause were still queued")
        #expect(try daemon.stop() == 0)
    }
}
