import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// (d) Control authorisation by SO_PEERCRED, and (e) SIGHUP reloads, through the real binary.
/// Clients "as another user" connect from a child that dropped to that uid/gid with no
/// supplementary groups (as `setpriv --reuid --regid --clear-groups` does), which needs root: as
/// another user these tests fail saying so.
@Suite(.serialized) struct EndToEndControlTests {
    @Test func otherUsersMayWatchButNotControl() throws {
        guard TestPrivileges.requireRoot("connects as uid 65534 to be refused control") else { return }
        let daemon = try E2EDaemon("auth")
        let nobody = try SocketClient(path: daemon.socketPath, uid: 65534, gid: 65534)
        #expect(try nobody.readJSON()["class"] == .string("VERSION"))
        for line in [#"{"cmd":"set_count","count":3}"#, #"{"cmd":"scroll_to","index":2}"#, #"{"cmd":"samples"}"#, #"{"cmd":"reload"}"#] {
            try nobody.send(line)
            let e = try nobody.readJSON()
            #expect(e["class"] == .string("ERROR"))
            #expect(e["code"] == .string("not_allowed"))
        }
        try nobody.send(#"{"cmd":"watch"}"#)
        #expect(try nobody.readJSON()["class"] == .string("WATCH"))
        #expect(try nobody.readJSON()["class"] == .string("LAYOUT"))
        let state = try nobody.readJSON()
        #expect(state["count"] == .number(10)) // set_count was refused
        // Root may.
        let root = try daemon.client()
        try root.send(#"{"cmd":"set_count","count":3}"#)
        #expect(try root.readJSON() == .object([("class", .string("ACK")), ("cmd", .string("set_count"))]))
        let seen = try nobody.readUntil { $0.isState && $0["count"] == .number(3) }
        #expect(seen.last?["count"] == .number(3))
        #expect(try daemon.stop() == 0)
    }

    @Test func controlGroupMembersMayControl() throws {
        guard TestPrivileges.requireRoot("connects as uid/gid 65534, a member of control_group") else { return }
        // control_group = the group with gid 65534 (numeric, so it needs no /etc/group entry).
        let daemon = try E2EDaemon("authgroup", overrides: ["server": ["control_group": "65534"]])
        let member = try SocketClient(path: daemon.socketPath, uid: 65534, gid: 65534)
        _ = try member.readJSON()
        try member.send(#"{"cmd":"set_count","count":4}"#)
        #expect(try member.readJSON() == .object([("class", .string("ACK")), ("cmd", .string("set_count"))]))
        let outsider = try SocketClient(path: daemon.socketPath, uid: 65534, gid: 4242)
        _ = try outsider.readJSON()
        try outsider.send(#"{"cmd":"set_count","count":5}"#)
        #expect(try outsider.readJSON()["code"] == .string("not_allowed"))
        #expect(try daemon.stop() == 0)
    }

    @Test func sighupReloadsAGoodConfigAndKeepsTheOldOneOnABadOne() throws {
        let daemon = try E2EDaemon("sighup")
        let c = try daemon.client()
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(10))
        // A good file: 7 items.
        try TestTemp.write(E2EDaemon.configText(socketPath: daemon.socketPath, overrides: ["carousel": ["count": "7"]]),
                           to: daemon.configPath)
        daemon.process.signal(SIGHUP)
        var count: WireJSON?
        for _ in 0..<200 {
            try c.send(#"{"cmd":"poll"}"#)
            count = try c.readJSON()["count"]
            if count == .number(7) { break }
        }
        #expect(count == .number(7))
        // A bad file: the running configuration stays, and the log says why.
        try TestTemp.write("[carousel]\ncount = many\n", to: daemon.configPath)
        daemon.process.signal(SIGHUP)
        // The `reload` command reports the same failure (and orders after the signal's handling).
        try c.send(#"{"cmd":"reload"}"#)
        let e = try c.readJSON()
        #expect(e["class"] == .string("ERROR"))
        #expect(e["code"] == .string("unavailable"))
        #expect(e["message"]?.stringValue?.contains("count") == true)
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(7))
        #expect(daemon.process.log.contains("reload failed, keeping the running configuration"))
        // Still serving.
        try TestTemp.write(E2EDaemon.configText(socketPath: daemon.socketPath, overrides: ["carousel": ["count": "8"]]),
                           to: daemon.configPath)
        try c.send(#"{"cmd":"reload"}"#)
        #expect(try c.readJSON() == .object([("class", .string("ACK")), ("cmd", .string("reload"))]))
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON()["count"] == .number(8))
        #expect(try daemon.stop() == 0)
    }
}
