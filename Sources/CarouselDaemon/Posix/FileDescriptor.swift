import CarouselPosix
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor, in the style of swift-system's `FileDescriptor`: one value type
/// over the C `int`, whose calls retry EINTR and throw `Errno` (never a −1 sentinel).
struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    var description: String { "fd \(rawValue)" }

    /// Takes a waiting connection from this listening socket, non-blocking and close-on-exec.
    /// Wraps `accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)`.
    /// - Throws: `Errno`, e.g. `.wouldBlock` when no connection waits.
    func accept() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { clinux_accept(rawValue) })
    }

    /// Reads what is available without blocking; 0 at the end of input. Wraps
    /// `recv(fd, buf, len, MSG_DONTWAIT)`.
    /// - Throws: `Errno`, `.wouldBlock` when nothing is available.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts { recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    /// Writes what the socket takes without blocking; a vanished peer is `EPIPE`, not SIGPIPE.
    /// Wraps `send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)`.
    /// - Throws: `Errno`, `.wouldBlock` when the socket is full.
    func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts {
            Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
    }

    /// Sets the socket's send buffer, bytes (the kernel doubles it for its bookkeeping).
    /// Wraps `setsockopt(fd, SOL_SOCKET, SO_SNDBUF, …)`.
    func setSendBufferSize(_ bytes: Int32) throws(Errno) {
        var value = bytes
        try retryingInterrupts { setsockopt(rawValue, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// Makes the descriptor non-blocking. Wraps `fcntl(F_GETFL)` and `fcntl(F_SETFL, … | O_NONBLOCK)`.
    func setNonBlocking() throws(Errno) {
        let flags = try retryingInterrupts { fcntl(rawValue, F_GETFL) }
        try retryingInterrupts { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// The peer's pid, uid and gid. Wraps `getsockopt(SO_PEERCRED)`.
    func peerCredentials() throws(Errno) -> PeerCredentials {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        try retryingInterrupts { clinux_peer_credentials(rawValue, &pid, &uid, &gid) }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    /// Whether the peer has hung up or shut down its side, without waiting. Wraps `poll` with
    /// POLLIN | POLLRDHUP and a zero timeout.
    /// - Returns: `hungUp` for POLLHUP/POLLERR, `readClosed` for POLLRDHUP.
    func pollHangUp() -> (hungUp: Bool, readClosed: Bool) {
        // POLLRDHUP (0x2000, <poll.h> under _GNU_SOURCE, which Swift's Glibc does not define).
        let rdhup: Int16 = 0x2000
        var p = pollfd(fd: rawValue, events: Int16(POLLIN) | rdhup, revents: 0)
        guard (try? retryingInterrupts { poll(&p, 1, 0) }) == 1 else { return (false, false) }
        return (p.revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0, p.revents & rdhup != 0)
    }

    /// Closes the descriptor. Wraps `close`; EINTR is not retried (Linux has released the
    /// descriptor by then, and a retry could close one just reused).
    func close() {
        _ = Glibc.close(rawValue)
    }
}
