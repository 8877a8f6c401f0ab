import CarouselProtocol

/// `sensors`: the configured URI's sensors, listed off the event loop (a remote iiod that stops
/// answering holds a listing for libiio's 5 s network timeout per call). The request waits for
/// its listing (`PendingReply.sensors`), and the client's later requests with it; other clients
/// are served meanwhile. `SensorListings` decides which requests start, join or are refused.
extension DaemonCore {
    func handleSensors(from s: ClientSession, now: Int64) {
        let uri = sensorsURI
        switch sensorListings.request(uri: uri, from: s.id, now: now) {
        case let .start(id):
            if let problem = startSensorListing(id, uri) {
                _ = sensorListings.finished(id)
                send(.error(ProtocolError(.unavailable, "cannot list the sensors of \(uri): \(problem)", cmd: "sensors")), to: s)
                return
            }
            s.pendingReply = .sensors
        case .join:
            s.pendingReply = .sensors
        case let .refuse(why):
            send(.error(ProtocolError(.unavailable, why, cmd: "sensors")), to: s)
        }
    }

    /// The shell's listing `id` ended: its waiters get SENSORS, or `ERROR unavailable` naming
    /// the URI and why, then go on with their later requests. An id already forgotten (its
    /// waiters timed out and left) only frees its place.
    public func sensorListingFinished(_ id: SensorListingID, outcome: SensorListingOutcome, now: Int64) {
        guard let done = sensorListings.finished(id) else { return }
        let reply: ServerMessage = switch outcome {
        case let .listed(json): .sensors(json: json)
        case let .failed(why): .error(ProtocolError(.unavailable, "cannot list the sensors of \(done.uri): \(why)", cmd: "sensors"))
        }
        answerSensorWaiters(done.waiters, with: reply, now: now)
    }

    /// Answers the `sensors` requests whose listing passed `SensorListings.waitNanoseconds`.
    func expireSensorListings(now: Int64) {
        for expired in sensorListings.expire(now: now) {
            answerSensorWaiters(expired.waiters, with: .error(ProtocolError(.unavailable, expired.message, cmd: "sensors")),
                                now: now)
        }
    }

    private func answerSensorWaiters(_ ids: [ClientID], with reply: ServerMessage, now: Int64) {
        let waiting = ids.compactMap { sessions[$0] }.filter { $0.pendingReply == .sensors }
        answerPendingReplies(of: waiting, now: now) { send(reply, to: $0) }
    }

    /// Ends the wait of each of `sessions` for its pending reply: `answer` queues the reply,
    /// then each goes on with the requests it sent meanwhile (the shell reads its input again:
    /// `acceptsInput`). Its idle time counts from the reply (`DaemonCore+Idle`).
    func answerPendingReplies(of sessions: [ClientSession], now: Int64, _ answer: (ClientSession) -> Void) {
        for s in sessions {
            s.pendingReply = nil
            s.lastRequestTime = now
            markForFlush(s)
            answer(s)
        }
        for s in sessions { handleBufferedLines(of: s, now: now) }
    }
}
