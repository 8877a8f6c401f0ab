/// When to publish the state (docs/MQTT.md "state"): at once when something discrete changes
/// (`BridgeState.differsDiscretely`: the resting index, count, sensor status, tilt enabled,
/// start or end of motion), otherwise — position and tilt angles while moving — at most `maximumRateHz`,
/// keeping only the newest state in between so the last one is always published. A state that
/// does not differ noticeably from the last one published (`BridgeState.differsNoticeably`: the
/// same but for tilt angles within 0.1°) is not published. Pure: the caller passes
/// CLOCK_MONOTONIC nanoseconds.
public struct StatePublishSchedule: Sendable {
    /// Minimum spacing of throttled publications, ns; nil when `maximumRateHz` is 0 (only
    /// discrete changes are published).
    public let minimumIntervalNanoseconds: Int64?
    /// The last state handed out for publishing.
    public private(set) var published: BridgeState?
    private var publishedAt: Int64 = .min
    /// The newest state not yet published, waiting for `deadline`.
    public private(set) var pending: BridgeState?

    /// - Parameter maximumRateHz: `[publish] position_max_hz`, ≥ 0.
    public init(maximumRateHz: Double) {
        minimumIntervalNanoseconds = maximumRateHz > 0 ? Int64((1e9 / maximumRateHz).rounded()) : nil
    }

    /// When the pending state is due, nil when nothing waits.
    public var deadline: Int64? {
        guard pending != nil, let interval = minimumIntervalNanoseconds else { return nil }
        return publishedAt + interval
    }

    /// Takes a new state from the daemon; returns it when it is to be published now.
    public mutating func offer(_ state: BridgeState, now: Int64) -> BridgeState? {
        guard let last = published else { return take(state, now: now) }
        if !state.differsNoticeably(from: last) { pending = nil; return nil }
        if state.differsDiscretely(from: last) { return take(state, now: now) }
        guard let interval = minimumIntervalNanoseconds else { pending = state; return nil }
        if now - publishedAt >= interval { return take(state, now: now) }
        pending = state
        return nil
    }

    /// The pending state if its time has come.
    public mutating func due(now: Int64) -> BridgeState? {
        guard let pending, let deadline, now >= deadline else { return nil }
        return take(pending, now: now)
    }

    /// Publishes `state` whatever was published before (after reconnecting to the broker, whose
    /// retained copy may be older or gone); returns it.
    public mutating func republish(_ state: BridgeState, now: Int64) -> BridgeState {
        take(state, now: now)
    }

    private mutating func take(_ state: BridgeState, now: Int64) -> BridgeState {
        published = state
        publishedAt = now
        pending = nil
        return state
    }
}
