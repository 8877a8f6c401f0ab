import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A flood of connections that exhausts the daemon's descriptors (RLIMIT_NOFILE): `accept`
/// fails with EMFILE while the listener stays readable. The daemon must wait for a descriptor
/// (one warning, no busy loop) and accept the waiting connections once clients leave.
@Suite(.serialized) struct EndToEndDescriptorExhaustionTests {
    /// RLIMIT_NOFILE for the daemon.
    static let limit = 64

    /// The daemon's user + system CPU time so far, clock ticks (/proc/PID/stat fields 14 and 15).
    static func cpuTicks(_ pid: pid_t) throws -> Int {
        guard let stat = readTextFile("/proc/\(pid)/stat") else { throw TestSupportError("/proc/\(pid)/stat: unreadable") }
        // Fields after the command name, which is in parentheses and may contain spaces.
        guard let close = stat.lastIndex(of: ")") else { throw TestSupportError("/proc/\(pid)/stat: no ')'") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): utime is field 14, stime field 15.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestSupportError("/proc/\(pid)/stat: no utime/stime in '\(stat)'")
        }
        return user + system
    }

    static func openDescriptors(_ pid: pid_t) -> Int {
        guard let dir = opendir("/proc/\(pid)/fd") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }

    @Test func runningOutOfDescriptorsWaitsQuietlyAndAcceptsAgainWhenClientsLeave() throws {
        let name = "fd-exhaustion"
        let socketPath = TestTemp.path(name + ".sock")
        let configPath = TestTemp.path(name + ".conf")
        defer { unlink(socketPath); unlink(configPath) }
        // max_clients above the descriptor limit: every connection is accepted while descriptors last.
        try TestTemp.write(E2EDaemon.configText(socketPath: socketPath, overrides: ["server": ["max_clients": "200"]]),
                           to: configPath)
        // prlimit execs the daemon in the same process, with at most `limit` descriptors.
        let daemon = try DaemonProcess(executable: "/usr/bin/prlimit",
                                       arguments: ["--nofile=\(Self.limit):\(Self.limit)", "--", TestPaths.product("carouseld"),
                                                   "-c", configPath, "--foreground"],
                                       logPath: TestTemp.path(name + ".log"))
        defer {
            if !daemon.hasExited { daemon.signal(SIGKILL); _ = try? daemon.wait() }
            unlink(daemon.logPath)
        }
        try daemon.waitForSocket(socketPath)
        // A round trip after waitForSocket's probe has gone: STATUS counts this client only.
        let probe = try SocketClient(path: socketPath)
        _ = try probe.readJSON()
        try probe.send(#"{"cmd":"status"}"#)
        #expect(try probe.readJSON()["clients"] == .number(1))
        let baseline = Self.openDescriptors(daemon.pid) - 1
        probe.close()
        // Its own descriptors, and any the test runner let it inherit.
        #expect(baseline > 0 && baseline < Self.limit - 10)

        // 15 connections more than it has descriptors for: the kernel queues them all.
        let served = Self.limit - baseline
        var clients: [SocketClient] = []
        for _ in 0..<(served + 15) { clients.append(try SocketClient(path: socketPath)) }
        for c in clients.prefix(served) {
            #expect(try c.readJSON()["class"] == .string("VERSION"))
        }
        _ = try daemon.waitForLog(containing: "accept")
        // Out of descriptors with connections waiting: the loop must sleep, not retry at once.
        let before = try Self.cpuTicks(daemon.pid)
        var pause = timespec(tv_sec: 0, tv_nsec: 500_000_000)
        nanosleep(&pause, nil)
        let spent = try Self.cpuTicks(daemon.pid) - before
        #expect(spent < 10, "the daemon used \(spent) ticks of CPU in 0.5 s while out of descriptors")
        // One warning for the whole episode, not one per attempt.
        let warnings = (readTextFile(daemon.logPath) ?? "").split(separator: "\n").filter { $0.contains("accept") }
        #expect(warnings.count == 1, "\(warnings.count) accept warnings, first: \(warnings.first ?? "")")

        // Twenty clients leave, more than are waiting: the waiting connections are accepted and greeted.
        for c in clients.prefix(20) { c.close() }
        for c in clients[served...] {
            #expect(try c.readJSON()["class"] == .string("VERSION"))
        }
        for c in clients.dropFirst(20) { c.close() }
        // Everything closed: back to the daemon's own descriptors.
        let c = try SocketClient(path: socketPath)
        _ = try c.readJSON()
        c.close()
        var settled = Self.openDescriptors(daemon.pid)
        for _ in 0..<100 where settled != baseline {
            var tick = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&tick, nil)
            settled = Self.openDescriptors(daemon.pid)
        }
        #expect(settled == baseline)
        daemon.signal(SIGTERM)
        #expect(try daemon.wait() == 0)
    }
}
