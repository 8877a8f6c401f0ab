import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `carouseld.service`'s `SystemCallFilter=` cannot be tried without systemd as PID 1, so this
/// checks it the other way round: every system call a real daemon run makes (replay source,
/// a watcher, status, sensors, samples, reload, SIGHUP, a too-long line, SIGTERM; counted by
/// `strace -f -c`) must be in the set the unit's filter lines allow (systemd-analyze's groups,
/// expanded). A new call outside the filter would make the service fail with EPERM.
@Suite(.serialized) struct SystemCallFilterTests {
    /// `systemd-analyze syscall-filter` groups, nested groups expanded.
    static func groups() throws -> [String: Set<String>] {
        let listing = ServiceTestSupport.run(["systemd-analyze", "syscall-filter", "--no-pager"])
        try #require(listing.status == 0, "systemd-analyze syscall-filter: \(listing.standardError)")
        var raw: [String: [String]] = [:]
        var current: String?
        for line in listing.standardOutput.split(separator: "\n") {
            let text = line.trimmingSpaces
            if text.isEmpty || text.hasPrefix("#") { continue }
            if !line.hasPrefix(" "), text.hasPrefix("@") { current = text; raw[text] = []; continue }
            if let current { raw[current, default: []].append(text) }
        }
        func expand(_ group: String, _ depth: Int) -> Set<String> {
            guard depth < 10 else { return [] }
            return Set((raw[group] ?? []).flatMap { $0.hasPrefix("@") ? Array(expand($0, depth + 1)) : [$0] })
        }
        return Dictionary(uniqueKeysWithValues: raw.keys.map { ($0, expand($0, 0)) })
    }

