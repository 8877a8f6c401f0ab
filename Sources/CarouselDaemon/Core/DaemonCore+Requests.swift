import CarouselEngine
import CarouselProtocol
import MotionFusion

/// Request handling: one line from a client, decoded, authorised and answered (docs/PROTOCOL.md "Requests").
extension DaemonCore {
    func handle(line: ArraySlice<UInt8>, from s: ClientSession, now: Int64) {
        let request: Request
        do {
            request = try RequestDecoder.decode(line: line)
        } catch {
            send(.error(error), to: s)
            return
        }
        if request.requiresControl && !s.mayControl {
            send(.error(ProtocolError(.notAllowed,
                "'\(request.cmd)' needs control rights (uid 0, the daemon's user or control_group); uid \(s.credentials.uid) has none",
                cmd: request.cmd)), to: s)
            return
        }
        switch request {
        case let .watch(w):
            handleWatch(w, from: s, now: now)
        case .poll:
            publish(now: now)
            deliverState(to: s, now: now, force: true)
        case .status:
            send(statusMessage(now: now), to: s)
        case .sensors:
            handleSensors(from: s, now: now)
        case let .samples(enable):
            setSubscription(of: s) { $0.samples = enable }
            acknowledge(request, to: s, now: now)
        case .recenterTilt:
            handleRecenter(request, from: s, now: now)
        default:
            if let problem = apply(control: request, now: now) {
                send(.error(problem), to: s)
            } else {
                acknowledge(request, to: s, now: now)
            }
        }
    }

    /// `watch`: the WATCH reply with the settings in effect, then (when enabled) the LAYOUT, one
    /// STATE, the current ORIENTATION (when asked for) and the current SENSOR at once. The snapshot is brought up to date for the other
    /// watchers first, without this client, so nothing reaches it between its request and its
    /// WATCH. SENSOR goes out only on a change, so a watcher that arrives later would otherwise
    /// never learn the status's name and message (why tilt does nothing: docs/PROTOCOL.md).
    private func handleWatch(_ w: WatchRequest, from s: ClientSession, now: Int64) {
        // The rate in effect: capped by max_rate_hz and raised to the slowest rate the frame
        // timer honours.
        let rate = max(min(w.maxRateHz ?? limits.maxRateHz, limits.maxRateHz), Self.minimumRateHz)
        publish(now: now, sparing: s)
        if !w.enable { s.outbox.dropHeld() }
        setSubscription(of: s) {
            $0.watch = w.enable
                ? WatchSettings(items: w.items, maxRateHz: rate, frameIntervalNanoseconds: frameInterval(rate),
                                orientation: w.orientation) : nil
        }
        send(.watch(enable: w.enable, items: w.items, maxRateHz: rate, orientation: w.enable && w.orientation), to: s)
        if w.enable {
            append(LayoutMessage(engine.configuration).encodedLine(), to: s)
            deliverState(to: s, now: now, force: true)
            if w.orientation { send(.orientation(orientation.rawValue), to: s) }
            append(sensorLine(), to: s)
        }
    }

    private func statusMessage(now: Int64) -> ServerMessage {
        .status(release: carouseldRelease, uptimeSeconds: seconds(now), sensor: sensorStatus.rawValue,
                sampleRateHz: sampleRateHz, clients: clientCount, watchers: watcherCount,
                configPath: configPath, calibration: calibration,
                sensorName: sensorIdentity?.name, sensorPath: sensorIdentity?.path,
                orientation: orientation.rawValue, estimator: estimatorSubstitution)
    }

    /// Changes what an open client subscribed to (nothing for a closing or closed one).
    func setSubscription(of s: ClientSession, _ change: (inout Subscription) -> Void) {
        guard case var .open(subscription) = s.lifecycle else { return }
        change(&subscription)
        s.lifecycle = .open(subscription)
        rosterChanged()
    }

    private func acknowledge(_ request: Request, to s: ClientSession, now: Int64) {
        send(.ack(cmd: request.cmd), to: s)
        publish(now: now)
    }

    /// Applies a control command to the engine, the tilt pipeline or the configuration.
    /// - Returns: the ERROR to answer with, or nil for an ACK.
    private func apply(control request: Request, now: Int64) -> ProtocolError? {
        let t = seconds(now)
        switch request {
        case let .scrollTo(index, animated):
            let count = engine.state.count
            guard index < count else {
                // Closed ranges, as remove_items words them: owners read these on MQTT's error topic.
                let problem = count == 0 ? "the carousel has no items, got \(index)" : "\(index) is out of range 0…\(count - 1)"
                return ProtocolError(.badField, "field 'index': \(problem)", cmd: request.cmd)
            }
            engine.scrollTo(index: index, animated: animated, at: t)
        case let .drag(phase, location, velocity):
            switch phase {
            case .began: engine.dragBegan(location: location, at: t)
            case .moved: engine.dragMoved(location: location, at: t)
            case .ended: engine.dragEnded(location: location, velocity: velocity, at: t)
            }
        case let .tap(location, cross):
            engine.tap(location: location, cross: cross, at: t)
        case let .outerScroll(y):
            engine.outerScroll(y: y, at: t)
        case let .outerScrollEnded(y):
            if let y { engine.outerScroll(y: y, at: t) }
            engine.outerScrollEnded(at: t)
        case let .setCount(count):
            engine.setCount(count, at: t)
            overrides.count = count
            forceChange = true
        case let .setGeometry(g):
            if let problem = RuntimeSettingsCheck.geometry(g, current: engine.configuration) {
                return ProtocolError(.badField, problem, cmd: request.cmd)
            }
            engine.resize(viewport: CarouselSize(width: g.viewport.width, height: g.viewport.height),
                          item: CarouselSize(width: g.item.width, height: g.item.height),
                          spacing: g.spacing ?? engine.configuration.geometry.spacing,
                          axis: g.axis, direction: g.direction, at: t)
            overrides.record(g)
            forceChange = true
        case let .setTilt(settings):
            if let problem = RuntimeSettingsCheck.tilt(settings, current: engine.configuration) {
                return ProtocolError(.badField, problem, cmd: request.cmd)
            }
            engine.setTilt(enabled: settings.enabled, mode: settings.mode,
                           deadZoneDegrees: settings.values[.deadZone], maxDegrees: settings.values[.maxAngle],
                           maxItemsPerSecond: settings.values[.maxItemsPerSecond], at: t)
            overrides.record(settings)
            forceChange = true
        case .reload:
            if let problem = reloadHandler() {
                return ProtocolError(.unavailable, "reload failed, keeping the running configuration: \(problem)",
                                     cmd: request.cmd)
            }
        case let .setDisplayRotation(degrees):
            guard let rotation = DisplayRotation(rawValue: degrees) else {
                return ProtocolError(.badField, "field 'degrees': expected one of 0, 90, 180, 270", cmd: request.cmd)
            }
            clientDisplayRotation = rotation
            tiltPipeline?.setDisplayRotation(rotation)
        case .setAutoplay, .insertItems, .removeItems, .setStyle:
            return applyFeature(request, now: now)
        case .watch, .poll, .status, .sensors, .samples, .recenterTilt:
            break  // answered by `handle(line:from:now:)`
        }
        return nil
    }
}
