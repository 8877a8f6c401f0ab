#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CarouselPosix
import CarouselProtocol

/// A connection to carouseld's Unix socket speaking the protocol of docs/PROTOCOL.md "Conventions" (NDJSON both
/// ways), for the client commands of `carouselctl` (`status`, `watch`, `scroll-to`, …) and for
/// `calibrate` (the `samples` stream).
///
/// Blocking I/O with `poll(2)` deadlines: a client command is one short exchange, and `watch`
/// simply reads until the daemon closes or the command has seen enough. Every failure is a
/// `CommandError` carrying the exit status of docs/CLI.md "EXIT STATUS", so the commands only rethrow:
/// - no socket file / connection refused → 69, naming the socket path ("is carouseld running?");
/// - permission denied on the socket → 77;
/// - `ERROR` replies: `not_allowed` → 77, `bad_field`/`bad_json` → 65, `unavailable`/`too_many_clients`/`idle_timeout` → 69,
///   `unknown_cmd` → 69 (a daemon too old for the command), `too_long` → 64;
/// - the daemon closing the connection or falling silent past the timeout → 74.
public final class DaemonClient {
    /// The socket carouseld listens on by default (`[server] socket`, docs/CONFIGURATION.md "[server]").
    public static let defaultSocketPath = "/run/carouseld/carouseld.sock"

    public let socketPath: String
    /// How long to wait for a reply, seconds.
    public var timeoutSeconds: Double
    /// The daemon's `VERSION` greeting.
    public private(set) var greeting: WireJSON = .null
    /// The text of the last message read (without newline), for `--json` pass-through.
    public private(set) var lastLine = ""

    private var fd: Int32
    private var framer = LineFramer(limit: 16 * 1024 * 1024)

