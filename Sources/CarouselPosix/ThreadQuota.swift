import Synchronization

/// How many threads of one kind may be alive at once, each counted from before it is started to
/// its last instruction: a thread that was told to stop but is still inside a blocking library
/// call (a `RemoteSensorSource` worker waiting up to libiio's 5 s network timeout on an iiod that
/// does not answer) still counts. Shared by every thread that may start one.
public final class ThreadQuota: Sendable {
    /// Threads alive at once, at most (≥ 1).
    public let limit: Int
    private let alive = Atomic<Int>(0)

    public init(limit: Int) { self.limit = max(limit, 1) }

    /// Threads counted now (started and not yet released).
    public var count: Int { alive.load(ordering: .acquiring) }

    /// Takes a place for a thread about to start: true, or false (nothing taken) when `limit`
    /// threads are alive.
    public func acquire() -> Bool {
        var current = alive.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = alive.compareExchange(expected: current, desired: current + 1,
                                                              ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back the place of a thread that ends (its last act) or could not be started.
    public func release() {
        alive.subtract(1, ordering: .releasing)
    }
}
