import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fault: the daemon killed with SIGKILL and started again under watchers (issue 15).
///
/// Without socket activation the socket dies with the daemon: every watcher reads EOF, a new
/// connect is refused (`ECONNREFUSED`: the path is left behind, nobody listens), `carouselctl
/// watch` exits 69 ("carouseld went away", docs/CLI.md), and the restarted daemon replaces the
/// stale socket file so that clients can connect again. With socket activation
/// (docs/SERVICE.md) systemd keeps the listening socket: watchers still read EOF, but a client
/// that connects while the daemon is down waits in the socket's backlog and is greeted by the
/// next daemon. There is no systemd as PID 1 here, so the test process holds the socket as
/// systemd would and passes it as fd 3 with `LISTEN_FDS`/`LISTEN_PID` (`sd_listen_fds(3)`).
@Suite(.serialized) struct FaultDaemonRestartTests {
    /// `connect(2)` to `path`: 0 when it connects (the socket is closed again), else errno.
    static func connectErrno(_ path: String) -> Int32 {
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        return r == 0 ? 0 : clinux_errno()
    }

    @Test func killedDaemonClosesEveryWatcherAndTheRestartedOneTakesThemBack() throws {
        let socketPath = TestTemp.path("restart.sock")
        let configPath = TestTemp.path("restart.conf")
        defer { unlink(socketPath); unlink(configPath) }
        try TestTemp.write(E2EDaemon.configText(socketPath: socketPath), to: configPath)
        let cycles = 10
        var survived = 0
        for cycle in 0..<cycles {
            let logPath = TestTemp.path("restart-\(cycle).log")
            defer { unlink(logPath) }
            let daemon = try DaemonProcess(executable: TestPaths.product("carouseld"),
                                           arguments: ["-c", configPath, "--foreground"], logPath: logPath)
            try daemon.waitForSocket(socketPath)
            // Clients reconnect: each cycle's watchers are new connections to the new daemon,
            // greeted, subscribed and sent the current STATE.
            let watchers = try (0..<4).map { _ in try CountingWatcher(socketPath: socketPath) }
            for w in watchers { try w.readUntil(timeoutSeconds: 5) { $0.isState } }
            let ctl = try UmockdevProcess(TestPaths.product("carouselctl"), ["watch", "--socket", socketPath, "--json"], testbed: nil)
            _ = try ctl.waitForLine(timeoutSeconds: 10) { $0.contains(#""class":"STATE""#) }

            daemon.signal(SIGKILL)
            #expect(try daemon.wait() == 128 + SIGKILL)
            for (n, w) in watchers.enumerated() {
                try w.drain(timeoutSeconds: 5)
                #expect(w.closed, "cycle \(cycle): watcher \(n) did not see the socket close")
            }
            // The path is left behind with nobody listening.
            #expect(fileExists(socketPath))
            #expect(Self.connectErrno(socketPath) == ECONNREFUSED)
            let result = try ctl.waitForExit(timeoutSeconds: 10)
            #expect(result.status == 69, "cycle \(cycle): carouselctl watch: \(result.standardError)")
            #expect(result.standardError.contains("carouseld went away"), "\(result.standardError)")
            survived += 1
        }
        #expect(survived == cycles)
    }

    @Test func withSocketActivationAClientConnectingWhileTheDaemonIsDownIsServedByTheNextOne() throws {
        let socketPath = TestTemp.path("activated.sock")
        let configPath = TestTemp.path("activated.conf")
        defer { unlink(socketPath); unlink(configPath) }
        // `[server] socket` names another path: an activated daemon must not bind or unlink it.
        let unusedPath = TestTemp.path("activated-unused.sock")
        try TestTemp.write(E2EDaemon.configText(socketPath: unusedPath), to: configPath)
        let listener = try ListeningSocket(path: socketPath)
        var waiting: [SocketClient] = []
        for cycle in 0..<5 {
            let logPath = TestTemp.path("activated-\(cycle).log")
            defer { unlink(logPath) }
            let daemon = try ActivatedDaemon(listener: listener, configPath: configPath, logPath: logPath)
            // The client that connected while no daemon ran is greeted by this one.
            for c in waiting {
                let greeting = try c.readJSON(timeoutSeconds: 10)
                #expect(greeting["class"] == .string("VERSION"), "cycle \(cycle): \(greeting); log: \(readTextFile(logPath) ?? "")")
                c.close()
            }
            let watchers = try (0..<4).map { _ in try CountingWatcher(socketPath: socketPath) }
            for w in watchers { try w.readUntil(timeoutSeconds: 5) { $0.isState } }
            #expect(!fileExists(unusedPath))

            daemon.kill()
            for (n, w) in watchers.enumerated() {
                try w.drain(timeoutSeconds: 5)
                #expect(w.closed, "cycle \(cycle): watcher \(n) did not see the daemon go")
            }
            // systemd's socket still listens: connect succeeds and the client waits.
            #expect(Self.connectErrno(socketPath) == 0)
            waiting = [try SocketClient(path: socketPath)]
            #expect(throws: (any Error).self) { try waiting[0].readLine(timeoutSeconds: 0.2) }
        }
        for c in waiting { c.close() }
        #expect(fileExists(socketPath))
    }
}

/// A listening Unix socket held by the test, as systemd holds a `.socket` unit's.
final class ListeningSocket {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(clinux_errno())") }
        unlink(path)
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard r == 0, listen(fd, 16) == 0 else { throw TestSupportError("bind/listen \(path): errno \(clinux_errno())") }
        chmod(path, 0o666)
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

/// `carouseld` started as systemd starts a socket-activated service: the listening socket as
/// fd 3, `LISTEN_FDS=1` and `LISTEN_PID` set to the daemon's own pid. The pid is known only in
/// the child, so `/bin/sh` sets it (`$$`) and then execs the daemon in the same process.
final class ActivatedDaemon {
    private let process: DaemonProcess

    init(listener: ListeningSocket, configPath: String, logPath: String) throws {
        let script = #"LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@""#
        process = try DaemonProcess(executable: "/bin/sh",
                                    arguments: ["-c", script, TestPaths.product("carouseld"), "-c", configPath, "--foreground"],
                                    logPath: logPath, inheritedListener: listener.fd)
    }

    /// SIGKILL, and waits for the exit.
    func kill() {
        guard !process.hasExited else { return }
        process.signal(SIGKILL)
        _ = try? process.wait(timeoutSeconds: 10)
    }

    deinit { kill() }
}
