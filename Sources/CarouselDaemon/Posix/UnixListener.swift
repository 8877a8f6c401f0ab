import CarouselPosix
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Why the listening socket could not be set up.
public enum ListenerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another live process accepts connections on the path (a second daemon): exit 69.
    case alreadyServed(path: String)
    /// The path exists and is not a socket; it is left alone.
    case notASocket(path: String)
    /// The path is longer than `sun_path` allows.
    case pathTooLong(path: String)
    /// socket/bind/listen/chmod/chown failed.
    case system(SystemError)

    public var description: String {
        switch self {
        case let .alreadyServed(path): return "\(path): another carouseld is already serving this socket"
        case let .notASocket(path): return "\(path): exists and is not a socket; not replacing it"
        case let .pathTooLong(path): return "\(path): socket path too long (max 107 bytes)"
        case let .system(error): return error.description
        }
    }
}

/// The daemon's listening Unix stream socket.
enum UnixListener {
    /// Binds and listens on `path` (non-blocking, close-on-exec). A stale socket file left by a
    /// crashed daemon (connect → ECONNREFUSED) is replaced; a live one makes this fail with
    /// `alreadyServed`. Then applies `mode` and, when given, the group `gid`, and listens with
    /// `backlog` pending connections (see `backlog(maxClients:)`).
    static func bind(path: String, mode: UInt32, gid: UInt32?, backlog: Int32 = 128) throws(ListenerError) -> Int32 {
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        guard length > 0 else { throw .pathTooLong(path: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(SystemError("socket", errno: Errno.current)) }
        do throws(ListenerError) {
            if try !bindOnce(fd, &address, length, path) {
                // EADDRINUSE: a live daemon, or a stale file from a crashed one?
                if probe(path) { throw ListenerError.alreadyServed(path: path) }
                var st = stat()
                if lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFSOCK { throw ListenerError.notASocket(path: path) }
                _ = unlink(path)
                if try !bindOnce(fd, &address, length, path) { throw ListenerError.alreadyServed(path: path) }
            }
            do throws(SystemError) {
                try syscall("chmod \(path)") { chmod(path, mode_t(mode)) }
                if let gid { try syscall("chown \(path)") { chown(path, uid_t.max, gid_t(gid)) } }
                try syscall("listen \(path)") { listen(fd, backlog) }
            } catch {
                _ = unlink(path)
                throw ListenerError.system(error)
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// The listen backlog for `max_clients` connections: room for all of them to connect at once
    /// (a burst of `max_clients` non-blocking connects must not see `EAGAIN` while the daemon is
    /// busy), at least 128. The kernel caps it at `net.core.somaxconn` (4096 by default since
    /// Linux 5.4, the largest `max_clients`).
    static func backlog(maxClients: Int) -> Int32 {
        Int32(clamping: max(128, maxClients))
    }

    /// Binds; false on EADDRINUSE. Other errors name `path` (ENOENT alone does not say that the
    /// socket's directory is what is missing).
    private static func bindOnce(_ fd: Int32, _ address: inout sockaddr_un, _ length: Int32, _ path: String) throws(ListenerError) -> Bool {
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(length)) }
        }
        if r == 0 { return true }
        let e = Errno.current
        if e.rawValue == EADDRINUSE { return false }
        throw .system(SystemError("bind \(path)", errno: e))
    }

    /// Whether something accepts connections on `path` now.
    static func probe(_ path: String) -> Bool {
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        guard length > 0 else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        return r == 0
    }

    /// The group id of `name` (`getgrnam_r`), nil when there is no such group.
    static func groupID(_ name: String) -> UInt32? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let r = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard r == 0, result != nil else { return UInt32(name) } // a numeric gid is accepted too
        return UInt32(group.gr_gid)
    }
}
