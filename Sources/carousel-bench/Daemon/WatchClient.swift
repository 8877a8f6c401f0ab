import CLinux
import CarouselProtocol
import Glibc

/// One client of the daemon's Unix socket: sends request lines, collects received lines with
/// the CLOCK_MONOTONIC time at which the `recv` that completed them returned.
final class WatchClient {
    let fd: Int32
    private var pending: [UInt8] = []
    /// Where each received chunk ends in `pending` and when its `recv` returned (ns).
    private var arrivals: [(end: Int, at: Int64)] = []
    /// The receive buffer, reused: allocating and zeroing 64 KiB per `drain` cost the harness
    /// ~5 µs per client, which delayed the `recv` of the next watcher and inflated its latency.
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// Complete lines received and not yet taken, with their arrival time (ns).
    private(set) var lines: [(text: String, at: Int64)] = []

    /// Connects (non-blocking afterwards).
    /// - Throws: `BenchError` when the socket cannot be created or connected.
    init(socketPath: String) throws {
        // The descriptor becomes `self.fd` only once connected: a class whose stored properties
        // are all set runs `deinit` when its initializer throws, which would close it again
        // (possibly another thread's new descriptor by then).
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw BenchError.system("socket(AF_UNIX, SOCK_STREAM)") }
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, socketPath)
        guard length > 0 else { close(socketFD); throw BenchError("socket path too long: \(socketPath)") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(length)) }
        }
        guard rc == 0 else { let e = errno; close(socketFD); throw BenchError.system("connect \(socketPath)", e) }
        _ = fcntl(socketFD, F_SETFL, fcntl(socketFD, F_GETFL) | O_NONBLOCK)
        fd = socketFD
    }

    deinit { close(fd) }

    /// Sends one request line (a newline is appended).
    /// - Throws: `BenchError` when the write fails or is short.
    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        let deadline = BenchClock.monotonicNanoseconds() + 5_000_000_000
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR), BenchClock.monotonicNanoseconds() < deadline {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 100)
                continue
            }
            throw BenchError.system("send to carouseld")
        }
    }

    /// Reads whatever is available without blocking; returns false at end of stream.
    @discardableResult
    func drain() -> Bool {
        let open = receive()
        splitLines()
        return open
    }

    /// Only the `recv` calls of `drain`, each timestamped; the lines are split later by
    /// `splitLines()`, so a harness serving many watchers can take every socket's data (and its
    /// arrival time) before spending time on parsing.
    /// - Returns: false at end of stream.
    @discardableResult
    func receive() -> Bool {
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let at = BenchClock.monotonicNanoseconds()
            if n > 0 {
                pending.append(contentsOf: chunk[0..<n])
                arrivals.append((pending.count, at))
                continue
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            return true
        }
    }

    /// Whether the received, not yet split bytes hold a STATE line (a byte search, no parsing:
    /// the latency loop calls it between `recv`s).
    var hasPendingState: Bool {
        let pattern = Array(#""class":"STATE""#.utf8)
        guard pending.count >= pattern.count else { return false }
        return pending.withUnsafeBufferPointer { bytes in
            var i = 0
            while i + pattern.count <= bytes.count {
                if bytes[i] == pattern[0] {
                    var k = 1
                    while k < pattern.count && bytes[i + k] == pattern[k] { k += 1 }
                    if k == pattern.count { return true }
                }
                i += 1
            }
            return false
        }
    }

    /// Turns the received bytes into `lines`, each with the arrival time of the `recv` that
    /// completed it.
    func splitLines() {
        var start = 0
        var arrival = 0
        while let nl = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            while arrival < arrivals.count - 1, arrivals[arrival].end <= nl { arrival += 1 }
            lines.append((String(decoding: pending[start..<nl], as: UTF8.self), arrivals[arrival].at))
            start = nl + 1
        }
        pending.removeSubrange(0..<start)
        arrivals = arrivals.dropFirst(arrival).map { ($0.end - start, $0.at) }
        if pending.isEmpty { arrivals.removeAll(keepingCapacity: true) }
    }

    /// Takes the received lines.
    func takeLines() -> [(text: String, at: Int64)] {
        defer { lines.removeAll(keepingCapacity: true) }
        return lines
    }

    /// Waits until a line whose `class` is `cls` arrives (at most `timeoutSeconds`), dropping
    /// the lines before it. Returns the parsed object and its arrival time.
    /// - Throws: `BenchError` on timeout or end of stream.
    func waitFor(class cls: String, timeoutSeconds: Double) throws -> (WireJSON, Int64) {
        let deadline = BenchClock.monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        while true {
            while !lines.isEmpty {
                let (text, at) = lines.removeFirst()
                if let value = try? WireJSONParser.parse(text), value["class"]?.stringValue == cls { return (value, at) }
            }
            let now = BenchClock.monotonicNanoseconds()
            guard now < deadline else { throw BenchError("no \(cls) from carouseld within \(timeoutSeconds) s") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, Int32(min(100, max(1, (deadline - now) / 1_000_000))))
            if !drain() && lines.isEmpty { throw BenchError("carouseld closed the connection while waiting for \(cls)") }
        }
    }

    /// Sends `watch` and waits for WATCH and the first STATE.
    /// - Throws: `BenchError` when they do not come within 10 s.
    func watch(maxRateHz: Double, items: Bool = false) throws {
        try send("{\"cmd\":\"watch\",\"enable\":true,\"items\":\(items),\"max_rate_hz\":\(maxRateHz)}")
        _ = try waitFor(class: "WATCH", timeoutSeconds: 10)
        _ = try waitFor(class: "STATE", timeoutSeconds: 10)
    }
}
