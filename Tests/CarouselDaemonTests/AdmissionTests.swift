import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// Issue 15, defect 1: any local user could hold all `max_clients` slots with idle connections,
/// locking out root and the daemon's own tools. Now idle non-watchers time out, a reserve is
/// kept for peers with control rights, and one uid without them has a limit of its own. All on
/// the scripted clock.
@Suite struct AdmissionTests {
    static let s: Int64 = 1_000_000_000

    /// Connects as `uid`, with or without control rights; returns the id and the first line.
    private func connect(_ h: inout CoreHarness, uid: UInt32, control: Bool) -> (ClientID, WireJSON?) {
        let id = ClientID(h.nextID)
        h.nextID += 1
        h.core.clientConnected(id, credentials: PeerCredentials(pid: 100, uid: uid, gid: uid), mayControl: control, now: h.now)
        return (id, h.read(id).first)
    }

    @Test func anIdleClientTimesOutExactlyAtTheDeadline() {
        var h = CoreHarness(limits: DaemonCore.Limits(idleTimeoutNanoseconds: 30 * Self.s))
        let start = h.now
        let (c, greeting) = connect(&h, uid: 1000, control: false)
        #expect(greeting?["class"] == .string("VERSION"))
        #expect(h.core.nextDeadline == start + 30 * Self.s)
        h.now = start + 30 * Self.s - 1
        h.core.tick(now: h.now)
        #expect(h.read(c).isEmpty)
        #expect(h.core.clientCount == 1)
        h.now = start + 30 * Self.s
        h.core.tick(now: h.now)
        let e = h.read(c)
        #expect(e.count == 1)
        #expect(e.first?["code"] == .string("idle_timeout"))
        #expect(e.first?["message"] == .string("no request for 30 s while not watching (idle_timeout_s); closing"))
        #expect(h.core.isClosing(c))
        #expect(h.core.clientCount == 0)
        // Its ERROR is out: the shell closes it now, not after the linger time.
        #expect(h.core.flush(c, now: h.now) { .wrote($0.count) } == .close)
        #expect(h.core.shouldClose(c))
        #expect(h.core.nextDeadline == nil)
    }

