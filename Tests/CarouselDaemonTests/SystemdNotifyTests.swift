import CLinux
import Testing
@testable import CarouselDaemon
@testable import CarouselService
#if canImport(Glibc)
import Glibc
#endif

/// The libsystemd wrappers against the real libsystemd: a datagram socket stands in for
/// systemd's notification socket. Serialized: they set process environment variables.
@Suite(.serialized) struct SystemdNotifyTests {
    /// Receives one pending datagram, or nil.
    static func receiveOne(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return n >= 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// The datagram this test sent. sd_notify sends synchronously, so it is already queued;
    /// a daemon that another suite starts while NOTIFY_SOCKET is set could queue its own
    /// messages too, so all pending ones are read and the first that `matches` is returned.
    static func receive(_ fd: Int32, matching matches: (String) -> Bool = { _ in true }) -> String? {
        var found: String?
        while let message = receiveOne(fd) {
            if found == nil && matches(message) { found = message }
        }
        return found
    }

    @Test func notifyMessagesReachTheNotifySocket() throws {
        let path = ServiceTestSupport.temporaryDirectory() + "/notify"
        let fd = ServiceTestSupport.unixSocket(path: path, type: Int32(SOCK_DGRAM.rawValue), listen: false)
        try #require(fd >= 0)
        defer { close(fd); unsetenv("NOTIFY_SOCKET") }
        setenv("NOTIFY_SOCKET", path, 1)
        let notifier = ServiceNotifier.systemd
        _ = Self.receive(fd)
        #expect(ServiceNotifier.isNotifySocketSet)

        #expect(notifier.ready(status: "listening on /run/carouseld/carouseld.sock"))
        #expect(Self.receive(fd, matching: { $0 == "READY=1\nSTATUS=listening on /run/carouseld/carouseld.sock" }) == "READY=1\nSTATUS=listening on /run/carouseld/carouseld.sock")
        #expect(notifier.status("2 clients\nsensor ok"))
        #expect(Self.receive(fd, matching: { $0 == "STATUS=2 clients sensor ok" }) == "STATUS=2 clients sensor ok")
        #expect(notifier.watchdog())
        #expect(Self.receive(fd, matching: { $0 == "WATCHDOG=1" }) == "WATCHDOG=1")
        #expect(notifier.reloading(monotonicMicroseconds: 123_456_789))
        #expect(Self.receive(fd, matching: { $0 == "RELOADING=1\nMONOTONIC_USEC=123456789" }) == "RELOADING=1\nMONOTONIC_USEC=123456789")
        #expect(notifier.stopping())
        #expect(Self.receive(fd, matching: { $0 == "STOPPING=1" }) == "STOPPING=1")

        // Without a time, RELOADING carries CLOCK_MONOTONIC now.
        var before = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        #expect(notifier.reloading())
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &after)
        let message = try #require(Self.receive(fd, matching: { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }))
        let usec = try #require(UInt64(message.split(separator: "=").last ?? ""))
        #expect(usec >= UInt64(before.tv_sec) * 1_000_000 + UInt64(before.tv_nsec) / 1000)
        #expect(usec <= UInt64(after.tv_sec) * 1_000_000 + UInt64(after.tv_nsec) / 1000)
    }

    @Test func notifyIsANoOpOutsideSystemd() {
        unsetenv("NOTIFY_SOCKET")
        #expect(!ServiceNotifier.isNotifySocketSet)
        #expect(ServiceNotifier.systemd.ready(status: "x") == false)
        #expect(ServiceNotifier.systemd.watchdog() == false)
    }

    @Test func injectedNotifierSeesTheSameStrings() {
        final class Box: @unchecked Sendable { var sent: [String] = [] }
        let box = Box()
        let notifier = ServiceNotifier { box.sent.append($0); return true }
        notifier.ready()
        notifier.stopping(status: "bye")
        #expect(box.sent == ["READY=1", "STOPPING=1\nSTATUS=bye"])
    }

    @Test func watchdogIntervalComesFromTheEnvironment() {
        defer { unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
        unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID")
        #expect(Watchdog.timeoutMicroseconds() == nil)

        setenv("WATCHDOG_USEC", "30000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        #expect(Watchdog.timeoutMicroseconds() == 30_000_000)
        #expect(Watchdog.pingIntervalNanoseconds() == 15_000_000_000)

        // Meant for another process (e.g. inherited by a child): not ours.
        setenv("WATCHDOG_PID", String(getpid() + 1), 1)
        #expect(Watchdog.timeoutMicroseconds() == nil)

        setenv("WATCHDOG_PID", String(getpid()), 1)
        setenv("WATCHDOG_USEC", "soon", 1)
        #expect(Watchdog.timeoutMicroseconds() == nil)
    }

    @Test func socketActivationRecognisesListeningUnixStreamSockets() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let listening = ServiceTestSupport.unixSocket(path: directory + "/l.sock", type: Int32(SOCK_STREAM.rawValue), listen: true)
        let bound = ServiceTestSupport.unixSocket(path: directory + "/b.sock", type: Int32(SOCK_STREAM.rawValue), listen: false)
        let datagram = ServiceTestSupport.unixSocket(path: directory + "/d.sock", type: Int32(SOCK_DGRAM.rawValue), listen: false)
        var pipeFds: [Int32] = [0, 0]
        try #require(pipe(&pipeFds) == 0)
        defer { [listening, bound, datagram, pipeFds[0], pipeFds[1]].forEach { close($0) } }
        try #require(listening >= 0 && bound >= 0 && datagram >= 0)
        #expect(SocketActivation.isListeningUnixStreamSocket(listening))
        #expect(!SocketActivation.isListeningUnixStreamSocket(bound))
        #expect(!SocketActivation.isListeningUnixStreamSocket(datagram))
        #expect(!SocketActivation.isListeningUnixStreamSocket(pipeFds[0]))
    }

    @Test func socketActivationEnvironment() throws {
        defer { unsetenv("LISTEN_FDS"); unsetenv("LISTEN_PID") }
        unsetenv("LISTEN_FDS"); unsetenv("LISTEN_PID")
        #expect(try SocketActivation.takeListeningSocket() == nil)

        // Sockets passed to another process are not ours.
        setenv("LISTEN_PID", String(getpid() + 1), 1)
        setenv("LISTEN_FDS", "1", 1)
        #expect(try SocketActivation.takeListeningSocket() == nil)

        // Malformed for this process: an error, and the variables are consumed.
        setenv("LISTEN_PID", String(getpid()), 1)
        setenv("LISTEN_FDS", "one", 1)
        #expect(throws: SocketActivation.Failure.invalidEnvironment(errno: EINVAL)) {
            try SocketActivation.takeListeningSocket()
        }
        #expect(getenv("LISTEN_FDS") == nil && getenv("LISTEN_PID") == nil)
    }
}
