import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, defect 1, through the real binary: an ordinary local user who opened connections
/// and sent nothing held every `max_clients` slot, and root was refused. Connecting as other
/// users needs root (`SocketClient(path:uid:gid:)`); the suite fails, not skips, without it.
@Suite(.serialized) struct EndToEndAdmissionTests {
    /// Connects as `uid` (gid the same, no supplementary groups) and returns the client and its
    /// first line.
    private func connect(_ daemon: E2EDaemon, uid: UInt32) throws -> (SocketClient, WireJSON) {
        let c = try SocketClient(path: daemon.socketPath, uid: uid, gid: uid)
        return (c, try c.readJSON())
    }

    @Test func anOrdinaryUserCannotLockOutRoot() throws {
        guard TestPrivileges.requireRoot("connects as uid 65534, an ordinary user") else { return }
        // 8 slots; the default reserve is min(4, 8 / 2) = 4, the default per-uid limit 16.
        let daemon = try E2EDaemon("admission-root", overrides: ["server": ["max_clients": "8"]])
        var held: [SocketClient] = []
        var refused: WireJSON?
        for _ in 0..<8 {
            let (c, first) = try connect(daemon, uid: 65534)
            if first["class"] == .string("VERSION") { held.append(c) } else { refused = first; break }
        }
        #expect(held.count == 4)
        #expect(refused?["code"] == .string("too_many_clients"))
        #expect(refused?["message"]?.stringValue?.contains("(control_reserve)") == true)
        // Root (the daemon's own tools) still gets in, up to max_clients.
        let root = try daemon.client()
        try root.send(#"{"cmd":"status"}"#)
        #expect(try root.readJSON()["clients"] == .number(5))
        #expect(try daemon.stop() == 0)
    }

    @Test func oneUidIsLimitedAndIdleConnectionsTimeOut() throws {
        guard TestPrivileges.requireRoot("connects as uid 65534, an ordinary user") else { return }
        let daemon = try E2EDaemon("admission-idle", overrides: ["server": [
            "max_clients": "16", "max_clients_per_uid": "2", "idle_timeout_s": "0.5"]])
        let (a, ga) = try connect(daemon, uid: 65534)
        let (b, gb) = try connect(daemon, uid: 65534)
        #expect(ga["class"] == .string("VERSION") && gb["class"] == .string("VERSION"))
        let (third, refusal) = try connect(daemon, uid: 65534)
        #expect(refusal["message"] == .string(
            "uid 65534 has max_clients_per_uid (2) connections open; peers with control rights are exempt"))
        #expect(try third.waitForClose())
        // A watcher is never timed out; the two idle ones are, after 0.5 s without a request.
        let (watcher, _) = try connect(daemon, uid: 65533)
        try watcher.send(#"{"cmd":"watch"}"#)
        _ = try watcher.readUntil { $0["class"] == .string("STATE") }
        for idle in [a, b] {
            let e = try idle.readJSON()
            #expect(e["code"] == .string("idle_timeout"))
            #expect(e["message"] == .string("no request for 0.5 s while not watching (idle_timeout_s); closing"))
            #expect(try idle.waitForClose())
        }
        // Their slots are free again.
        let (again, greeting) = try connect(daemon, uid: 65534)
        #expect(greeting["class"] == .string("VERSION"))
        again.close()
        try watcher.send(#"{"cmd":"poll"}"#)
        #expect(try watcher.readUntil { $0["class"] == .string("STATE") }.last?["class"] == .string("STATE"))
        #expect(try daemon.stop() == 0)
    }
}
