import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, defect 8: after `too_long` the daemon kept reading and discarding the client's
/// input until its 2 s linger ran out, so a hostile client could push data through it for that
/// long. It now closes the connection as soon as the final ERROR is written; the bound is
/// checked by counting the bytes the client manages to send, not by timing.
@Suite(.serialized) struct EndToEndPromptCloseTests {
    /// Sends `chunk` in a loop with blocking `send` until the daemon's side is gone (EPIPE,
    /// ECONNRESET) or `cap` bytes went; returns the bytes sent.
    private func sendUntilClosed(_ fd: Int32, cap: Int) -> Int {
        let chunk = [UInt8](repeating: 0x41, count: 65536)
        var total = 0
        while total < cap {
            let n = chunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            total += n
        }
        return total
    }

    @Test func afterTooLongTheDaemonStopsReadingAtOnce() throws {
        let daemon = try E2EDaemon("promptclose")
        let c = try daemon.client()
        // 64 KiB + 1 byte without a newline is too long; then keep writing, as a flood would.
        // Closed at once, the daemon takes what fits in the socket buffers (a few hundred KB)
        // before `send` fails; reading and discarding for 2 s, it took hundreds of megabytes.
        let cap = 64 << 20
        let sent = sendUntilClosed(c.fd, cap: cap)
        #expect(sent < 2 << 20, "the daemon read \(sent) bytes of a connection it had already refused")
        let e = try c.readJSON()
        #expect(e["code"] == .string("too_long"))
        #expect(try c.waitForClose())
        // The daemon carries on.
        let other = try daemon.client()
        try other.send(#"{"cmd":"poll"}"#)
        #expect(try other.readJSON().isState)
        #expect(try daemon.stop() == 0)
    }

    @Test func aClosingConnectionWhoseErrorWaitsForRoomIsNotRead() throws {
        let daemon = try E2EDaemon("promptclose-blocked")
        let c = try daemon.client()
        // Requests whose replies the client does not read: 400 STATUS lines (~300 bytes each)
        // fill the daemon's 16 KiB socket buffer and wait in its outbox.
        try c.sendRaw(Array(String(repeating: #"{"cmd":"status"}"# + "\n", count: 400).utf8))
        // Then a line too long: its ERROR queues behind them, and cannot be written.
        try c.sendRaw([UInt8](repeating: 0x41, count: 70_000))
        // Flood without blocking. The daemon no longer reads this connection, so `send` soon
        // finds the socket full and the client waits for room; at the linger time (2 s) the
        // daemon closes. Reading and discarding until then, it took tens of megabytes.
        _ = fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK)
        let chunk = [UInt8](repeating: 0x41, count: 65536)
        let cap = 64 << 20
        var sent = 0
        var closed = false
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while sent < cap, clinux_monotonic_ns() < deadline {
            let n = chunk.withUnsafeBytes { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            let e = errno
            if e == EINTR { continue }
            if e != EAGAIN { closed = true; break }
            var p = pollfd(fd: c.fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 5000)
            if p.revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0 { closed = true; break }
        }
        #expect(closed, "the daemon did not close the connection")
        #expect(sent < 2 << 20, "the daemon read \(sent) bytes of a connection it was closing")
        let other = try daemon.client()
        try other.send(#"{"cmd":"poll"}"#)
        #expect(try other.readJSON().isState)
        #expect(try daemon.stop() == 0)
    }
}
