/// One connection's output (docs/PROTOCOL.md "Publishing rules"): the bytes accepted for it and not yet written, the
/// rule that at most one STATE is queued, the INDEX lines that wait for the STATE they follow,
/// and the per-client bound (256 KiB by default).
///
/// `DaemonCore` decides what a client gets; the outbox writes it. With a `writer` (the shell's
/// non-blocking `send` on the connection's socket) a line for an empty queue goes out at once,
/// so a watcher that keeps up costs one `send` and no copy; whatever the socket does not take is
/// queued and written by `drain(through:)` when the socket has room. Without one (tests) every
/// line is queued.
struct Outbox {
    /// Writes bytes to the connection without blocking; must not call back into the core.
    typealias Writer = (UnsafeRawBufferPointer) -> DaemonCore.WriteResult

    /// Why a line was not accepted: the connection must go.
    enum Refusal: Error, Equatable {
        /// The unsent bytes would pass the bound (the text says by how much).
        case overBound(String)
        /// The writer failed (EPIPE, ECONNRESET…): the peer is gone.
        case failed
    }

    /// What `drain(through:)` achieved.
    enum Drain: Equatable {
        /// Nothing is left to write.
        case drained
        /// The socket is full with output left (EAGAIN).
        case blocked
        /// The write failed: close the connection.
        case failed
    }

    /// The bound on unsent bytes, held INDEX lines included.
    let limit: Int
    private let writer: Writer?
    /// Bytes accepted for sending, from `start` on.
    private var bytes: [UInt8] = []
    private var start = 0
    /// Offset in `bytes` just past the last STATE queued; that STATE is unsent while
    /// `start < stateEnd`.
    private var stateEnd = 0
    /// INDEX lines that must follow a STATE not yet queued (the one showing the rest).
    private var held: [[UInt8]] = []
    /// The socket refused more bytes (EAGAIN) and has not drained since.
    private(set) var isBlocked = false

    init(limit: Int, writer: Writer?) {
        self.limit = limit
        self.writer = writer
    }

    /// Number of bytes accepted and not yet written.
    var pendingCount: Int { bytes.count - start }
    /// The bytes accepted and not yet written, oldest first.
    var pending: ArraySlice<UInt8> { bytes[start...] }
    /// Whether a STATE is queued and not yet fully written.
    var hasUnsentState: Bool { start < stateEnd }
    /// Whether a new STATE may be queued now. At most one STATE is ever queued: a newer one waits
    /// (coalesced) until the previous one has gone, so the backlog stays under the bound even
    /// with STATEs of ~219 KB.
    var acceptsState: Bool { !hasUnsentState && !isBlocked }
    /// Whether INDEX lines wait for a STATE.
    var hasHeldLines: Bool { !held.isEmpty }

    /// Accepts `line` for sending.
    /// - Throws: `Refusal.overBound` when the backlog would pass the bound (a single line
    ///   larger than the bound is still accepted from a client whose backlog is under a quarter
    ///   of it: a STATE with thousands of items after a dense `set_geometry` goes to a client
    ///   that keeps up); `Refusal.failed` when the writer reports the peer gone.
    mutating func append(_ line: [UInt8]) throws(Refusal) {
        let oversizedAllowed = line.count > limit && pendingCount <= limit / 4
        if pendingCount + line.count > limit, !oversizedAllowed {
            throw .overBound("\(pendingCount) bytes unsent, a \(line.count)-byte line would pass")
        }
        var rest = line[...]
        if pendingCount == 0, !isBlocked, let writer, !line.isEmpty {
            switch line.withUnsafeBytes(writer) {
            case let .wrote(n):
                if n >= line.count { return }
                rest = line[n...]
            case .wouldBlock:
                isBlocked = true
            case .failed:
                throw .failed
            }
        }
        bytes.append(contentsOf: rest)
    }

    /// Accepts a STATE line, then the INDEX lines that waited for it.
    /// - Throws: as `append(_:)`.
    mutating func appendState(_ line: [UInt8]) throws(Refusal) {
        try append(line)
        stateEnd = bytes.count
        guard !held.isEmpty else { return }
        let lines = held
        held = []
        for l in lines { try append(l) }
    }

    /// Keeps an INDEX line until the STATE it follows can be queued; it counts toward the bound.
    /// - Throws: `Refusal.overBound` when the backlog would pass the bound.
    mutating func hold(_ line: [UInt8]) throws(Refusal) {
        let heldBytes = held.reduce(0) { $0 + $1.count }
        if pendingCount + heldBytes + line.count > limit {
            throw .overBound("\(pendingCount + heldBytes) bytes unsent and INDEX lines piling up")
        }
        held.append(line)
    }

    /// Forgets the INDEX lines waiting for a STATE (the client stopped watching).
    mutating func dropHeld() { held.removeAll() }

    /// Forgets everything (the connection is going).
    mutating func discard() {
        bytes = []
        start = 0
        stateEnd = 0
        held = []
    }

    /// Marks `count` bytes of `pending` as written; `blocked` when the socket took no more.
    /// A drained queue keeps its storage (up to 64 KiB) for the next line.
    mutating func consume(_ count: Int, blocked: Bool) {
        start += min(max(count, 0), pendingCount)
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 65536)
            start = 0
            stateEnd = 0
        } else if start > 65536 {
            bytes.removeSubrange(0..<start)
            stateEnd = max(stateEnd - start, 0)
            start = 0
        }
        isBlocked = blocked && pendingCount > 0
    }

    /// Writes the queue through `write` until it drains, the socket is full or the write fails.
    mutating func drain(through write: Writer) -> Drain {
        while pendingCount > 0 {
            let from = start
            let result = bytes.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[from...])) }
            switch result {
            case let .wrote(n):
                consume(n, blocked: false)
            case .wouldBlock:
                consume(0, blocked: true)
                return .blocked
            case .failed:
                return .failed
            }
        }
        isBlocked = false
        return .drained
    }
}
