import CarouselPosix

/// The descriptors an `IIOSensorSource` waits on (readers' buffer fds or timerfds, the silence
/// watchdog, the udev monitor) gathered in one `Epoll`, whose own fd is what the daemon's loop
/// waits on. Each member's token is its fd.
final class DescriptorSet {
    private let epoll: Epoll
    private var members: Set<Int32> = []

    /// - Throws: `SystemError` naming `epoll_create1`.
    init() throws(SystemError) { epoll = try Epoll() }

    /// The epoll fd: readable while any member is.
    var fd: Int32 { epoll.fd }

    /// Makes the set hold exactly `wanted`. Everything is removed and re-added: a closed fd
    /// leaves an epoll set by itself and its number may already belong to a new buffer or
    /// timer, so a diff against the old members could miss it.
    func replaceMembers(with wanted: Set<Int32>) {
        for fd in members { epoll.remove(fd) }
        for fd in wanted { try? epoll.add(fd, events: Epoll.readable, token: UInt64(UInt32(bitPattern: fd))) }
        members = wanted
    }

    /// Whether member `fd` has input waiting (one look, no waiting); true when the set cannot
    /// tell, so the caller asks the member itself. The udev monitor is read only then: asking
    /// libudev on every sample cost a `recvmsg` per sample, far heavier under umockdev, which
    /// emulates the uevent socket.
    func isReady(_ fd: Int32) -> Bool {
        readyMembers()?.contains(fd) ?? true
    }

    /// The members that have input waiting now (one `epoll_wait`, no waiting), or nil when the
    /// set cannot tell. One look serves the whole of a wake-up: the source reads only the
    /// readers and timers that are ready, instead of a refill or timerfd read that would only
    /// find EAGAIN (a wake-up per scan makes every system call count).
    func readyMembers() -> Set<Int32>? {
        guard let ready = try? epoll.wait(timeoutMilliseconds: 0) else { return nil }
        return Set(ready.map { Int32(bitPattern: UInt32(truncatingIfNeeded: $0.token)) })
    }
}