    /// The calls the unit's `SystemCallFilter=` lines allow, applied in order (an allow list,
    /// then `~` lines removing from it).
    static func allowedByUnit() throws -> Set<String> {
        let lines = try #require(try SystemdUnitTests.settings("carouseld.service")["SystemCallFilter"])
        let groups = try groups()
        var allowed: Set<String> = []
        for line in lines {
            let removing = line.hasPrefix("~")
            for name in line.dropFirst(removing ? 1 : 0).split(separator: " ").map(String.init) {
                let calls = name.hasPrefix("@") ? (groups[name] ?? []) : [name]
                if removing { allowed.subtract(calls) } else { allowed.formUnion(calls) }
            }
        }
        try #require(allowed.count > 100 && allowed.contains("epoll_wait") && !allowed.contains("chown"),
                     "unexpected filter: \(allowed.count) calls")
        return allowed
    }

    /// Runs carouseld under `strace -f -c` with `overrides` applied to the test config, lets
    /// `drive` act on it (its socket path, its pid), then SIGHUP and SIGTERM; returns the system
    /// calls it made, every thread included.
    static func callsOfRun(_ name: String, overrides: [String: [String: String]],
                           drive: (_ socketPath: String, _ daemon: pid_t) throws -> Void) throws -> Set<String> {
        let socketPath = TestTemp.path(name + ".sock"), countPath = TestTemp.path(name + ".strace")
        let configPath = TestTemp.path(name + ".conf")
        try TestTemp.write(E2EDaemon.configText(socketPath: socketPath, overrides: overrides), to: configPath)
        // A missing strace fails here (posix_spawn), with the package to install named.
        let strace = try DaemonProcess(executable: "/usr/bin/strace",
                                       arguments: ["-f", "-qq", "-c", "-o", countPath, TestPaths.product("carouseld"),
                                                   "-c", configPath, "--foreground"],
                                       logPath: TestTemp.path(name + ".log"))
        defer { unlink(socketPath); unlink(countPath); unlink(configPath) }
        try strace.waitForSocket(socketPath, timeoutSeconds: 30)
        // The daemon is strace's child: SIGHUP (reload), then SIGTERM, and strace writes its table.
        let children = (readTextFile("/proc/\(strace.pid)/task/\(strace.pid)/children") ?? "").split(separator: " ").compactMap { Int32($0) }
        let daemon = try #require(children.first, "no child of strace \(strace.pid): \(strace.log.suffix(400))")
        try drive(socketPath, daemon)
        kill(daemon, SIGHUP)
        _ = try strace.waitForLog(containing: "configuration reloaded", timeoutSeconds: 10)
        kill(daemon, SIGTERM)
        #expect(try strace.wait(timeoutSeconds: 30) == 0, "\(strace.log.suffix(400))")

        let table = try #require(readTextFile(countPath), "strace wrote no table")
        // Rows: "% time seconds usecs/call calls [errors] syscall"; the name is the last field.
        return Set(table.split(separator: "\n").compactMap { row -> String? in
            let fields = row.split(separator: " ")
            guard fields.count >= 5, Double(fields[0]) != nil, let name = fields.last, name != "total" else { return nil }
            return String(name)
        }).subtracting(["execve"])  // strace's own exec of the daemon
    }

    @Test func aReplayRunMakesOnlyCallsTheUnitAllows() throws {
        let allowed = try Self.allowedByUnit()
        let used = try Self.callsOfRun("syscalls", overrides: [
            "sensor": ["source": "replay", "replay_file": TestPaths.packageRoot + "/data/demo-recording.csv",
                       "replay_loop": "yes", "replay_speed": "4"]]) { socketPath, _ in
            let client = try SocketClient(path: socketPath)
            defer { client.close() }
            _ = try client.readJSON(timeoutSeconds: 10)
            for request in [#"{"cmd":"watch","items":true}"#, #"{"cmd":"status"}"#, #"{"cmd":"sensors"}"#,
                            #"{"cmd":"samples"}"#, #"{"cmd":"scroll_to","index":2}"#, #"{"cmd":"reload"}"#] {
                try client.send(request)
            }
            _ = try client.readUntil(timeoutSeconds: 10) { $0["class"] == .string("SAMPLE") }
            let long = try SocketClient(path: socketPath)
            try long.send(String(repeating: "x", count: 70_000))
            _ = try long.readUntil(timeoutSeconds: 10) { $0["code"] == .string("too_long") }
            long.close()
        }
        // aarch64 has no epoll_wait system call: glibc's epoll_wait makes epoll_pwait there.
        #expect(used.count >= 25 && (used.contains("epoll_wait") || used.contains("epoll_pwait")) && used.contains("accept4"),
                "\(used.sorted())")
        #expect(used.subtracting(allowed).isEmpty,
                "calls outside carouseld.service's SystemCallFilter: \(used.subtracting(allowed).sorted())")
    }

    /// The threads of a remote (`ip:`) sensor, under the same filter (plus the drop-in
    /// systemd/carouseld-remote-sensor.conf, which changes no system call): its worker
    /// (`carouseld-iiod`: clone3, prctl for its name, eventfd2, poll, the TCP connection), a
    /// `sensors` listing on its own thread waiting on a hung iiod, and SIGTERM with both still
    /// inside libiio (`DetachedThread.exitProcess`: `_exit`).
    @Test func aRemoteSensorRunMakesOnlyCallsTheUnitAllows() throws {
        let allowed = try Self.allowedByUnit()
        let iiod = try HungServer()
        let used = try Self.callsOfRun("syscalls-remote", overrides: ["sensor": ["uri": "ip:127.0.0.1:\(iiod.port)"]]) { socketPath, _ in
            let client = try SocketClient(path: socketPath)
            defer { client.close() }
            _ = try client.readJSON(timeoutSeconds: 10)
            try client.send(#"{"cmd":"watch"}"#)
            #expect(iiod.acceptConnection(timeoutSeconds: 10), "the worker never connected")
            try client.send(#"{"cmd":"sensors"}"#)
            #expect(iiod.acceptConnection(timeoutSeconds: 10), "the listing never connected")
        }
        // aarch64 has no poll system call either: glibc's poll makes ppoll there.
        #expect(used.isSuperset(of: ["clone3", "eventfd2", "prctl", "connect"]) && (used.contains("poll") || used.contains("ppoll")),
                "\(used.sorted())")
        #expect(used.subtracting(allowed).isEmpty,
                "calls outside carouseld.service's SystemCallFilter: \(used.subtracting(allowed).sorted())")
    }
}

private extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
