import CarouselProtocol

/// Identifies one connection for the lifetime of the daemon (never reused).
public struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "client \(rawValue)" }
}

/// Peer credentials of a connection (SO_PEERCRED).
public struct PeerCredentials: Equatable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) { self.pid = pid; self.uid = uid; self.gid = gid }
}

/// Where a connection is in its life, as swift-nio models a channel (open → closing → closed).
/// Every question the core asks about a client ("does it watch?", "may it still get output?",
/// "must the shell close it?") is answered from this one value.
enum ClientLifecycle: Equatable {
    /// Requests are read and answered; the client gets what it subscribed to.
    case open(Subscription)
    /// A final ERROR (`too_long`, `too_many_clients`, `idle_timeout`) is queued: what the peer
    /// still sends is discarded and nothing more is queued. Once the ERROR is written the
    /// connection is closed at once (`DaemonCore.flush` answers `.close`); a peer that does not
    /// read it is closed after the linger time (`DaemonCore.lingerNanoseconds`).
    case closing
    /// Dropped (output over the bound, a failed write, the linger time passed) or gone: its
    /// output is forgotten and the shell closes it.
    case closed
}

/// What an open connection asked to receive.
struct Subscription: Equatable {
    /// STATE/INDEX/SENSOR as they happen (`watch`), or nil.
    var watch: WatchSettings?
    /// SAMPLE lines (`samples`).
    var samples = false

    static let none = Subscription()
}

/// The settings of a `watch` in effect.
struct WatchSettings: Equatable {
    /// STATEs carry `items`.
    var items: Bool
    /// STATE rate limit, Hz (capped by `max_rate_hz`, at least `DaemonCore.minimumRateHz`).
    var maxRateHz: Double
    /// `1 / maxRateHz` in ns, computed when the rate is set (not per STATE considered).
    var frameIntervalNanoseconds: Int64
    /// ORIENTATION lines wanted (`watch` `orientation`, protocol 1.2).
    var orientation = false
}

/// A request answered later than it is read (docs/PROTOCOL.md "Replies").
enum PendingReply: Equatable {
    /// `recenter_tilt` waits for a fresh tilt estimate until this CLOCK_MONOTONIC time, ns.
    case recenter(deadline: Int64)
    /// `sensors` waits for a listing run off the loop (`SensorListings`).
    case sensors
}

/// What the daemon keeps per connection: framing, rights, lifecycle, the publishing cursor and
/// the outbox.
final class ClientSession {
    let id: ClientID
    let credentials: PeerCredentials
    /// Whether control commands are accepted (decided once at connect time from SO_PEERCRED).
    let mayControl: Bool
    var framer = LineFramer()
    var lifecycle: ClientLifecycle = .open(.none)
    var outbox: Outbox

    /// `seq` of the last STATE queued for this client (0: none).
    var lastStateSeq: UInt64 = 0
    /// CLOCK_MONOTONIC ns of the last STATE queued.
    var lastStateTime: Int64?
    /// In the core's flush queue (`DaemonCore.takeClientsToFlush`).
    var queuedForFlush = false
    /// The request of this client that is answered later, nil when none: its later requests
    /// wait with it, so replies keep the order of requests.
    var pendingReply: PendingReply?
    /// CLOCK_MONOTONIC ns of the last request line (or of the connection): the idle timeout of
    /// an unsubscribed client without control rights counts from here (`DaemonCore+Idle`).
    var lastRequestTime: Int64

    init(id: ClientID, credentials: PeerCredentials, mayControl: Bool, outbox: Outbox, now: Int64) {
        self.id = id
        self.credentials = credentials
        self.mayControl = mayControl
        self.outbox = outbox
        self.lastRequestTime = now
    }

    /// What the client subscribed to (`.none` unless open).
    var subscription: Subscription {
        if case let .open(s) = lifecycle { return s }
        return .none
    }

    /// The watch in effect, nil when not watching (or not open).
    var watch: WatchSettings? {
        if case let .open(s) = lifecycle { return s.watch }
        return nil
    }

    /// Until when (CLOCK_MONOTONIC ns) this client's `recenter_tilt` waits for a fresh tilt
    /// estimate; nil when it does not wait for one.
    var recenterDeadline: Int64? {
        if case let .recenter(deadline) = pendingReply { return deadline }
        return nil
    }

    var isOpen: Bool { if case .open = lifecycle { return true } else { return false } }
    var isClosing: Bool { lifecycle == .closing }
    var isClosed: Bool { lifecycle == .closed }
}
