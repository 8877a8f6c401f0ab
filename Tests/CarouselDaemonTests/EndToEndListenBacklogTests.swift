import CLinux
import CarouselProtocol
import CarouselTestSupport
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// The listen backlog is sized from `max_clients` (docs/CONFIGURATION.md): with a fixed 128, a
/// burst of 500 non-blocking connects to a busy daemon got `EAGAIN` for all but 129 of them.
@Suite(.serialized) struct EndToEndListenBacklogTests {
    @Test func backlogFollowsMaxClients() {
        #expect(UnixListener.backlog(maxClients: 1) == 128)
        #expect(UnixListener.backlog(maxClients: 64) == 128)
        #expect(UnixListener.backlog(maxClients: 1024) == 1024)
        #expect(UnixListener.backlog(maxClients: 4096) == 4096)
    }

    /// The daemon is stopped (SIGSTOP) during the burst, so only the backlog holds the
    /// connections: every one of the 500 must be queued, and each gets its greeting once the
    /// daemon runs again.
    @Test func aBurstOf500ConnectsToAStoppedDaemonGetsNoEAGAIN() throws {
        let somaxconn = readTextFile("/proc/sys/net/core/somaxconn").flatMap { Int(String($0.filter(\.isNumber))) } ?? 0
        try #require(somaxconn >= 500, "net.core.somaxconn is \(somaxconn): the kernel caps the backlog below 500")
        let daemon = try E2EDaemon("listen-backlog", overrides: ["server": ["max_clients": "1024"]])
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        daemon.process.signal(SIGSTOP)
        var refused: [Int32: Int] = [:]
        for _ in 0..<500 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            try #require(fd >= 0, "socket: errno \(errno)")
            if connectUnix(fd, daemon.socketPath) == 0 {
                fds.append(fd)
            } else {
                refused[errno, default: 0] += 1
                close(fd)
            }
        }
        daemon.process.signal(SIGCONT)
        #expect(fds.count == 500, "refused while the daemon was stopped (errno: count): \(refused)")
        // Queued connections are real: the first and the last one queued are greeted.
        for fd in [fds.first, fds.last].compactMap({ $0 }) {
            let line = try readLine(fd, timeoutSeconds: 20)
            let greeting = try WireJSONParser.parse(line)
            #expect(greeting["class"] == .string("VERSION"), "\(line)")
        }
        #expect(try daemon.stop() == 0)
    }

    private func connectUnix(_ fd: Int32, _ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// One line from a non-blocking socket, waiting with poll(2) up to `timeoutSeconds`.
    private func readLine(_ fd: Int32, timeoutSeconds: Double) throws -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Double(clinuxNow()) + timeoutSeconds
        while Double(clinuxNow()) < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                bytes += chunk[0..<n]
                if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) { return String(decoding: bytes[..<end], as: UTF8.self) }
            } else if n == 0 {
                break
            }
        }
        throw TestSupportError("no line within \(timeoutSeconds) s (got '\(String(decoding: bytes, as: UTF8.self))')")
    }

    private func clinuxNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
