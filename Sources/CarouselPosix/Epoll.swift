import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance (level-triggered). Wraps `epoll_create1`, `epoll_ctl` and `epoll_wait`;
/// each registration carries a 64-bit token that comes back with its events. The daemon's loop
/// and the IIO sensor source (which gathers its buffers, timers and udev monitor behind one fd
/// for that loop) both use it; the descriptor is closed when the object goes away.
public final class Epoll {
    /// The epoll descriptor itself (itself pollable: readable while any member has events).
    public let fd: Int32
    private var buffer = [epoll_event](repeating: epoll_event(), count: 64)

    /// EPOLLIN.
    public static let readable = UInt32(EPOLLIN.rawValue)
    /// EPOLLOUT.
    public static let writable = UInt32(EPOLLOUT.rawValue)
    /// EPOLLHUP, EPOLLERR and EPOLLRDHUP: the peer or the descriptor is gone.
    public static let hangup = UInt32(EPOLLHUP.rawValue) | UInt32(EPOLLERR.rawValue) | UInt32(EPOLLRDHUP.rawValue)

    /// - Throws: `SystemError` naming `epoll_create1` (EMFILE, ENOMEM).
    public init() throws(SystemError) {
        fd = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    deinit { close(fd) }

    /// Adds `target` with the `events` mask; `token` comes back with its events.
    /// - Throws: `SystemError` naming `epoll_ctl` and the descriptor (EEXIST, EBADF, …).
    public func add(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, target, events, token)
    }

    /// Changes the events mask and token of a registered `target`.
    /// - Throws: `SystemError` naming `epoll_ctl` and the descriptor (ENOENT when not added).
    public func modify(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, target, events, token)
    }

    /// Removes `target`; a descriptor already closed or never added is not an error.
    public func remove(_ target: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &ev)
    }

    private func control(_ op: Int32, _ target: Int32, _ events: UInt32, _ token: UInt64) throws(SystemError) {
        var ev = epoll_event()
        ev.events = events
        ev.data.u64 = token
        try syscall("epoll_ctl(fd \(target))") { epoll_ctl(fd, op, target, &ev) }
    }

    /// Waits for events; `timeoutMilliseconds` −1 waits without limit, 0 only looks. Returns
    /// (token, events) for at most 64 ready registrations.
    /// - Throws: `SystemError` naming `epoll_wait` (EINTR is retried).
    public func wait(timeoutMilliseconds: Int32) throws(SystemError) -> [(token: UInt64, events: UInt32)] {
        let count = buffer.count
        // The buffer has 64 elements, so baseAddress is never nil; the `!` is needed because
        // Swift 6.0 imports epoll_wait's events parameter as a non-optional pointer.
        let n = try syscall("epoll_wait") {
            buffer.withUnsafeMutableBufferPointer { epoll_wait(fd, $0.baseAddress!, Int32(count), timeoutMilliseconds) }
        }
        var result: [(token: UInt64, events: UInt32)] = []
        result.reserveCapacity(Int(n))
        for i in 0..<Int(n) { result.append((buffer[i].data.u64, buffer[i].events)) }
        return result
    }
}
