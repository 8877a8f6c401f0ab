import CSystemd
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Sockets passed by systemd socket activation (`carouseld.socket`), wrapping `sd_listen_fds(3)`
/// and `sd_is_socket_unix(3)`.
public enum SocketActivation {
    /// Why the passed sockets cannot be used.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// `LISTEN_FDS` is set but malformed (`sd_listen_fds` returned `-errno`).
        case invalidEnvironment(errno: Int32)
        /// systemd passed a file descriptor that is not a listening `AF_UNIX` stream socket.
        case notUnixStreamListener(fd: Int32)
        /// More than one socket was passed; carouseld serves one.
        case tooManySockets(count: Int)

        public var description: String {
            switch self {
            case .invalidEnvironment(let code):
                return "socket activation: LISTEN_FDS/LISTEN_PID unusable: \(String(cString: strerror(code)))"
            case .notUnixStreamListener(let fd):
                return "socket activation: fd \(fd) is not a listening AF_UNIX SOCK_STREAM socket (check ListenStream= in carouseld.socket)"
            case .tooManySockets(let count):
                return "socket activation: \(count) sockets passed, carouseld.socket must define exactly one ListenStream="
            }
        }
    }

    /// The listening Unix stream socket systemd passed, or `nil` when the daemon was not socket
    /// activated (then it binds `[server] socket` itself). The socket is already bound and
    /// listening: do not unlink or re-bind its path. `LISTEN_FDS`/`LISTEN_PID` are removed from
    /// the environment so children do not inherit them; the descriptor has `FD_CLOEXEC` set.
    /// - Throws: `Failure` when the passed descriptors are unusable.
    public static func takeListeningSocket() throws(Failure) -> Int32? {
        let count = sd_listen_fds(1)
        if count < 0 { throw .invalidEnvironment(errno: -count) }
        if count == 0 { return nil }
        if count > 1 { throw .tooManySockets(count: Int(count)) }
        let fd = SD_LISTEN_FDS_START
        guard isListeningUnixStreamSocket(fd) else { throw .notUnixStreamListener(fd: fd) }
        return fd
    }

    /// Whether `fd` is an `AF_UNIX` `SOCK_STREAM` socket in the listening state
    /// (`sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0)`).
    public static func isListeningUnixStreamSocket(_ fd: Int32) -> Bool {
        sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
    }
}
