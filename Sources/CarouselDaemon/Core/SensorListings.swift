import CarouselProtocol

/// Identifies one sensor listing for the lifetime of the daemon (never reused).
public struct SensorListingID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "sensor listing \(rawValue)" }
}

/// How a sensor listing ended, as the shell reports it (`DaemonCore.sensorListingFinished`).
public enum SensorListingOutcome: Equatable, Sendable {
    /// The JSON array of docs/CLI.md "sensors".
    case listed(json: String)
    /// The listing failed: why, e.g. libiio's "iio_create_context ip:192.0.2.10: … (errno 110: Connection timed out)".
    case failed(String)
}

/// The `sensors` requests waiting for a listing of the configured URI's sensors, and the
/// listings running off the event loop that will answer them (docs/PROTOCOL.md "Requests").
/// Listing a remote (`ip:`) context waits on iiod, up to libiio's 5 s network timeout per call,
/// so the shell runs each listing on its own thread and reports its end; this type only decides,
/// so a client cannot make the daemon start a listing per request:
///
/// - A request for the URI of a listing in progress joins it: every `sensors` that arrives
///   while it runs gets its answer.
/// - A listing not finished `waitNanoseconds` after it started answers its waiters with an
///   error; its thread may still be inside libiio, so it keeps its place among the running ones
///   until it ends, and requests for its URI meanwhile are refused at once (a hung iiod costs
///   one wait, not one per request).
/// - At most `maxRunning` listings run at once (only listings of different URIs, i.e. across a
///   reload, run together); a request that would start one more is refused at once.
struct SensorListings {
    /// How long a `sensors` request waits for its listing, ns: below `carouselctl`'s 5 s reply
    /// timeout, so the client reads the daemon's reason rather than its own timeout, and far
    /// above a listing that works (milliseconds locally or over a LAN).
    static let waitNanoseconds: Int64 = 3_000_000_000
    /// Listings (threads) running at once, overdue ones included.
    static let maxRunning = 2

    /// One listing in progress.
    struct Listing: Equatable {
        let id: SensorListingID
        /// The context URI it lists (`local:`, `ip:HOST`…).
        let uri: String
        let startedNanoseconds: Int64
        /// The clients whose `sensors` it answers, in the order they asked; emptied at the deadline.
        var waiters: [ClientID]
        var deadline: Int64 { startedNanoseconds + SensorListings.waitNanoseconds }
    }

    /// What to do with one `sensors` request.
    enum Admission: Equatable {
        /// Run a new listing with this id (the shell's thread), then report its end.
        case start(SensorListingID)
        /// Wait for the listing in progress.
        case join
        /// Answer `ERROR unavailable` with this message now.
        case refuse(String)
    }

    /// Listings whose end the shell has not reported yet, oldest first.
    private(set) var running: [Listing] = []
    private var nextID = 1

    /// Decides the `sensors` request of `client` for the sensors of `uri` at `now`.
    mutating func request(uri: String, from client: ClientID, now: Int64) -> Admission {
        if let i = running.firstIndex(where: { $0.uri == uri }) {
            guard now < running[i].deadline else {
                let seconds = Double(now - running[i].startedNanoseconds) * 1e-9
                return .refuse("the listing of \(uri)'s sensors started \(Self.format(seconds)) s ago has not finished"
                               + "\(Self.hint(uri)); try again later")
            }
            running[i].waiters.append(client)
            return .join
        }
        guard running.count < Self.maxRunning else {
            return .refuse("\(running.count) sensor listings are still running (\(running.map(\.uri).joined(separator: ", "))), "
                           + "the most at once; try again later")
        }
        let id = SensorListingID(nextID)
        nextID += 1
        running.append(Listing(id: id, uri: uri, startedNanoseconds: now, waiters: [client]))
        return .start(id)
    }

    /// The listing `id` ended (or could not start): it is removed; returns its URI and the
    /// clients still waiting for it, nil for an unknown id.
    mutating func finished(_ id: SensorListingID) -> (uri: String, waiters: [ClientID])? {
        guard let i = running.firstIndex(where: { $0.id == id }) else { return nil }
        let listing = running.remove(at: i)
        return (listing.uri, listing.waiters)
    }

    /// The listings past their deadline that still have waiters: their waiters are taken (the
    /// listings stay until they end). Each with the message to answer them with.
    mutating func expire(now: Int64) -> [(message: String, waiters: [ClientID])] {
        var expired: [(message: String, waiters: [ClientID])] = []
        for i in running.indices where running[i].deadline <= now && !running[i].waiters.isEmpty {
            let uri = running[i].uri
            expired.append(("no sensor list from \(uri) within \(Self.format(Double(Self.waitNanoseconds) * 1e-9)) s"
                            + Self.hint(uri), running[i].waiters))
            running[i].waiters.removeAll()
        }
        return expired
    }

    /// `client` is gone: it waits for nothing.
    mutating func forget(_ client: ClientID) {
        for i in running.indices { running[i].waiters.removeAll { $0 == client } }
    }

    /// The earliest deadline of a listing with waiters, nil when none waits.
    var nextDeadline: Int64? {
        running.lazy.filter { !$0.waiters.isEmpty }.map(\.deadline).min()
    }

    /// Why a listing may hang, for remote contexts.
    private static func hint(_ uri: String) -> String {
        uri.hasPrefix("ip:") ? " (is iiod on \(uri.dropFirst(3)) answering?)" : ""
    }

    /// Seconds to one decimal, `3` rather than `3.0`.
    private static func format(_ seconds: Double) -> String {
        WireJSONWriter.format((seconds * 10).rounded() / 10)
    }
}
