import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// The `sensors` request answered off the loop (docs/PROTOCOL.md "Requests"): `SensorListings`
/// bounds the listings a client can start, and the core answers each request when its listing
/// ends or its 3 s wait passes, in request order, with other clients served meanwhile.
@Suite struct SensorListingTests {
    static let uri = "ip:192.0.2.10"
    static let s: Int64 = 1_000_000_000
    static let list = #"[{"name":"bmi160"}]"#

    // MARK: - SensorListings alone

    @Test func requestsForTheURIBeingListedShareItsListing() {
        var l = SensorListings()
        #expect(l.request(uri: Self.uri, from: ClientID(1), now: 0) == .start(SensorListingID(1)))
        #expect(l.request(uri: Self.uri, from: ClientID(2), now: Self.s) == .join)
        #expect(l.running.count == 1)
        let done = l.finished(SensorListingID(1))
        #expect(done?.uri == Self.uri)
        #expect(done?.waiters == [ClientID(1), ClientID(2)])
        #expect(l.running.isEmpty)
        // Ended: the next request starts a new listing, with a new id.
        #expect(l.request(uri: Self.uri, from: ClientID(1), now: 2 * Self.s) == .start(SensorListingID(2)))
    }

    @Test func anOverdueListingAnswersItsWaitersOnceAndRefusesItsURIUntilItEnds() {
        var l = SensorListings()
        _ = l.request(uri: Self.uri, from: ClientID(1), now: 0)
        #expect(l.nextDeadline == 3 * Self.s)
        #expect(l.expire(now: 3 * Self.s - 1).isEmpty)
        let expired = l.expire(now: 3 * Self.s)
        #expect(expired.count == 1)
        #expect(expired.first?.waiters == [ClientID(1)])
        #expect(expired.first?.message == "no sensor list from ip:192.0.2.10 within 3 s (is iiod on 192.0.2.10 answering?)")
        #expect(l.expire(now: 4 * Self.s).isEmpty)
        #expect(l.nextDeadline == nil)
        // Its thread still runs: 1,000 more requests start nothing and are refused at once.
        for i in 0..<1000 {
            #expect(l.request(uri: Self.uri, from: ClientID(2), now: 3_400_000_000 + Int64(i)) == .refuse(
                "the listing of ip:192.0.2.10's sensors started 3.4 s ago has not finished "
                + "(is iiod on 192.0.2.10 answering?); try again later"))
        }
        #expect(l.running.count == 1)
        // It ends (libiio's own timeout): nobody waits, and the URI may be listed again.
        #expect(l.finished(SensorListingID(1))?.waiters == [])
        #expect(l.request(uri: Self.uri, from: ClientID(2), now: 6 * Self.s) == .start(SensorListingID(2)))
    }

    @Test func atMostTwoListingsRunAtOnce() {
        var l = SensorListings()
        #expect(l.request(uri: "ip:192.0.2.10", from: ClientID(1), now: 0) == .start(SensorListingID(1)))
        #expect(l.request(uri: "ip:192.0.2.11", from: ClientID(2), now: 0) == .start(SensorListingID(2)))
        #expect(l.request(uri: "local:", from: ClientID(3), now: 0)
                == .refuse("2 sensor listings are still running (ip:192.0.2.10, ip:192.0.2.11), the most at once; try again later"))
        // Joining one that runs is still possible.
        #expect(l.request(uri: "ip:192.0.2.11", from: ClientID(3), now: 1) == .join)
        _ = l.finished(SensorListingID(1))
        #expect(l.request(uri: "local:", from: ClientID(4), now: 2) == .start(SensorListingID(3)))
    }

    @Test func aClientThatLeavesWaitsForNothing() {
        var l = SensorListings()
        _ = l.request(uri: Self.uri, from: ClientID(1), now: 0)
        _ = l.request(uri: Self.uri, from: ClientID(2), now: 0)
        l.forget(ClientID(1))
        #expect(l.finished(SensorListingID(1))?.waiters == [ClientID(2)])
        // An unknown (already reported) id is nothing.
        #expect(l.finished(SensorListingID(1)) == nil)
    }

    // MARK: - Through the core

    /// A core whose listings are recorded instead of run.
    final class Listings {
        var started: [(SensorListingID, String)] = []
        var refusal: String?
    }

    /// The core, its recorded listings, and `clients` connections past their greeting.
    static func harness(clients: Int = 1, control: Bool = true,
                        limits: DaemonCore.Limits = DaemonCore.Limits()) -> (CoreHarness, Listings, [ClientID]) {
        var h = CoreHarness(limits: limits)
        let listings = Listings()
        h.core.sensorsURI = uri
        h.core.startSensorListing = { id, uri in
            if let why = listings.refusal { return why }
            listings.started.append((id, uri))
            return nil
        }
        let ids = (0..<clients).map { _ in h.connect(control: control) }
        for id in ids { _ = h.read(id) }
        return (h, listings, ids)
    }

    @Test func theReplyWaitsForTheListingAndTheClientsLaterRequestsWaitWithIt() throws {
        var (h, listings, ids) = Self.harness(clients: 2)
        let c = ids[0], other = ids[1]
        h.send(#"{"cmd":"sensors"}"#, from: c)
        h.send(#"{"cmd":"status"}"#, from: c)
        #expect(listings.started.map(\.1) == [Self.uri])
        #expect(h.read(c).isEmpty)
        #expect(!h.core.acceptsInput(from: c))
        #expect(h.core.nextDeadline == h.now + 3 * Self.s)
        // Another client is served meanwhile.
        h.send(#"{"cmd":"status"}"#, from: other)
        #expect(h.read(other).map { $0["class"] } == [.string("STATUS")])
        var due: [ClientID] = []
        h.core.takeClientsToFlush(into: &due)
        due = []
        h.now += 40 * CoreHarness.ms
        h.core.sensorListingFinished(listings.started[0].0, outcome: .listed(json: Self.list), now: h.now)
        #expect(h.core.acceptsInput(from: c))
        // The shell is told to read `c` again.
        h.core.takeClientsToFlush(into: &due)
        #expect(due == [c])
        let got = h.read(c)
        #expect(got.count == 2)
        #expect(try got.first == WireJSONParser.parse(#"{"class":"SENSORS","sensors":[{"name":"bmi160"}]}"#))
        #expect(got.last?["class"] == .string("STATUS"))
        #expect(h.core.nextDeadline == nil)
    }

    @Test func aFailedListingIsUnavailableNamingTheURIAndWhy() throws {
        let (h, listings, ids) = Self.harness(clients: 2)
        let a = ids[0], b = ids[1]
        h.send(#"{"cmd":"sensors"}"#, from: a)
        h.send(#"{"cmd":"sensors"}"#, from: b)
        #expect(listings.started.count == 1)  // b joined a's listing
        h.core.sensorListingFinished(listings.started[0].0,
                                     outcome: .failed("ip:192.0.2.10: iio_create_context failed (errno 110: Connection timed out)"),
                                     now: h.now)
        let error = try WireJSONParser.parse(#"""
            {"class":"ERROR","code":"unavailable","message":"cannot list the sensors of ip:192.0.2.10: ip:192.0.2.10: iio_create_context failed (errno 110: Connection timed out)","cmd":"sensors"}
            """#)
        #expect(h.read(a) == [error])
        #expect(h.read(b) == [error])
    }

    @Test func theWaitEndsAfterThreeSecondsAndTheListingsLateEndWritesNothing() throws {
        var (h, listings, ids) = Self.harness()
        let c = ids[0]
        let start = h.now
        h.send(#"{"cmd":"sensors"}"#, from: c)
        h.send(#"{"cmd":"sensors"}"#, from: c)
        let got = h.run(until: start + 5 * Self.s, reading: c)
        // The first at 3 s; the second, read once the first is answered, is refused at once:
        // the hung listing's thread has not ended.
        #expect(got.map(\.0) == [start + 3 * Self.s, start + 3 * Self.s])
        #expect(got.map { $0.1["code"] } == [.string("unavailable"), .string("unavailable")])
        #expect(got.first?.1["message"] == .string("no sensor list from ip:192.0.2.10 within 3 s (is iiod on 192.0.2.10 answering?)"))
        #expect(got.last?.1["message"] == .string(
            "the listing of ip:192.0.2.10's sensors started 3 s ago has not finished (is iiod on 192.0.2.10 answering?); try again later"))
        #expect(listings.started.count == 1)
        // libiio gives up at last: nothing more for the client, and its next request lists again.
        h.core.sensorListingFinished(listings.started[0].0, outcome: .failed("timed out"), now: h.now)
        #expect(h.read(c).isEmpty)
        h.send(#"{"cmd":"sensors"}"#, from: c)
        #expect(listings.started.count == 2)
    }

    @Test func aClientThatLeavesWithItsListingInFlightGetsNothingAndItsSuccessorOnlyItsOwn() throws {
        var (h, listings, ids) = Self.harness()
        let gone = ids[0]
        h.send(#"{"cmd":"sensors"}"#, from: gone)
        h.core.clientDisconnected(gone)
        let next = h.connect()
        _ = h.read(next)
        h.core.sensorListingFinished(listings.started[0].0, outcome: .listed(json: Self.list), now: h.now)
        #expect(h.read(next).isEmpty)
        #expect(h.core.pendingOutput(for: gone).isEmpty)
        #expect(h.core.nextDeadline == nil)
    }

    /// `idle_timeout_s` 0.1 and a client without control rights: its wait for the listing is
    /// not idleness; the timeout counts again from the reply.
    @Test func aClientWaitingForItsListingIsNotIdle() throws {
        var (h, listings, ids) = Self.harness(control: false, limits: DaemonCore.Limits(idleTimeoutNanoseconds: 100_000_000))
        let c = ids[0]
        let start = h.now
        h.send(#"{"cmd":"sensors"}"#, from: c)
        #expect(h.core.nextDeadline == start + 3 * Self.s)
        h.now = start + 2 * Self.s
        h.core.tick(now: h.now)
        #expect(h.read(c).isEmpty)
        h.core.sensorListingFinished(listings.started[0].0, outcome: .listed(json: Self.list), now: h.now)
        #expect(h.read(c).map { $0["class"] } == [.string("SENSORS")])
        #expect(h.core.nextDeadline == h.now + 100_000_000)
        h.now += 100_000_000
        h.core.tick(now: h.now)
        #expect(h.read(c).map { $0["code"] } == [.string("idle_timeout")])
    }

    @Test func aListingThatCannotStartIsUnavailableAtOnce() throws {
        let (h, listings, ids) = Self.harness()
        let c = ids[0]
        listings.refusal = "pthread_create carouseld-list: Resource temporarily unavailable (errno 11)"
        h.send(#"{"cmd":"sensors"}"#, from: c)
        #expect(try h.read(c) == [WireJSONParser.parse(#"""
            {"class":"ERROR","code":"unavailable","message":"cannot list the sensors of ip:192.0.2.10: pthread_create carouseld-list: Resource temporarily unavailable (errno 11)","cmd":"sensors"}
            """#)])
        // Nothing was left running: the next request tries again.
        listings.refusal = nil
        h.send(#"{"cmd":"sensors"}"#, from: c)
        #expect(listings.started.count == 1)
    }
}