    /// Connects and reads the `VERSION` greeting.
    /// - Throws: `CommandError` (69 not running or `too_many_clients`, 77 permission, 74 I/O or
    ///   no greeting).
    public init(socketPath: String, timeoutSeconds: Double = 5) throws(CommandError) {
        self.socketPath = socketPath
        self.timeoutSeconds = timeoutSeconds
        guard !socketPath.isEmpty else {
            throw CommandError(.usage, "the socket path is empty: give carouseld's socket with --socket PATH")
        }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CommandError(.ioError, "socket(AF_UNIX): \(Self.errnoText(errno))") }
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, socketPath)
        guard length > 0 else {
            // close(), not close(2): it sets fd to -1, and deinit runs too (the object is whole).
            close()
            throw CommandError(.usage, "socket path '\(socketPath)' is too long for a Unix socket")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        if result != 0 {
            let e = errno
            close()
            switch e {
            case ECONNREFUSED where Self.kind(of: socketPath) != nil:
                // connect(2) refuses a path that is not a socket just like a socket nobody
                // listens on; "not running" would send the user looking for a daemon.
                throw CommandError(.unavailable,
                                   "cannot connect to \(socketPath): it is \(Self.kind(of: socketPath) ?? ""), not a socket; "
                                   + "give carouseld's socket with --socket PATH (scripts/demo prints it; the installed "
                                   + "daemon's is /run/carouseld/carouseld.sock)")
            case ENOENT, ECONNREFUSED, ENOTDIR:
                throw CommandError(.unavailable,
                                   "carouseld is not running (cannot connect to \(socketPath): \(Self.errnoText(e))); "
                                   + "start it with 'systemctl start carouseld' or give its socket with --socket PATH")
            case EACCES, EPERM:
                throw CommandError(.noPermission, "permission denied connecting to \(socketPath) "
                                   + "(ask for membership of the socket's group)")
            default:
                throw CommandError(.ioError, "cannot connect to \(socketPath): \(Self.errnoText(e))")
            }
        }
        guard let hello = try readMessage(timeoutSeconds: timeoutSeconds) else {
            close()
            throw CommandError(.ioError, "\(socketPath): no VERSION greeting within \(fmt(timeoutSeconds)) s")
        }
        guard hello["class"]?.stringValue == "VERSION" else {
            close()
            // A full daemon greets with `ERROR too_many_clients` and closes: unavailable (69).
            if hello["class"]?.stringValue == "ERROR" {
                throw Self.error(from: hello, cmd: "connect", socketPath: socketPath)
            }
            throw CommandError(.ioError, "\(socketPath): expected a VERSION greeting, got \(lastLine.prefix(200))")
        }
        greeting = hello
    }

    /// What `path` is when it exists but is not a socket ("a directory", "a regular file", …),
    /// nil for a socket or a path that cannot be examined.
    static func kind(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK else { return nil }
        return BoundedFile.kindName(status.st_mode) ?? "a regular file"
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the connection (also done on deinit).
    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    /// Sends one request object (a JSON line; the newline is added).
    public func send(_ json: String) throws(CommandError) {
        var bytes = Array(json.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.send(fd, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandError(.ioError, "\(socketPath): send failed: \(Self.errnoText(errno))")
            }
            offset += n
        }
    }

    /// Reads the next message.
    /// - Parameter timeoutSeconds: how long to wait; nil waits forever.
    /// - Returns: the parsed object, or nil when nothing arrived in time.
    /// - Throws: `CommandError(.ioError)` when the daemon closed the connection or sent bad JSON.
    public func readMessage(timeoutSeconds: Double?) throws(CommandError) -> WireJSON? {
        let deadline = timeoutSeconds.map { clinux_monotonic_ns() + Int64($0 * 1e9) }
        while true {
            let next: ArraySlice<UInt8>?
            do {
                next = try framer.nextLine()
            } catch {
                throw CommandError(.ioError, "\(socketPath): a message longer than \(error.limit) bytes")
            }
            if let line = next {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                lastLine = String(decoding: line, as: UTF8.self)
                do {
                    return try WireJSONParser.parse(line)
                } catch {
                    throw CommandError(.ioError, "\(socketPath): the daemon sent invalid JSON (\(error))")
                }
            }
            var waitMs: Int32 = -1
            if let deadline {
                let left = deadline - clinux_monotonic_ns()
                if left <= 0 { return nil }
                waitMs = Int32(min(Int64(Int32.max), (left + 999_999) / 1_000_000))
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, waitMs)
            if ready < 0 {
                if errno == EINTR { continue }
                throw CommandError(.ioError, "\(socketPath): poll failed: \(Self.errnoText(errno))")
            }
            if ready == 0 { continue }  // re-check the deadline
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return recv(fd, base, buffer.count, 0)
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw CommandError(.ioError, "\(socketPath): receive failed: \(Self.errnoText(errno))")
            }
            if n == 0 { throw CommandError(.ioError, "\(socketPath): the daemon closed the connection") }
            framer.append(chunk[0..<n])
        }
    }

    /// Sends `request` and returns the first reply whose `class` is in `expecting`, skipping the
    /// STATE/INDEX/SENSOR/SAMPLE messages a watching connection may receive meanwhile, and
    /// ACK/ERROR replies that name another command.
    /// - Throws: `CommandError` for an `ERROR` reply (mapped as described on the type), a timeout
    ///   (74) or a closed connection (74).
    public func request(_ request: String, cmd: String, expecting: Set<String>) throws(CommandError) -> WireJSON {
        try send(request)
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while true {
            let left = Double(deadline - clinux_monotonic_ns()) * 1e-9
            guard left > 0, let message = try readMessage(timeoutSeconds: left) else {
                throw CommandError(.ioError, "\(socketPath): no reply to '\(cmd)' within \(fmt(timeoutSeconds)) s")
            }
            let kind = message["class"]?.stringValue ?? ""
            // ACK and ERROR name their command: one for an earlier request (e.g. the ACK of
            // `samples` disabling the stream) is not this reply.
            if kind == "ACK" || kind == "ERROR", let other = message["cmd"]?.stringValue, other != cmd { continue }
            if expecting.contains(kind) { return message }
            if kind == "ERROR" { throw Self.error(from: message, cmd: cmd, socketPath: socketPath) }
        }
    }

    /// The `CommandError` for an `ERROR {code, message, cmd?}` object.
    public static func error(from message: WireJSON, cmd: String, socketPath: String) -> CommandError {
        let code = message["code"]?.stringValue ?? "?"
        let text = TerminalText.visible(message["message"]?.stringValue ?? "")
        let what = "carouseld refused '\(cmd)': \(TerminalText.visible(code))\(text.isEmpty ? "" : ": \(text)")"
        switch ProtocolErrorCode(rawValue: code) {
        case .notAllowed?:
            return CommandError(.noPermission, what + " (control commands need root, the daemon's user or [server] control_group)")
        case .badField?, .badJSON?: return CommandError(.dataError, what)
        case .tooLong?: return CommandError(.usage, what)
        case .unavailable?, .tooManyClients?, .idleTimeout?: return CommandError(.unavailable, what)
        case .unknownCommand?: return CommandError(.unavailable, what + " (is carouseld older than carouselctl?)")
        case nil: return CommandError(.ioError, what)
        }
    }

    static func errnoText(_ e: Int32) -> String { String(cString: strerror(e)) }
}
