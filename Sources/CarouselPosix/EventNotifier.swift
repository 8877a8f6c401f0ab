import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A wake-up one thread gives another through a descriptor it can poll: an eventfd (non-blocking,
/// close-on-exec) that is readable from `signal()` until `drain()`. Both calls are single
/// system calls on a descriptor that lives as long as the object, so any thread may make them;
/// the descriptor is closed when the last reference goes.
public final class EventNotifier: Sendable {
    /// The eventfd, for `poll` or an `Epoll` set (readable while signalled).
    public let fd: Int32

    /// - Throws: `SystemError` naming `eventfd` (EMFILE, ENFILE, ENOMEM).
    public init() throws(SystemError) {
        fd = try syscall("eventfd") { clinux_eventfd_create() }
    }

    deinit { close(fd) }

    /// Makes `fd` readable (signals coalesce: several before a `drain` are one wake-up).
    public func signal() { _ = clinux_eventfd_signal(fd) }

    /// Resets `fd` to not readable; returns whether it was signalled.
    @discardableResult
    public func drain() -> Bool { clinux_eventfd_drain(fd) > 0 }

    /// Waits until signalled or `timeoutMilliseconds` pass (-1: no limit), without draining;
    /// returns whether it is signalled.
    public func wait(timeoutMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, timeoutMilliseconds) > 0
    }
}
