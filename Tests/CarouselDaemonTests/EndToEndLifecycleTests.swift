import CLinux
import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// (f) SIGTERM cleanup, the second-daemon rule and stale sockets, through the real binary.
@Suite(.serialized) struct EndToEndLifecycleTests {
    @Test func sigtermExitsZeroAndRemovesTheSocket() throws {
        let daemon = try E2EDaemon("sigterm")
        let c = try daemon.client()
        try c.send(#"{"cmd":"watch"}"#)
        #expect(try c.readJSON()["class"] == .string("WATCH"))
        #expect(try c.readJSON()["class"] == .string("LAYOUT"))
        #expect(try c.readJSON().isState)
        #expect(fileExists(daemon.socketPath))
        #expect(try daemon.stop() == 0)
        #expect(!fileExists(daemon.socketPath))
        // The client sees EOF.
        #expect(try c.waitForClose())
        #expect(daemon.process.log.contains("exiting"))
    }

    @Test func secondDaemonOnTheSameSocketFailsWith69() throws {
        let first = try E2EDaemon("first")
        let config = TestTemp.path("second.conf")
        defer { unlink(config) }
        try TestTemp.write(E2EDaemon.configText(socketPath: first.socketPath), to: config)
        let second = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", config],
                                       logPath: TestTemp.path("second.log"))
        #expect(try second.wait() == 69)
        #expect(second.log.contains("another carouseld is already serving this socket"))
        // The first one is unharmed.
        let c = try first.client()
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON().isState)
        #expect(try first.stop() == 0)
    }

    @Test func staleSocketFileIsReplaced() throws {
        let path = TestTemp.path("stale.sock")
        // A socket file nobody listens on, as a crashed daemon leaves it.
        var address = sockaddr_un()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let length = path.withCString { p -> Int in
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let n = strlen(p)
                raw.copyMemory(from: UnsafeRawBufferPointer(start: p, count: n))
                return n
            }
        }
        address.sun_family = sa_family_t(AF_UNIX)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(2 + length + 1)) }
        }
        #expect(bound == 0)
        close(fd)
        #expect(fileExists(path))
        let daemon = try E2EDaemon("stale", overrides: ["server": ["socket": path]], waitForSocket: false)
        try daemon.process.waitForSocket(path)
        let c = try SocketClient(path: path)
        #expect(try c.readJSON()["class"] == .string("VERSION"))
        #expect(try daemon.stop() == 0)
        #expect(!fileExists(path))
    }
}
