#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CarouselProtocol
import Synchronization
import CarouselCommandLine

/// A tiny stand-in for carouseld on a Unix socket, speaking the wire format of docs/PROTOCOL.md "Conventions"
/// through CarouselProtocol's own encoder (`ServerMessage`, `StateMessage`) and decoder
/// (`RequestDecoder`): so every request `carouselctl` sends is checked to be one the real
/// daemon accepts, and every reply is byte-for-byte what the real daemon would send.
///
/// It serves on its own pthread (the client under test runs in the test's thread), greets each
/// connection with VERSION and answers each request line with `respond`.
final class FakeDaemon: @unchecked Sendable {
    let socketPath: String
    private let listenFD: Int32
    private var wakePipe: [Int32] = [-1, -1]
    private var thread = pthread_t()
    private let respond: @Sendable (Request) -> [[UInt8]]
    /// Every request received, decoded, in order.
    private let log = Mutex<[Request]>([])

    var requests: [Request] { log.withLock { $0 } }

    init(respond: @escaping @Sendable (Request) -> [[UInt8]]) throws {
        self.respond = respond
        var template = Array("/tmp/carouselctl-fake-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CommandError(.ioError, "mkdtemp")
        }
        socketPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/fake.sock"
        listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, socketPath)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(length)) }
        }
        guard listenFD >= 0, bound == 0, listen(listenFD, 8) == 0, pipe(&wakePipe) == 0 else {
            throw CommandError(.ioError, "fake daemon: bind/listen \(socketPath) failed: errno \(errno)")
        }
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let daemon = Unmanaged<FakeDaemon>.fromOpaque(raw).takeRetainedValue()
            daemon.serve()
            return nil
        }, me)
    }

    /// Stops the server thread and removes the socket.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakePipe[1], &byte, 1)
        pthread_join(thread, nil)
        close(listenFD)
        close(wakePipe[0]); close(wakePipe[1])
        unlink(socketPath)
    }

    private func serve() {
        var clients: [(fd: Int32, framer: LineFramer)] = []
        defer { for c in clients { close(c.fd) } }
        while true {
            var fds = [pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 5000) >= 0 else { if errno == EINTR { continue }; return }
            if fds[0].revents != 0 { return }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let fd = accept(listenFD, nil, nil)
                if fd >= 0 {
                    clients.append((fd, LineFramer()))
                    send(fd, ServerMessage.version(release: "9.9.9-fake").encodedLine())
                }
            }
            var closed: [Int32] = []
            for (i, pfd) in fds.dropFirst(2).enumerated() where pfd.revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(pfd.fd, $0.baseAddress!, $0.count, 0) }
                if n <= 0 { closed.append(pfd.fd); continue }
                clients[i].framer.append(chunk[0..<n])
                while let line = try? clients[i].framer.nextLine() {
                    let replies: [[UInt8]]
                    do {
                        let request = try RequestDecoder.decode(line: line)
                        log.withLock { $0.append(request) }
                        replies = respond(request)
                    } catch {
                        replies = [ServerMessage.error(error).encodedLine()]
                    }
                    for reply in replies { send(pfd.fd, reply) }
                }
            }
            for fd in closed { close(fd) }
            clients.removeAll { closed.contains($0.fd) }
        }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    // MARK: Canned replies

    static func state(seq: UInt64, index: Int = 3, position: Double = 3, phase: String = "idle") -> [UInt8] {
        StateMessage(seq: seq, timeNanoseconds: 1_000_000_000 + Int64(seq) * 16_000_000, index: index, position: position,
                     offset: position * 160, velocity: 0, phase: phase, count: 20,
                     tilt: WireTilt(rollDeg: -12.34, pitchDeg: 1.5, enabled: true), sensor: "replay").encodedLine()
    }

    static let status = ServerMessage.status(
        release: "9.9.9-fake", uptimeSeconds: 125, sensor: "replay", sampleRateHz: 100, clients: 2, watchers: 1,
        configPath: "/etc/carouseld/carouseld.conf",
        calibration: WireCalibration(file: "/var/lib/carouseld/calibration.conf", applied: true)).encodedLine()

    /// A daemon with the usual answers: STATUS, STATE, WATCH then three STATEs and an INDEX and a
    /// SENSOR, ACK for control commands.
    static func standard(_ request: Request) -> [[UInt8]] {
        switch request {
        case .status: return [status]
        case .poll: return [state(seq: 7)]
        case .sensors: return [ServerMessage.sensors(json: "[]").encodedLine()]
        case let .watch(w):
            return [ServerMessage.watch(enable: w.enable, items: w.items, maxRateHz: w.maxRateHz ?? 60).encodedLine(),
                    state(seq: 10, index: 3, position: 3, phase: "idle"),
                    state(seq: 11, index: 3, position: 3.25, phase: "tilting"),
                    ServerMessage.sensor(status: "stale", name: "bmi160", message: "no sample for 50 ms").encodedLine(),
                    state(seq: 13, index: 4, position: 3.75, phase: "snapping"),
                    ServerMessage.index(index: 4, previous: 3).encodedLine(),
                    state(seq: 14, index: 4, position: 4, phase: "idle")]
        default: return [ServerMessage.ack(cmd: request.cmd).encodedLine()]
        }
    }
}
