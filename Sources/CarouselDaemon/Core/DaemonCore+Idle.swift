import CarouselProtocol

/// The idle timeout (`[server] idle_timeout_s`): a connection without control rights that
/// neither watches nor streams samples and sends no request for that long gets
/// `ERROR idle_timeout` and is closed, so connections opened and left idle cannot hold the
/// daemon's `max_clients` slots. Never timed out: watchers and `samples` subscribers (a display
/// may watch for days without a request), and peers with control rights, which the reserve
/// already protects from everyone else and which may hold a connection idle on purpose
/// (`carouselctl calibrate` keeps one open while the operator turns the device between poses;
/// a `recenter_tilt` waiting for an estimate needs control rights too).
/// The time counts from the connection, its last request line (blank lines do not count) or the
/// reply to a request answered later (`PendingReply`).
extension DaemonCore {
    /// When the next idle connection times out, CLOCK_MONOTONIC ns; nil when none can (no
    /// unsubscribed connection without control rights, or `idleTimeoutNanoseconds` 0).
    var nextIdleDeadline: Int64? {
        let timeout = limits.idleTimeoutNanoseconds
        guard timeout > 0 else { return nil }
        var earliest: Int64?
        for s in currentRoster().unsubscribed where s.mayTimeOut {
            earliest = min(earliest ?? s.lastRequestTime, s.lastRequestTime)
        }
        return earliest.map { $0 &+ timeout }
    }

    /// Sends `ERROR idle_timeout` to every connection idle for `idleTimeoutNanoseconds` at
    /// `now` and closes it once the line is written.
    func expireIdleClients(now: Int64) {
        let timeout = limits.idleTimeoutNanoseconds
        guard timeout > 0 else { return }
        for s in currentRoster().unsubscribed where s.mayTimeOut && now - s.lastRequestTime >= timeout {
            let seconds = WireJSONWriter.format(Double(timeout) / 1e9)
            send(.error(ProtocolError(.idleTimeout,
                "no request for \(seconds) s while not watching (idle_timeout_s); closing")), to: s)
            closeAfterOutput(s, now: now)
        }
    }
}

extension ClientSession {
    /// Whether the idle timeout applies while it neither watches nor streams samples: not to a
    /// client waiting for a reply (a `sensors` listing takes up to 3 s, longer than the
    /// shortest `idle_timeout_s`), whose idle time counts again from the reply.
    var mayTimeOut: Bool { !mayControl && pendingReply == nil }
}
