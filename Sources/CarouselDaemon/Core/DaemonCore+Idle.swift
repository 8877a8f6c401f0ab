import CarouselProtocol

/// The idle timeout (`[server] idle_timeout_s`): a connection that neither watches nor streams
/// samples and sends no request for that long gets `ERROR idle_timeout` and is closed, so
/// connections opened and left idle cannot hold the daemon's `max_clients` slots. Watchers and
/// `samples` subscribers are never timed out (a display may watch for days without a request);
/// neither is a client whose `recenter_tilt` waits for an estimate (the daemon owes it a reply).
/// The time counts from the connection or its last request line (blank lines do not count).
extension DaemonCore {
    /// When the next idle connection times out, CLOCK_MONOTONIC ns; nil when none can (no
    /// unsubscribed connection, or `idleTimeoutNanoseconds` 0).
    var nextIdleDeadline: Int64? {
        let timeout = limits.idleTimeoutNanoseconds
        guard timeout > 0 else { return nil }
        var earliest: Int64?
        for s in currentRoster().unsubscribed where s.recenterDeadline == nil {
            earliest = min(earliest ?? s.lastRequestTime, s.lastRequestTime)
        }
        return earliest.map { $0 &+ timeout }
    }

    /// Sends `ERROR idle_timeout` to every connection idle for `idleTimeoutNanoseconds` at
    /// `now` and closes it once the line is written.
    func expireIdleClients(now: Int64) {
        let timeout = limits.idleTimeoutNanoseconds
        guard timeout > 0 else { return }
        for s in currentRoster().unsubscribed where s.recenterDeadline == nil && now - s.lastRequestTime >= timeout {
            let seconds = WireJSONWriter.format(Double(timeout) / 1e9)
            send(.error(ProtocolError(.idleTimeout,
                "no request for \(seconds) s while not watching (idle_timeout_s); closing")), to: s)
            closeAfterOutput(s, now: now)
        }
    }
}
