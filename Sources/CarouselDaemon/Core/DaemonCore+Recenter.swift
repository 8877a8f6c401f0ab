import CarouselProtocol
import IIOSensors

/// `recenter_tilt`: the current attitude becomes neutral, and only a current one. A reading is
/// current when a sample produced it since the sensor was last started (`tilt` is cleared when
/// the sensor stops or stops delivering). Without one the request waits, and makes the shell
/// read the sensor (`needsSamples`), until the next estimate, a status that says the sensor
/// cannot deliver, or `recenterWaitNanoseconds`; the client's later requests wait with it.
extension DaemonCore {
    /// How long a `recenter_tilt` waits for a fresh estimate, ns: enough for the shell to start
    /// the sensor and for its first samples at any configurable rate.
    public static let recenterWaitNanoseconds: Int64 = 2_000_000_000

    func handleRecenter(_ request: Request, from s: ClientSession, now: Int64) {
        guard tiltPipeline != nil else {
            send(.error(ProtocolError(.unavailable, "no tilt pipeline is configured", cmd: request.cmd)), to: s)
            return
        }
        if tilt != nil {
            answerRecenter(s, now: now)
            return
        }
        if let why = whySensorCannotDeliver() {
            send(.error(ProtocolError(.unavailable, "no tilt estimate: \(why)", cmd: request.cmd)), to: s)
            return
        }
        s.pendingReply = .recenter(deadline: now + Self.recenterWaitNanoseconds)
        recenterWaiters.append(s)
    }

    /// Why no sample can come now (the sensor is read and its status is not `ok`/`replay`, or
    /// it failed), nil when one may.
    private func whySensorCannotDeliver() -> String? {
        switch sensorStatus {
        case .ok, .replay: return nil
        case .absent where !sensorRunning: return nil  // not started yet: starting it may find it
        case .absent, .stale, .error:
            return "the sensor is \(sensorStatus.rawValue)" + (sensorMessage.map { " (\($0))" } ?? "")
        }
    }

    /// Recenters on the current estimate and answers `s`.
    private func answerRecenter(_ s: ClientSession, now: Int64) {
        guard let pipeline = tiltPipeline, pipeline.recenter() else {
            send(.error(ProtocolError(.unavailable, "no tilt estimate yet", cmd: "recenter_tilt")), to: s)
            return
        }
        tilt = TiltReading(rollDegrees: 0, pitchDegrees: 0, driveDegrees: 0)
        engine.tilt(rollDegrees: 0, at: seconds(now))
        send(.ack(cmd: "recenter_tilt"), to: s)
        publish(now: now)
    }

    /// A fresh estimate arrived: every waiting `recenter_tilt` is done.
    func finishRecenterWaits(now: Int64) {
        resolveRecenterWaits(now: now) { s in answerRecenter(s, now: now) }
    }

    func refuseRecenterWaitsIfTheSensorCannotDeliver(now: Int64) {
        guard !recenterWaiters.isEmpty, let why = whySensorCannotDeliver() else { return }
        resolveRecenterWaits(now: now) { s in
            send(.error(ProtocolError(.unavailable, "no tilt estimate: \(why)", cmd: "recenter_tilt")), to: s)
        }
    }

    func expireRecenterWaits(now: Int64) {
        guard recenterWaiters.contains(where: { ($0.recenterDeadline ?? .max) <= now }) else { return }
        let waited = Double(Self.recenterWaitNanoseconds) * 1e-9
        let status = sensorStatus.rawValue + (sensorMessage.map { ": \($0)" } ?? "")
        resolveRecenterWaits(now: now, where: { ($0.recenterDeadline ?? .max) <= now }) { s in
            send(.error(ProtocolError(.unavailable,
                "no tilt estimate: the sensor delivered no sample within \(WireJSONWriter.format(waited)) s (sensor \(status))",
                cmd: "recenter_tilt")), to: s)
        }
    }

    /// Answers the waiting clients that match, then lets each go on with its later requests.
    private func resolveRecenterWaits(now: Int64, where matches: (ClientSession) -> Bool = { _ in true },
                                      _ answer: (ClientSession) -> Void) {
        let done = recenterWaiters.filter(matches)
        recenterWaiters.removeAll(where: matches)
        answerPendingReplies(of: done, now: now, answer)
    }
}
