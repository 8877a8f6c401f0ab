import CarouselEngine
import CarouselProtocol

/// Publishing (docs/PROTOCOL.md "Publishing rules"): one snapshot per change, encoded once and shared by every
/// watcher, each watcher's rate limit, and INDEX after the STATE that shows the rest.
extension DaemonCore {
    /// Whether the frame timer must run: the engine's own rule (`CarouselEngine.isMoving`: a
    /// motion runs, or velocity-mode tilt moves the content). A position-mode tilt, or a tilt
    /// pushing a carousel pinned at an end, changes nothing until the next sample arrives.
    var isMoving: Bool { engine.isMoving }

    /// Advances the engine to `now`, publishes a new snapshot if it changed, sends what is due,
    /// and INDEX for every rest on a different item.
    /// - Parameter sparing: a client left out of this round (a `watch` being answered).
    func publish(now: Int64, sparing: ClientSession? = nil) {
        engine.advance(to: seconds(now))
        lastFrame = now
        let events = engine.takeEvents()
        let state = engine.state
        let tiltEnabled = engine.tiltSettings.enabled
        publishLayoutIfChanged(sparing: sparing)
        if forceChange || changed(state: state, tiltEnabled: tiltEnabled) {
            seq += 1
            let p = Published(state: state, tilt: tilt, tiltEnabled: tiltEnabled, sensor: sensorStatus,
                              autoplay: engine.autoplayState, time: now)
            published = p
            publishedLine = nil
            forceChange = false
            // Items belong to this instant: encode them now, not when a slow client drains.
            publishedLineWithItems = currentRoster().itemWatchers > 0 ? encode(p, items: true) : nil
        }
        let current = watchers()
        for s in current where s.lastStateSeq < seq && s !== sparing {
            deliverState(to: s, now: now, force: false)
        }
        for event in events {
            if case let .cameToRest(index?, previous) = event {
                let line = ServerMessage.index(index: index, previous: previous).encodedLine()
                for s in current where s !== sparing { sendIndex(line, to: s, now: now) }
            }
        }
    }

    /// Tells every watcher the new layout when geometry, style, cyclic, count, alignment or
    /// groups changed (any client's `set_geometry`/`set_count`/`set_style`/`insert_items`/
    /// `remove_items`, a reload), before the STATE that shows it.
    private func publishLayoutIfChanged(sparing: ClientSession?) {
        let layout = LayoutMessage(engine.configuration)
        guard layout != layoutSent else { return }
        let first = layoutSent == nil
        layoutSent = layout
        guard !first else { return } // a new watcher gets it after WATCH
        let line = layout.encodedLine()
        for s in watchers() where s !== sparing { append(line, to: s) }
    }

    /// INDEX always follows the STATE that shows the rest, even inside the rate interval. While
    /// an older STATE is still unsent (or the socket is full), that STATE cannot be queued yet:
    /// the INDEX waits with it.
    private func sendIndex(_ line: [UInt8], to s: ClientSession, now: Int64) {
        guard !s.isClosed else { return }
        if s.lastStateSeq < seq || s.outbox.hasHeldLines {
            if !s.outbox.acceptsState {
                do { try s.outbox.hold(line) } catch { drop(s, error) }
                return
            }
            deliverState(to: s, now: now, force: true)
        }
        append(line, to: s)
    }

    private func changed(state: CarouselState, tiltEnabled: Bool) -> Bool {
        guard let p = published else { return true }
        if state.index != p.state.index || state.phase != p.state.phase || state.count != p.state.count
            || sensorStatus != p.sensor || tiltEnabled != p.tiltEnabled
            || engine.autoplayState != p.autoplay { return true }
        if abs(state.offset - p.state.offset) >= Self.offsetThreshold { return true }
        switch (tilt, p.tilt) {
        case (nil, nil): return false
        case let (a?, b?):
            return abs(a.rollDegrees - b.rollDegrees) >= Self.tiltThresholdDegrees
                || abs(a.pitchDegrees - b.pitchDegrees) >= Self.tiltThresholdDegrees
        default: return true
        }
    }

    /// A watcher whose queue has drained gets the newest STATE if it has not had it (a slow
    /// client receives only the newest STATE, docs/PROTOCOL.md "Publishing rules"): when its queue is empty, not after
    /// each partial write. Held INDEX lines force it: they wait for no rate interval.
    func deliverWaitingState(to s: ClientSession, now: Int64) {
        guard s.outbox.pendingCount == 0, s.watch != nil, s.lastStateSeq < seq, published != nil else { return }
        deliverState(to: s, now: now, force: s.outbox.hasHeldLines)
    }

    /// Sends the current snapshot to `s` if its rate allows (or `force`), then the INDEX lines
    /// held for it. Unless forced (a request's reply), a STATE is queued only when the outbox
    /// accepts one: a newer one stays pending (`lastStateSeq < seq`) and is sent, coalesced,
    /// when the queue drains (`deliverWaitingState`).
    func deliverState(to s: ClientSession, now: Int64, force: Bool) {
        guard published != nil, !s.isClosed else { return }
        if !force {
            guard s.outbox.acceptsState else { return }
            let interval = s.watch?.frameIntervalNanoseconds ?? frameInterval(limits.maxRateHz)
            if let last = s.lastStateTime, now - last < interval { return }
        }
        // Encoded once per snapshot, for the first client that needs it; the others only
        // reference it, and the snapshot itself is read only to encode it.
        let line: [UInt8]
        if s.watch?.items == true {
            if let cached = publishedLineWithItems { line = cached } else if let p = published {
                line = encode(p, items: true)
                publishedLineWithItems = line
            } else { return }
        } else {
            if let cached = publishedLine { line = cached } else if let p = published {
                line = encode(p, items: false)
                publishedLine = line
            } else { return }
        }
        s.lastStateSeq = seq
        s.lastStateTime = now
        do {
            try s.outbox.appendState(line)
            if s.outbox.pendingCount > 0 { markForFlush(s) }
        } catch {
            drop(s, error)
        }
    }

    private func encode(_ p: Published, items: Bool) -> [UInt8] {
        let reading = p.tilt
        let message = StateMessage(
            seq: seq, timeNanoseconds: p.time, index: p.state.index, position: p.state.position,
            offset: p.state.offset, velocity: p.state.velocity, phase: p.state.phase.rawValue, count: p.state.count,
            tilt: WireTilt(rollDeg: reading?.rollDegrees, pitchDeg: reading?.pitchDegrees, enabled: p.tiltEnabled),
            sensor: p.sensor.rawValue, autoplay: p.autoplay.rawValue)
        guard items else { return message.encodedLine() }
        // Items are computed for the engine's current time, which is the snapshot's time: a
        // snapshot is always published right after `advance(to:)`.
        let wire = engine.visibleItems().map(WireItem.init(_:))
        return message.encodedLine(itemsJSON: WireItem.encodeArray(wire))
    }

    // MARK: - Output

    func send(_ message: ServerMessage, to s: ClientSession) {
        append(message.encodedLine(), to: s)
    }

    /// Hands `line` to `s`'s outbox; a refusal drops the client. Only a connection with bytes
    /// left queued goes into the shell's flush queue (a line its writer took whole needs nothing).
    func append(_ line: [UInt8], to s: ClientSession) {
        guard !s.isClosed else { return }
        do {
            try s.outbox.append(line)
            if s.outbox.pendingCount > 0 { markForFlush(s) }
        } catch {
            drop(s, error)
        }
    }
}
