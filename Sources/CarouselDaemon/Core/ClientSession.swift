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

/// What the daemon keeps per connection: framing, rights, subscription and the output queue.
final class ClientSession {
    let id: ClientID
    let credentials: PeerCredentials
    /// Whether control commands are accepted (decided once at connect time from SO_PEERCRED).
    let mayControl: Bool
    /// The shell's handle for `DaemonCore.directWrite` (its file descriptor).
    let handle: Int32
    var framer = LineFramer()

    /// Bytes accepted for sending, from `outputStart` on.
    var output: [UInt8] = []
    var outputStart = 0
    var pendingOutputCount: Int { output.count - outputStart }
    /// The kernel refused more bytes (EAGAIN): hold STATEs back until the socket drains.
    var writeBlocked = false
    /// Offset in `output` just past the last STATE queued; the STATE is unsent while
    /// `outputStart < stateEnd`. At most one STATE is ever queued: a newer one waits (coalesced)
    /// until this one has gone, so the backlog stays under the bound even with ~219 KB STATEs.
    var stateEnd = 0
    var hasUnsentState: Bool { outputStart < stateEnd }
    /// INDEX lines that must follow a STATE not yet queued (the one showing the rest): sent
    /// right after it, never before it.
    var heldAfterState: [[UInt8]] = []
    var heldByteCount: Int { heldAfterState.reduce(0) { $0 + $1.count } }

    var watching = false
    var wantsItems = false
    /// STATE rate limit in effect for this client, Hz.
    var maxRateHz: Double
    /// `1 / maxRateHz` in ns, computed when the rate is set (not per STATE considered).
    var frameIntervalNanoseconds: Int64 = 0
    var wantsSamples = false
    /// `seq` of the last STATE sent to this client (0: none).
    var lastStateSeq: UInt64 = 0
    /// CLOCK_MONOTONIC ns of the last STATE sent.
    var lastStateTime: Int64?

    /// The connection ends once its output is written (after `too_long`/`too_many_clients`).
    var closeAfterFlush = false
    /// The connection is dropped at once (its output passed the bound).
    var dropped = false
    /// In the core's flush queue (`DaemonCore.takeClientsToFlush`).
    var queuedForFlush = false

    init(id: ClientID, credentials: PeerCredentials, mayControl: Bool, maxRateHz: Double, handle: Int32 = -1) {
        self.id = id
        self.handle = handle
        self.credentials = credentials
        self.mayControl = mayControl
        self.maxRateHz = maxRateHz
    }

    /// Marks `count` bytes as written; compacts the queue when it empties.
    func consume(_ count: Int) {
        outputStart += min(count, pendingOutputCount)
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 65536)
            outputStart = 0
            stateEnd = 0
        } else if outputStart > 65536 {
            output.removeSubrange(0..<outputStart)
            stateEnd = max(stateEnd - outputStart, 0)
            outputStart = 0
        }
    }
}
