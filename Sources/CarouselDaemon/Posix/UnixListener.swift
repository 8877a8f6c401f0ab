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
    /// The socket's directory is writable by every user and has no sticky bit: anyone could
    /// replace the socket file (or a symlink in its place) there.
    case unsafeDirectory(directory: String, path: String)
    /// The socket's directory does not exist (the default `/run/carouseld` is made by systemd
    /// for the service, so a daemon started by hand meets this first).
    case missingDirectory(directory: String, path: String)
    /// socket/bind/listen/chmod/chown failed.
    case system(SystemError)

    public var description: String {
        switch self {
        case let .alreadyServed(path): return "\(path): another carouseld is already serving this socket"
        case let .notASocket(path): return "\(path): exists and is not a socket; not replacing it"
        case let .pathTooLong(path): return "\(path): socket path too long (max 107 bytes)"
        case let .unsafeDirectory(directory, path):
            return "\(path): its directory \(directory) is writable by every user and has no sticky bit, so any user "
                + "could replace the socket; use a directory only the daemon's user can write (such as /run/carouseld) "
                + "or set the sticky bit (chmod +t \(directory))"
        case let .missingDirectory(directory, path):
            return "\(path): its directory \(directory) does not exist (carouseld.service has systemd create "
                + "/run/carouseld); started by hand, give a socket in a folder of yours with --socket PATH, as scripts/demo does"
        case let .system(error): return error.description
        }
    }
}

/// The socket file a daemon bound, by device and inode: what it may remove at exit. A path
/// alone is not enough, since another daemon may have bound the same path since (after this
/// one's file was removed by hand).
struct BoundSocketFile: Equatable, Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64

    /// Removes the file at `path` only while it is still the one this daemon bound.
    func removeIfOurs() {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK,
              UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else { return }
        _ = unlink(path)
    }
}

/// The daemon's listening Unix stream socket.
enum UnixListener {
    /// Binds and listens on `path` (non-blocking, close-on-exec). A stale socket file left by a
    /// crashed daemon (connect → ECONNREFUSED) is replaced; a live one makes this fail with
    /// `alreadyServed`. The socket is bound in a private directory (mode 0700, beside `path`)
    /// and gets `mode` and, when given, the group `gid` there, where no other user can swap the
    /// file for a symlink; then it is hard-linked to `path` (`link` fails rather than replace
    /// a file that appeared meanwhile). Nothing is done by `path` after that, so a racer who
    /// replaces `path` cannot redirect a `chmod` or `chown`. Listens with `backlog` pending
    /// connections (see `backlog(maxClients:)`).
    /// - Throws: `unsafeDirectory` when `path`'s directory is writable by every user without
    ///   the sticky bit (anyone could replace the socket there); `missingDirectory`, `pathTooLong`, `notASocket`,
    ///   `alreadyServed`, or `system` naming the call that failed.
    static func bind(path: String, mode: UInt32, gid: UInt32?, backlog: Int32 = 128) throws(ListenerError)
        -> (fd: Int32, file: BoundSocketFile) {
        var address = sockaddr_un()
        guard clinux_sockaddr_un(&address, path) > 0 else { throw .pathTooLong(path: path) }
        let directory = parentDirectory(of: path)
        var dirStat = stat()
        guard stat(directory, &dirStat) == 0 else {
            let error = Errno.current
            if error == .noSuchFileOrDirectory { throw .missingDirectory(directory: directory, path: path) }
            throw .system(SystemError("bind \(path)", errno: error))
        }
        if dirStat.st_mode & S_IWOTH != 0 && dirStat.st_mode & S_ISVTX == 0 {
            throw .unsafeDirectory(directory: directory, path: path)
        }
        var template = Array((directory + "/.carouseld-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .system(SystemError("bind \(path)", errno: Errno.current)) }
        let privateDirectory = String(cString: made)
        let privatePath = privateDirectory + "/s"
        defer {
            _ = unlink(privatePath)
            _ = rmdir(privateDirectory)
        }
        // The private path is longer than `path`; when it passes `sun_path`, bind through the
        // directory's descriptor (`/proc/self/fd/N/s`), as systemd does for long paths.
        var privateAddress = sockaddr_un()
        var length = clinux_sockaddr_un(&privateAddress, privatePath)
        var directoryFD: Int32 = -1
        defer { if directoryFD >= 0 { close(directoryFD) } }
        if length <= 0 {
            directoryFD = open(privateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directoryFD >= 0 else { throw .system(SystemError("open \(privateDirectory)", errno: Errno.current)) }
            length = clinux_sockaddr_un(&privateAddress, "/proc/self/fd/\(directoryFD)/s")
            guard length > 0 else { throw .pathTooLong(path: path) }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(SystemError("socket", errno: Errno.current)) }
        do throws(ListenerError) {
            let bound = withUnsafePointer(to: &privateAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(length)) }
            }
            if bound != 0 { throw ListenerError.system(SystemError("bind \(path)", errno: Errno.current)) }
            var st = stat()
            do throws(SystemError) {
                try syscall("chmod \(path)") { chmod(privatePath, mode_t(mode)) }
                if let gid { try syscall("chown \(path)") { chown(privatePath, uid_t.max, gid_t(gid)) } }
                try syscall("stat \(path)") { lstat(privatePath, &st) }
                try syscall("listen \(path)") { listen(fd, backlog) }
            } catch {
                throw ListenerError.system(error)
            }
            try place(privatePath, at: path)
            return (fd, BoundSocketFile(path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Hard-links the bound socket to `path`. A file already there is a live daemon's socket
    /// (`alreadyServed`), something else (`notASocket`, left alone) or a stale socket of a
    /// crashed daemon, which is replaced.
    private static func place(_ privatePath: String, at path: String) throws(ListenerError) {
        for attempt in 0..<2 {
            if link(privatePath, path) == 0 { return }
            let e = Errno.current
            guard e.rawValue == EEXIST, attempt == 0 else {
                if e.rawValue == EEXIST { throw .alreadyServed(path: path) }
                throw .system(SystemError("link \(path)", errno: e))
            }
            if probe(path) { throw .alreadyServed(path: path) }
            var st = stat()
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFSOCK { throw .notASocket(path: path) }
            _ = unlink(path)
        }
    }

    /// The directory part of `path` (`.` for a bare name).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The listen backlog for `max_clients` connections: room for all of them to connect at once
    /// (a burst of `max_clients` non-blocking connects must not see `EAGAIN` while the daemon is
    /// busy), at least 128. The kernel caps it at `net.core.somaxconn` (4096 by default since
    /// Linux 5.4, the largest `max_clients`).
    static func backlog(maxClients: Int) -> Int32 {
        Int32(clamping: max(128, maxClients))
    }

    /// Whether something listens on `path` now: it accepts the connection, or its backlog is
    /// full (a daemon that is stopped or stuck still owns its socket). The connect does not
    /// block: a blocking `connect` to a full backlog waits in the kernel, deaf to SIGTERM, for as
    /// long as the other daemon does not accept. A connect still in progress after
    /// `timeoutMilliseconds` counts as a listener too.
    static func probe(_ path: String, timeoutMilliseconds: Int32 = 1000) -> Bool {
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        guard length > 0 else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        if r == 0 { return true }
        switch Errno.current.rawValue {
        case EAGAIN: return true  // a listener whose backlog is full (AF_UNIX reports it so)
        case EINPROGRESS:
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard (try? retryingInterrupts({ poll(&p, 1, timeoutMilliseconds) })) == 1 else { return true }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0
        default: return false
        }
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
