import CarouselProtocol
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Why a test client or process helper gave up.
public struct TestSupportError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// An NDJSON client of the daemon's Unix socket for tests: every read waits with `poll()` for at
/// most a given time, so a broken daemon fails a test instead of hanging it.
public final class SocketClient {
    public private(set) var fd: Int32
    private var buffer: [UInt8] = []
    /// Every line read so far, in order (for diagnostics).
    public private(set) var transcript: [String] = []

    /// Whether a whole line has been received and not yet returned by `readLine`. One `recv`
    /// takes every line the socket holds, so such a line no longer makes the descriptor
    /// readable: a caller that polls `fd` before each `readLine` must ask this first, or the
    /// lines after the first of a burst wait until more bytes arrive (never, once the peer is
    /// quiet).
    public var hasBufferedLine: Bool { buffer.contains(0x0A) }

    /// Lines received from the socket but not yet returned by `readLine`, oldest first (the
    /// text after the last `\n`, a line still being received, is left out); for diagnostics.
    public var bufferedLines: [String] {
        guard let end = buffer.lastIndex(of: 0x0A) else { return [] }
        return buffer[..<end].split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Connects to `path` as this process.
    public convenience init(path: String) throws {
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        guard length > 0 else { throw TestSupportError("\(path): path too long") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(clinux_errno())") }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        guard r == 0 else {
            let e = clinux_errno()
            Glibc.close(fd)
            throw TestSupportError("connect \(path): errno \(e)")
        }
        self.init(fd: fd)
    }

    /// Connects to `path` as `uid`/`gid` with no supplementary groups (`clinux_connect_as`), so
    /// the daemon's SO_PEERCRED sees that user. Needs root.
    public convenience init(path: String, uid: UInt32, gid: UInt32) throws {
        let fd = clinux_connect_as(path, uid_t(uid), gid_t(gid))
        guard fd >= 0 else {
            let e = clinux_errno()
            // EACCES: the usual cause is a folder on the way that the user may not enter.
            let why = e == EACCES ? TestPrivileges.unreachableByOthers(path).map { " (\($0))" } ?? "" : ""
            throw TestSupportError("connect \(path) as uid \(uid): errno \(e)\(why)")
        }
        self.init(fd: fd)
    }

    /// Wraps a connected socket.
    public init(fd: Int32) { self.fd = fd }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends `line` plus `\n`.
    public func send(_ line: String) throws { try sendRaw(Array((line + "\n").utf8)) }

    /// Sends bytes as they are.
    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if clinux_errno() == EINTR { continue }
                throw TestSupportError("send: errno \(clinux_errno())")
            }
            offset += n
        }
    }

    /// The next line (without `\n`), nil at EOF or on a connection reset.
    /// - Throws: `TestSupportError` when nothing arrives within `timeoutSeconds`.
    public func readLine(timeoutSeconds: Double = 5) throws -> String? {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while true {
            if let i = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<i], as: UTF8.self)
                buffer.removeSubrange(...i)
                transcript.append(line)
                return line
            }
            let remaining = deadline - clinux_monotonic_ns()
            guard remaining > 0 else {
                throw TestSupportError("no line within \(timeoutSeconds) s; last lines: \(transcript.suffix(3))")
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(min(remaining / 1_000_000 + 1, Int64(Int32.max))))
            if r < 0 && clinux_errno() == EINTR { continue }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return nil }
            if n < 0 {
                if clinux_errno() == EINTR || clinux_errno() == EAGAIN { continue }
                return nil
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next line parsed as JSON.
    /// - Throws: on timeout, EOF, or a line that is not JSON.
    public func readJSON(timeoutSeconds: Double = 5) throws -> WireJSON {
        guard let line = try readLine(timeoutSeconds: timeoutSeconds) else {
            throw TestSupportError("connection closed; last lines: \(transcript.suffix(3))")
        }
        return try WireJSONParser.parse(line)
    }

    /// Reads JSON lines until one satisfies `predicate`; returns every line read, the match last.
    /// - Throws: when `timeoutSeconds` pass (in total) or the connection closes first.
    public func readUntil(timeoutSeconds: Double = 5, _ predicate: (WireJSON) -> Bool) throws -> [WireJSON] {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        var lines: [WireJSON] = []
        while true {
            let remaining = Double(deadline - clinux_monotonic_ns()) * 1e-9
            guard remaining > 0 else { throw TestSupportError("condition not met within \(timeoutSeconds) s; last lines: \(transcript.suffix(3))") }
            let v = try readJSON(timeoutSeconds: remaining)
            lines.append(v)
            if predicate(v) { return lines }
        }
    }

    /// Whether the server closed the connection (EOF) within `timeoutSeconds`, discarding lines.
    public func waitForClose(timeoutSeconds: Double = 5) throws -> Bool {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while clinux_monotonic_ns() < deadline {
            let remaining = Double(deadline - clinux_monotonic_ns()) * 1e-9
            do {
                if try readLine(timeoutSeconds: max(remaining, 0.001)) == nil { return true }
            } catch {
                return false
            }
        }
        return false
    }
}
