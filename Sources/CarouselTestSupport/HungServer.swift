#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on loopback that has hung, as an iiod on a stopped host looks to libiio: the
/// kernel completes connections (listen backlog) but nothing is ever answered, so libiio waits
/// for its 5 s network timeout. Closing it resets the connections not accepted yet, which ends
/// those waits at once.
public final class HungServer {
    public let fd: Int32
    /// The port it listens on, on 127.0.0.1.
    public let port: UInt16
    /// Connections taken with `acceptConnection`, held open and never answered.
    private var accepted: [Int32] = []

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, listen(fd, 256) == 0 else {
            Glibc.close(fd)
            throw TestSupportError("bind/listen on 127.0.0.1: errno \(errno)")
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close() }

    /// Waits up to `timeoutSeconds` for a client to have connected and takes its connection
    /// (held open, never answered); false when none came.
    public func acceptConnection(timeoutSeconds: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(timeoutSeconds * 1000)) > 0 else { return false }
        let connection = accept(fd, nil, nil)
        guard connection >= 0 else { return false }
        accepted.append(connection)
        return true
    }

    /// Stops listening and closes every connection (the peers see a reset or EOF).
    public func close() {
        for c in accepted { Glibc.close(c) }
        accepted.removeAll()
        if fd >= 0, !closed { Glibc.close(fd); closed = true }
    }
    private var closed = false
}
