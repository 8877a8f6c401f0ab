import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `carouseld` under a stand-in for systemd's notification socket (a datagram socket
/// named by NOTIFY_SOCKET, WATCHDOG_USEC set): READY=1 once listening, WATCHDOG=1 pings from the
/// event loop at half the timeout, RELOADING=1 then READY=1 around each SIGHUP with a STATUS=
/// that tells a failed reload from a good one, STOPPING=1 on SIGTERM.
@Suite(.serialized) struct EndToEndSystemdNotifyTests {
    /// Datagrams until `predicate` matches one, polling with a bounded timeout.
    private static func receive(_ fd: Int32, timeoutSeconds: Double = 5, until predicate: (String) -> Bool) -> [String] {
        var got: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = Double(time(nil)) + timeoutSeconds + 1
        while Double(time(nil)) < deadline, poll(&p, 1, Int32(timeoutSeconds * 1000)) == 1 {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n >= 0 else { continue }
            let message = String(decoding: buffer[0..<n], as: UTF8.self)
            got.append(message)
            if predicate(message) { return got }
        }
        return got
    }

    @Test func readyWatchdogReloadAndStoppingReachTheNotifySocket() throws {
        let notifyPath = TestTemp.path("notify")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd); unlink(notifyPath) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { b in for (i, c) in notifyPath.utf8.enumerated() { b[i] = c } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)

        let socketPath = TestTemp.path("notify.sock"), configPath = TestTemp.path("notify.conf")
        let good = E2EDaemon.configText(socketPath: socketPath)
        try TestTemp.write(good, to: configPath)
        defer { unlink(configPath) }
        // 200 ms watchdog: pings every 100 ms.
        let daemon = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", configPath, "--foreground"],
                                       environment: ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "200000"],
                                       logPath: TestTemp.path("notify.log"))
        defer { unlink(daemon.logPath) }

        let start = Self.receive(fd) { $0.hasPrefix("READY=1") }
        #expect(start.last == "READY=1\nSTATUS=Listening on \(socketPath); sensor absent")
        // One ping per 100 ms: the fifth arrives after about 0.5 s (5 s allowed on a loaded machine).
        var watchdogs = 0
        _ = Self.receive(fd) { message in
            if message == "WATCHDOG=1" { watchdogs += 1 }
            return watchdogs == 5
        }
        #expect(watchdogs == 5)

        daemon.signal(SIGHUP)
        let reload = Self.receive(fd) { $0.hasPrefix("READY=1") }.filter { $0 != "WATCHDOG=1" }
        #expect(reload.count == 2)
        #expect(reload.first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        #expect(reload.last == "READY=1\nSTATUS=Reloaded")

        try TestTemp.write(good + "\n[server]\nbogus = 1\n", to: configPath)
        daemon.signal(SIGHUP)
        let failed = Self.receive(fd) { $0.hasPrefix("READY=1") }.filter { $0 != "WATCHDOG=1" }
        #expect(failed.first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        #expect(failed.last?.hasPrefix("READY=1\nSTATUS=Reload failed, running configuration kept: \(configPath):") == true)

        daemon.signal(SIGTERM)
        let stop = Self.receive(fd) { $0.hasPrefix("STOPPING=1") }
        #expect(stop.last == "STOPPING=1\nSTATUS=Stopping")
        #expect(try daemon.wait() == 0)
    }
}
