import CLinux
import CarouselProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A failure on the daemon's socket, with the socket path and errno when there is one.
public struct DaemonConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func errno(_ what: String, _ code: Int32) -> DaemonConnectionError {
        DaemonConnectionError("\(what): \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// The bridge's connection to carouseld's Unix socket (docs/PROTOCOL.md): non-blocking, read and
/// written from the bridge's `poll(2)` loop. Incoming lines go through `LineFramer` and
/// `WireJSONParser` (the protocol's own framing and parser); outgoing request lines wait in a
/// buffer bounded by `outputLimit`, so a daemon that stops reading cannot make the bridge grow.
final class DaemonConnection {
    let socketPath: String
    /// Most bytes of requests queued for the daemon; `send` refuses beyond it.
    static let outputLimit = 64 * 1024
    /// Longest line accepted from the daemon (a STATE without items is about 250 bytes).
    static let lineLimit = 1024 * 1024

    private(set) var fd: Int32 = -1
    private var framer = LineFramer(limit: DaemonConnection.lineLimit)
    private var output: [UInt8] = []

    init(socketPath: String) { self.socketPath = socketPath }
    deinit { close() }

    var isOpen: Bool { fd >= 0 }
    /// Whether queued output waits for the socket to become writable.
    var wantsWrite: Bool { !output.isEmpty }

    /// Connects (a Unix socket connects at once or fails at once).
    /// - Throws: `DaemonConnectionError` naming the path and errno (ENOENT/ECONNREFUSED: the
    ///   daemon is not running; EACCES: the bridge's user may not connect).
    func open() throws(DaemonConnectionError) {
        close()
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard s >= 0 else { throw .errno("socket(AF_UNIX)", Glibc.errno) }
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, socketPath)
        guard length > 0 else {
            Glibc.close(s)
            throw DaemonConnectionError("socket path \(socketPath) is too long for a Unix socket")
        }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(length)) }
        }
        if r != 0 {
            let e = Glibc.errno
            Glibc.close(s)
            throw .errno("connect \(socketPath)", e)
        }
        fd = s
        framer = LineFramer(limit: Self.lineLimit)
        output.removeAll()
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
        output.removeAll()
    }

    /// Queues one request line; false (nothing queued) when `outputLimit` would be exceeded.
    func send(_ line: [UInt8]) -> Bool {
        guard isOpen, output.count + line.count <= Self.outputLimit else { return false }
        output.append(contentsOf: line)
        return true
    }

    /// Writes as much queued output as the socket takes.
    func flush() throws(DaemonConnectionError) {
        while !output.isEmpty {
            let n = output.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                let e = Glibc.errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return }
                throw .errno("send to \(socketPath)", e)
            }
            output.removeFirst(n)
        }
    }

    /// Reads what is available and returns the complete messages, in order.
    /// - Throws: `DaemonConnectionError` when the daemon closed the connection, on a read error,
    ///   a line over `lineLimit` or a line that is not JSON (the connection is then unusable).
    func receive() throws(DaemonConnectionError) -> [WireJSON] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var messages: [WireJSON] = []
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                let e = Glibc.errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { break }
                throw .errno("receive from \(socketPath)", e)
            }
            if n == 0 { throw DaemonConnectionError("carouseld closed the connection on \(socketPath)") }
            framer.append(chunk[0..<n])
            while true {
                let line: ArraySlice<UInt8>?
                do { line = try framer.nextLine() } catch {
                    throw DaemonConnectionError("carouseld sent a line longer than \(error.limit) bytes")
                }
                guard let line else { break }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                do { messages.append(try WireJSONParser.parse(line)) } catch {
                    throw DaemonConnectionError("carouseld sent invalid JSON (\(error))")
                }
            }
            if n < chunk.count { break }
        }
        return messages
    }
}
