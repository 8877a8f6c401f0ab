import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance (level-triggered). Wraps `epoll_create1`, `epoll_ctl` and `epoll_wait`;
/// each registration carries a 64-bit token that comes back with its events.
final class Epoll {
    let fd: Int32
    private var buffer = [epoll_event](repeating: epoll_event(), count: 64)

    static let readable = UInt32(EPOLLIN.rawValue)
    static let writable = UInt32(EPOLLOUT.rawValue)
    static let hangup = UInt32(EPOLLHUP.rawValue) | UInt32(EPOLLERR.rawValue) | UInt32(EPOLLRDHUP.rawValue)

    init() throws(SystemError) {
        fd = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    deinit { close(fd) }

    func add(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, target, events, token)
    }

    func modify(_ target: Int32, events: UInt32, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, target, events, token)
    }

    /// Removes `target`; a descriptor already closed or never added is not an error.
    func remove(_ target: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &ev)
    }

    private func control(_ op: Int32, _ target: Int32, _ events: UInt32, _ token: UInt64) throws(SystemError) {
        var ev = epoll_event()
        ev.events = events
        ev.data.u64 = token
        try syscall("epoll_ctl(fd \(target))") { epoll_ctl(fd, op, target, &ev) }
    }

    /// Waits for events; `timeoutMilliseconds` −1 waits without limit. Returns (token, events).
    func wait(timeoutMilliseconds: Int32) throws(SystemError) -> [(token: UInt64, events: UInt32)] {
        let count = buffer.count
        let n = try syscall("epoll_wait") {
            buffer.withUnsafeMutableBufferPointer { epoll_wait(fd, $0.baseAddress, Int32(count), timeoutMilliseconds) }
        }
        var result: [(token: UInt64, events: UInt32)] = []
        result.reserveCapacity(Int(n))
        for i in 0..<Int(n) { result.append((buffer[i].data.u64, buffer[i].events)) }
        return result
    }
}