    @Test func eachRequestRestartsTheIdleTime() {
        var h = CoreHarness(limits: DaemonCore.Limits(idleTimeoutNanoseconds: 30 * Self.s))
        let start = h.now
        let (c, _) = connect(&h, uid: 1000, control: false)
        h.now = start + 20 * Self.s
        h.send(#"{"cmd":"status"}"#, from: c)
        _ = h.read(c)
        #expect(h.core.nextDeadline == start + 50 * Self.s)
        // Blank lines are not requests.
        h.now = start + 40 * Self.s
        h.core.received(Array("\n \n".utf8), from: c, now: h.now)
        #expect(h.core.nextDeadline == start + 50 * Self.s)
        h.now = start + 50 * Self.s
        h.core.tick(now: h.now)
        #expect(h.read(c).first?["code"] == .string("idle_timeout"))
    }

    @Test func watchersAndSampleSubscribersNeverTimeOutButAnUnwatchStartsTheClock() {
        var h = CoreHarness(limits: DaemonCore.Limits(idleTimeoutNanoseconds: 30 * Self.s))
        let start = h.now
        let (watcher, _) = connect(&h, uid: 1000, control: false)
        let (sampler, _) = connect(&h, uid: 0, control: true)
        h.send(#"{"cmd":"watch"}"#, from: watcher)
        h.send(#"{"cmd":"samples"}"#, from: sampler)
        _ = h.read(watcher)
        _ = h.read(sampler)
        #expect(h.core.nextDeadline == nil)
        h.now = start + 3600 * Self.s
        h.core.tick(now: h.now)
        #expect(h.read(watcher).isEmpty && h.read(sampler).isEmpty)
        #expect(h.core.clientCount == 2)
        h.send(#"{"cmd":"watch","enable":false}"#, from: watcher)
        _ = h.read(watcher)
        #expect(h.core.nextDeadline == h.now + 30 * Self.s)
    }

    @Test func zeroMeansNever() {
        var h = CoreHarness(limits: DaemonCore.Limits(idleTimeoutNanoseconds: 0))
        let (c, _) = connect(&h, uid: 1000, control: false)
        #expect(h.core.nextDeadline == nil)
        h.now += 86_400 * Self.s
        h.core.tick(now: h.now)
        #expect(h.read(c).isEmpty)
        #expect(h.core.clientCount == 1)
    }

    @Test func oneUidWithoutControlRightsGetsItsLimitOthersStillConnect() {
        var h = CoreHarness(limits: DaemonCore.Limits(maxClients: 64, controlReserve: 4, maxClientsPerUID: 3))
        for _ in 0..<3 { #expect(connect(&h, uid: 1000, control: false).1?["class"] == .string("VERSION")) }
        let (fourth, refusal) = connect(&h, uid: 1000, control: false)
        #expect(refusal?["code"] == .string("too_many_clients"))
        #expect(refusal?["message"] == .string(
            "uid 1000 has max_clients_per_uid (3) connections open; peers with control rights are exempt"))
        #expect(h.core.isClosing(fourth))
        #expect(connect(&h, uid: 1001, control: false).1?["class"] == .string("VERSION"))
        // A peer with control rights (the web bridge's one uid for every page) is exempt.
        for _ in 0..<10 { #expect(connect(&h, uid: 998, control: true).1?["class"] == .string("VERSION")) }
        #expect(h.core.clientCount == 14)
    }

    @Test func theLastSlotsAreKeptForPeersWithControlRights() {
        // 8 slots, 2 reserved: 6 ordinary users fill the rest (one each, so the per-uid limit
        // plays no part); the 7th is refused, root and a control_group member still get in.
        var h = CoreHarness(limits: DaemonCore.Limits(maxClients: 8, controlReserve: 2, maxClientsPerUID: 16))
        for uid: UInt32 in 1000..<1006 { #expect(connect(&h, uid: uid, control: false).1?["class"] == .string("VERSION")) }
        let (_, refusal) = connect(&h, uid: 1006, control: false)
        #expect(refusal?["code"] == .string("too_many_clients"))
        #expect(refusal?["message"] == .string(
            "6 of max_clients 8 connections are open and the last 2 are kept for peers with control rights (control_reserve)"))
        #expect(connect(&h, uid: 0, control: true).1?["class"] == .string("VERSION"))
        #expect(connect(&h, uid: 998, control: true).1?["class"] == .string("VERSION"))
        // Full now, for everyone.
        let (_, full) = connect(&h, uid: 0, control: true)
        #expect(full?["message"] == .string("the server already has 8 clients (max_clients)"))
        #expect(h.core.clientCount == 8)
    }

    @Test func idleFloodersTimeOutAndFreeTheirSlots() {
        // The attack: one user opens its share of connections and sends nothing. After the idle
        // timeout every one is closed, and the same user can connect again.
        var h = CoreHarness(limits: DaemonCore.Limits(maxClients: 8, controlReserve: 2, maxClientsPerUID: 6,
                                                      idleTimeoutNanoseconds: 30 * Self.s))
        var held: [ClientID] = []
        for _ in 0..<6 { held.append(connect(&h, uid: 1000, control: false).0) }
        #expect(connect(&h, uid: 1000, control: false).1?["code"] == .string("too_many_clients"))
        h.now += 30 * Self.s
        h.core.tick(now: h.now)
        for id in held {
            #expect(h.read(id).first?["code"] == .string("idle_timeout"))
            #expect(h.core.flush(id, now: h.now) { .wrote($0.count) } == .close)
            h.core.clientDisconnected(id)
        }
        #expect(h.core.clientCount == 0)
        #expect(connect(&h, uid: 1000, control: false).1?["class"] == .string("VERSION"))
    }

    @Test func aPeerWithControlRightsIsNeverTimedOut() {
        // carouselctl calibrate holds its connection, unsubscribed, while the operator turns the
        // device from one pose to the next: that may take minutes.
        var h = CoreHarness(limits: DaemonCore.Limits(idleTimeoutNanoseconds: 30 * Self.s))
        let (operatorTool, _) = connect(&h, uid: 0, control: true)
        let (member, _) = connect(&h, uid: 998, control: true)
        #expect(h.core.nextDeadline == nil)
        h.now += 600 * Self.s
        h.core.tick(now: h.now)
        #expect(h.read(operatorTool).isEmpty && h.read(member).isEmpty)
        h.send(#"{"cmd":"samples"}"#, from: operatorTool)
        #expect(h.read(operatorTool).first?["class"] == .string("ACK"))
        #expect(h.core.clientCount == 2)
    }
}
