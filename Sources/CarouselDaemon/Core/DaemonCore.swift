import CarouselEngine
import CarouselProtocol
import IIOSensors
import MotionFusion

/// The daemon's decisions, free of sockets and clocks (swift-nio's "pure core, thin shell"):
/// clients, request handling, authorisation results, the STATE publishing rule of INTERFACES §2,
/// and the carousel pipeline (samples → tilt → engine). The epoll shell (`Daemon`) feeds it
/// events with the CLOCK_MONOTONIC time `now` in nanoseconds, writes `pendingOutput(for:)` to the
/// sockets, and arms its frame timer for `nextDeadline`. Tests drive it with a scripted clock.
public final class DaemonCore {
    /// Server limits and rates.
    public struct Limits: Sendable {
        /// Simultaneous connections (`[server] max_clients`).
        public var maxClients: Int
        /// Highest STATE rate per client and the frame rate while moving, Hz (`[server] max_rate_hz`).
        public var maxRateHz: Double
        /// Per-client output bound in bytes; a client over it is dropped (INTERFACES §2: 256 KiB).
        public var outputLimit: Int
        /// Read samples even with nobody watching (`[sensor] always_on`).
        public var alwaysOn: Bool
        public init(maxClients: Int = 64, maxRateHz: Double = 60, outputLimit: Int = 256 * 1024, alwaysOn: Bool = false) {
            self.maxClients = maxClients
            self.maxRateHz = maxRateHz
            self.outputLimit = outputLimit
            self.alwaysOn = alwaysOn
        }
    }

    /// Below these a change is not a change (INTERFACES §2): 0.01 point of offset, 0.1° of tilt.
    public static let offsetThreshold = 0.01
    public static let tiltThresholdDegrees = 0.1
    /// How long a connection being closed may take to send EOF before it is closed anyway, ns.
    public static let lingerNanoseconds: Int64 = 2_000_000_000
    /// The slowest STATE rate a watcher can ask for, Hz (one STATE per 1000 s).
    public static let minimumRateHz = 1e-3

    public var limits: Limits
    public private(set) var engine: CarouselEngine
    public var tiltPipeline: TiltPipeline?
    /// Answers `reload`: nil on success, else why the running configuration was kept.
    public var reloadHandler: () -> String? = { "reload is not supported" }
    /// Answers `sensors`: the JSON array of INTERFACES §6.
    public var sensorsProvider: () -> String = { "[]" }
    /// Told when a client is dropped because its unsent output passed the bound: the client,
    /// its peer credentials and why (one line, for a warning naming the fd).
    public var clientDropped: (ClientID, PeerCredentials, String) -> Void = { _, _, _ in }
    /// Writes a line straight to a connection whose queue is empty (the shell's non-blocking
    /// `send` on the connection's `handle`), so the common case, a watcher that keeps up,
    /// costs one `send` and no copy into its queue; whatever the socket does not take is queued
    /// and goes through `flush` as before. nil (tests): every line is queued.
    /// Must not call back into the core.
    public var directWrite: ((_ handle: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteResult)?
    /// `STATUS` fields the shell knows.
    public var configPath: String?
    public var calibration = WireCalibration(file: nil, applied: false)
    /// The selected sensor's IIO `name` and sysfs path (a replay: file name and path), nil while
    /// none is selected; STATUS `sensor_name`/`sensor_path`, which `carouselctl calibrate` writes
    /// into the calibration file.
    public var sensorIdentity: (name: String, path: String)?
    public var sampleRateHz: Double?

    public private(set) var sensorStatus: SensorStatus
    public private(set) var sensorName: String?
    public private(set) var sensorMessage: String?
    public private(set) var tilt: TiltReading?

    private let startNanoseconds: Int64
    private var sessions: [ClientID: ClientSession] = [:]
    private var order: [ClientID] = []
    private var lingering: [ClientID: Int64] = [:]

    /// Watchers and sample subscribers in connection order, rebuilt only when a connection
    /// joins, leaves or changes its subscription (`rosterChanged()`), not on every publish: with
    /// 256 watchers the per-publish rebuild (a dictionary lookup per client) cost more than the
    /// STATE itself.
    private var roster: Roster?
    private struct Roster {
        var watchers: [ClientSession]
        var itemWatchers: Int
        var sampleClients: [ClientSession]
    }
    /// Connections with output queued (or to be closed) since the shell last took them
    /// (`takeClientsToFlush`): the shell writes to these only, not to every connection.
    private var flushQueue: [ClientSession] = []

    private var seq: UInt64 = 0
    private var published: Published?
    private var forceChange = true
    private var lastFrame: Int64

    /// The last published snapshot and its lines, encoded once and shared by every watcher.
    private struct Published {
        var state: CarouselState
        var tilt: TiltReading?
        var tiltEnabled: Bool
        var sensor: SensorStatus
        var time: Int64
        var line: [UInt8]?
        var lineWithItems: [UInt8]?
    }

    /// - Parameters:
    ///   - engine: the carousel, whose time base is seconds since `now`.
    ///   - now: CLOCK_MONOTONIC ns at start (the engine's time 0 and `uptime_s` 0).
    public init(engine: CarouselEngine, tiltPipeline: TiltPipeline?, limits: Limits, sensorStatus: SensorStatus,
                now: Int64) {
        self.engine = engine
        self.tiltPipeline = tiltPipeline
        self.limits = limits
        self.sensorStatus = sensorStatus
        self.startNanoseconds = now
        self.lastFrame = now
    }

    // MARK: - Queries for the shell

    /// Engine time in seconds for a CLOCK_MONOTONIC time.
    public func seconds(_ now: Int64) -> Double { Double(now - startNanoseconds) * 1e-9 }

    /// Number of connected clients, not counting those being closed.
    public var clientCount: Int { sessions.values.reduce(0) { $0 + ($1.closeAfterFlush || $1.dropped ? 0 : 1) } }
    /// Number of clients watching.
    public var watcherCount: Int { sessions.values.reduce(0) { $0 + ($1.watching ? 1 : 0) } }
    /// Whether the sensor must be read: someone watches or wants samples, or `always_on`.
    public var needsSamples: Bool {
        if limits.alwaysOn { return true }
        let r = currentRoster()
        return !r.watchers.isEmpty || !r.sampleClients.isEmpty
    }

    /// Bytes waiting to be written to `id` (empty when none).
    public func pendingOutput(for id: ClientID) -> ArraySlice<UInt8> {
        guard let s = sessions[id] else { return [] }
        return s.output[s.outputStart...]
    }

    /// What one write attempt did (`flush(_:now:write:)`).
    public enum WriteResult: Equatable, Sendable {
        /// The kernel took this many bytes (≥ 1).
        case wrote(Int)
        /// The socket is full (EAGAIN): try again when it is writable.
        case wouldBlock
        /// The connection failed (EPIPE, ECONNRESET…): close it.
        case failed
    }

    /// What the shell must do with a connection after `flush(_:now:write:)`.
    public enum FlushOutcome: Equatable, Sendable {
        /// Everything queued was written: no write interest needed.
        case drained
        /// The socket is full with output left: wait for EPOLLOUT.
        case blocked
        /// Everything was written and the connection is closing: shut it down for writing
        /// (FIN after the final ERROR) and read until the peer closes.
        case drainedClosing
        /// Close the connection now (dropped, failed, or unknown).
        case close
    }

    /// Writes `id`'s queued output through `write` until it drains or `write` stops, doing what
    /// `pendingOutput`, `wrote`, `shouldClose` and `isClosing` do together with a single lookup
    /// of the connection (the shell calls this for each connection `takeClientsToFlush`
    /// returns, once per loop). A STATE held back for a slow client goes out as soon as its
    /// queue drains, within the same call; the drained queue keeps its storage for the next one.
    /// - Parameter write: one `send` of the given bytes (never empty); must not call back into the core.
    public func flush(_ id: ClientID, now: Int64, write: (UnsafeRawBufferPointer) -> WriteResult) -> FlushOutcome {
        guard let s = sessions[id], !s.dropped else { return .close }
        while s.pendingOutputCount > 0 {
            let start = s.outputStart
            let result = s.output.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            switch result {
            case let .wrote(n):
                wrote(n, to: s, blocked: false, now: now)
                if s.dropped { return .close }
            case .wouldBlock:
                wrote(0, to: s, blocked: true, now: now)
                return .blocked
            case .failed:
                return .close
            }
        }
        s.writeBlocked = false
        return s.closeAfterFlush ? .drainedClosing : .drained
    }

    /// The connections whose output or state changed since the last call (new output, dropped,
    /// closing), each once, in the order they became due; appended to `ids`.
    public func takeClientsToFlush(into ids: inout [ClientID]) {
        for s in flushQueue {
            s.queuedForFlush = false
            ids.append(s.id)
        }
        flushQueue.removeAll(keepingCapacity: true)
    }

    /// Whether `id` must be closed now (dropped, or done after a final error), without more reads.
    public func shouldClose(_ id: ClientID) -> Bool {
        guard let s = sessions[id] else { return true }
        return s.dropped
    }

    /// Whether `id` watches or streams samples (and is not being dropped or closed): such a
    /// client that shuts down its sending side (`shutdown(SHUT_WR)`, `nc -N`) after its
    /// requests is kept and served until it closes.
    public func isSubscribed(_ id: ClientID) -> Bool {
        guard let s = sessions[id], !s.dropped, !s.closeAfterFlush else { return false }
        return s.watching || s.wantsSamples
    }

    /// Whether `id`'s connection is to be shut down for writing once its output is flushed.
    public func isClosing(_ id: ClientID) -> Bool { sessions[id]?.closeAfterFlush ?? false }

    /// When the shell must call `tick(now:)` next (CLOCK_MONOTONIC ns), nil when nothing is due
    /// (an idle carousel with every watcher up to date: no wake-ups).
    public var nextDeadline: Int64? {
        var deadline: Int64?
        func consider(_ t: Int64) { deadline = min(deadline ?? t, t) }
        if isMoving { consider(lastFrame + frameInterval(limits.maxRateHz)) }
        for s in watchers() where !s.writeBlocked && !s.hasUnsentState && s.lastStateSeq < seq {
            consider((s.lastStateTime ?? Int64.min / 2) + s.frameIntervalNanoseconds)
        }
        for (_, t) in lingering { consider(t) }
        return deadline
    }

    /// Connections past their linger time, to be closed by the shell.
    public func expiredLingering(now: Int64) -> [ClientID] {
        lingering.filter { $0.value <= now }.map(\.key).sorted()
    }

    // MARK: - Connections

    /// A client connected. Sends the VERSION greeting, or `too_many_clients` and marks the
    /// connection for closing when `max_clients` are already connected.
    /// - Returns: false when the connection is refused (it still gets its ERROR line).
    @discardableResult
    /// - Parameter handle: the shell's handle for `directWrite` (its file descriptor); opaque here.
    public func clientConnected(_ id: ClientID, credentials: PeerCredentials, mayControl: Bool, now: Int64,
                                handle: Int32 = -1) -> Bool {
        let session = ClientSession(id: id, credentials: credentials, mayControl: mayControl,
                                    maxRateHz: limits.maxRateHz, handle: handle)
        session.frameIntervalNanoseconds = frameInterval(limits.maxRateHz)
        let accepted = clientCount < limits.maxClients
        sessions[id] = session
        order.append(id)
        rosterChanged()
        if accepted {
            send(.version(release: carouseldRelease), to: session)
        } else {
            send(.error(ProtocolError(.tooManyClients, "the server already has \(limits.maxClients) clients (max_clients)")),
                 to: session)
            closeAfterOutput(session, now: now)
        }
        return accepted
    }

    /// The connection is gone (EOF, error, or closed by the shell).
    public func clientDisconnected(_ id: ClientID) {
        guard let s = sessions.removeValue(forKey: id) else { return }
        s.dropped = true  // a queued flush of it finds nothing to do
        lingering[id] = nil
        if let i = order.firstIndex(of: id) { order.remove(at: i) }
        rosterChanged()
    }

    /// The shell wrote `count` bytes of `pendingOutput(for:)`; `blocked` when the kernel took
    /// no more (EAGAIN). When the queue drains, a STATE held back for this client goes out.
    public func wrote(_ count: Int, to id: ClientID, blocked: Bool, now: Int64) {
        guard let s = sessions[id] else { return }
        wrote(count, to: s, blocked: blocked, now: now)
    }

    private func wrote(_ count: Int, to s: ClientSession, blocked: Bool, now: Int64) {
        s.consume(count)
        s.writeBlocked = blocked && s.pendingOutputCount > 0
        if s.pendingOutputCount == 0, s.watching, s.lastStateSeq < seq, published != nil {
            // A slow client receives only the newest STATE when it drains (INTERFACES §2):
            // when its queue is empty, not after each partial write, which stacked a new STATE
            // on the unsent rest of the previous one (with large item STATEs, a drop). Held
            // INDEX lines force it: they wait for no rate interval.
            deliverState(to: s, now: now, force: !s.heldAfterState.isEmpty)
        }
    }

    /// Bytes read from `id`: each complete line is one request.
    public func received<C: Collection<UInt8>>(_ bytes: C, from id: ClientID, now: Int64) {
        guard let s = sessions[id], !s.dropped else { return }
        if s.closeAfterFlush { return } // discard what a closing client still sends
        s.framer.append(bytes)
        while !s.closeAfterFlush, !s.dropped {
            let line: ArraySlice<UInt8>?
            do {
                line = try s.framer.nextLine()
            } catch {
                send(.error(ProtocolError(.tooLong, "request line longer than \(error.limit) bytes; closing")), to: s)
                closeAfterOutput(s, now: now)
                return
            }
            guard let line else { break }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue } // blank lines are ignored
            handle(line: line, from: s, now: now)
        }
    }

    // MARK: - Sensor and time

    /// A batch of samples read from the sensor at `now`.
    public func samplesArrived(_ samples: [IMUSample], now: Int64) {
        guard !samples.isEmpty else { return }
        let sampleClients = currentRoster().sampleClients
        if !sampleClients.isEmpty {
            for sample in samples {
                let line = ServerMessage.sample(
                    timeNanoseconds: sample.timestampNanoseconds,
                    accel: [sample.accel.x, sample.accel.y, sample.accel.z],
                    gyro: sample.gyro.map { [$0.x, $0.y, $0.z] }).encodedLine()
                for s in sampleClients { append(line, to: s) }
            }
        }
        if let pipeline = tiltPipeline {
            var latest: TiltReading?
            for sample in samples { if let r = pipeline.process(sample) { latest = r } }
            if let latest {
                tilt = latest
                engine.tilt(rollDegrees: latest.driveDegrees, at: seconds(now))
            }
        }
        publish(now: now)
    }

    /// The shell stopped reading the sensor (nobody watches any more, or it is replaced): the
    /// last tilt is no longer current. STATE reports no tilt until the next sample, and the
    /// carousel stops following it as if the device were level (in velocity mode it settles on
    /// the nearest card): otherwise an unwatched daemon went on scrolling, and waking 60 times a
    /// second, on the roll it had when the last watcher left.
    public func sensorStopped(now: Int64) {
        guard dropTilt(now: now) else { return }
        publish(now: now)
    }

    /// Forgets the last tilt and levels the engine (the roll it follows), as if the device were
    /// level. Returns whether there was a tilt to drop. Both go together: a sensor gone absent
    /// used to clear only `tilt`, so STATE said 0° while the carousel scrolled on at the last
    /// roll, and the `sensorStopped` that followed found nothing to drop.
    @discardableResult
    private func dropTilt(now: Int64) -> Bool {
        guard tilt != nil || engine.tiltRollDegrees != 0 else { return false }
        tilt = nil
        engine.tilt(rollDegrees: 0, at: seconds(now))
        return true
    }

    /// The sensor's status changed: SENSOR to watchers, and the STATE `sensor` field follows.
    public func sensorChanged(status: SensorStatus, name: String?, message: String?, now: Int64) {
        guard status != sensorStatus || name != sensorName || message != sensorMessage else { return }
        sensorStatus = status
        sensorName = name
        sensorMessage = message
        if status != .ok && status != .replay { dropTilt(now: now) }
        let line = ServerMessage.sensor(status: status.rawValue, name: name, message: message).encodedLine()
        for s in watchers() { append(line, to: s) }
        publish(now: now)
    }

    /// The frame timer fired (or any wake-up): advance the engine and publish what is due.
    public func tick(now: Int64) {
        for id in expiredLingering(now: now) {
            guard let s = sessions[id] else { continue }
            s.dropped = true
            rosterChanged()
            markForFlush(s)
        }
        publish(now: now)
    }

    /// Replaces the engine configuration after a reload (keeps the position, see
    /// `CarouselEngine.reconfigure`).
    public func reconfigure(_ configuration: CarouselConfiguration, now: Int64) {
        engine.reconfigure(configuration, at: seconds(now))
        forceChange = true
        publish(now: now)
    }

    // MARK: - Requests

    private func handle(line: ArraySlice<UInt8>, from s: ClientSession, now: Int64) {
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
        let t = seconds(now)
        switch request {
        case let .watch(w):
            s.watching = false
            rosterChanged()
            publish(now: now)
            if !w.enable { s.heldAfterState.removeAll() }
            s.watching = w.enable
            s.wantsItems = w.items
            rosterChanged()
            // The WATCH reply states the rate in effect: capped by max_rate_hz and raised to
            // the slowest rate the frame timer honours (1e-300 was echoed though 0.001 applied).
            s.maxRateHz = max(min(w.maxRateHz ?? limits.maxRateHz, limits.maxRateHz), Self.minimumRateHz)
            s.frameIntervalNanoseconds = frameInterval(s.maxRateHz)
            send(.watch(enable: w.enable, items: w.items, maxRateHz: s.maxRateHz), to: s)
            if w.enable { deliverState(to: s, now: now, force: true) }
            return
        case .poll:
            publish(now: now)
            deliverState(to: s, now: now, force: true)
            return
        case .status:
            send(.status(release: carouseldRelease, uptimeSeconds: seconds(now), sensor: sensorStatus.rawValue,
                         sampleRateHz: sampleRateHz, clients: clientCount, watchers: watcherCount,
                         configPath: configPath, calibration: calibration,
                         sensorName: sensorIdentity?.name, sensorPath: sensorIdentity?.path), to: s)
            return
        case .sensors:
            send(.sensors(json: sensorsProvider()), to: s)
            return
        case let .samples(enable):
            s.wantsSamples = enable
            rosterChanged()
        case let .scrollTo(index, animated):
            let count = engine.state.count
            guard index < count else {
                send(.error(ProtocolError(.badField, "field 'index': \(index) is out of range 0..<\(count)", cmd: request.cmd)), to: s)
                return
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
            forceChange = true
        case let .setGeometry(g):
            if let problem = RuntimeSettingsCheck.geometry(g, current: engine.configuration) {
                send(.error(ProtocolError(.badField, problem, cmd: request.cmd)), to: s)
                return
            }
            engine.resize(viewport: CarouselSize(width: g.viewport.width, height: g.viewport.height),
                          item: CarouselSize(width: g.item.width, height: g.item.height), spacing: g.spacing,
                          axis: g.axis, direction: g.direction, at: t)
            forceChange = true
        case let .setTilt(settings):
            if let problem = RuntimeSettingsCheck.tilt(settings, current: engine.configuration) {
                send(.error(ProtocolError(.badField, problem, cmd: request.cmd)), to: s)
                return
            }
            engine.setTilt(enabled: settings.enabled, mode: settings.mode,
                           deadZoneDegrees: settings.values[.deadZone], maxDegrees: settings.values[.maxAngle],
                           maxItemsPerSecond: settings.values[.maxItemsPerSecond], at: t)
            forceChange = true
        case .recenterTilt:
            guard let pipeline = tiltPipeline, pipeline.recenter() else {
                send(.error(ProtocolError(.unavailable, "no tilt estimate yet (the sensor delivers no samples)", cmd: request.cmd)), to: s)
                return
            }
            tilt = tilt.map { _ in TiltReading(rollDegrees: 0, pitchDegrees: 0, driveDegrees: 0) }
            engine.tilt(rollDegrees: 0, at: t)
        case .reload:
            if let problem = reloadHandler() {
                send(.error(ProtocolError(.unavailable, "reload failed, keeping the running configuration: \(problem)", cmd: request.cmd)), to: s)
                return
            }
        }
        send(.ack(cmd: request.cmd), to: s)
        publish(now: now)
    }

    // MARK: - Publishing

    private var isMoving: Bool {
        switch engine.phase {
        case .idle, .dragging, .outer_scrolling: return false
        case .decelerating, .snapping, .animating, .tilting: return true
        }
    }

    private func frameInterval(_ rateHz: Double) -> Int64 {
        Int64((1e9 / max(rateHz, Self.minimumRateHz)).rounded())
    }

    private func watchers() -> [ClientSession] { currentRoster().watchers }

    private func currentRoster() -> Roster {
        if let roster { return roster }
        var watchers: [ClientSession] = [], sampleClients: [ClientSession] = []
        var itemWatchers = 0
        for id in order {
            guard let s = sessions[id], !s.dropped else { continue }
            if s.watching && !s.closeAfterFlush {
                watchers.append(s)
                if s.wantsItems { itemWatchers += 1 }
            }
            if s.wantsSamples { sampleClients.append(s) }
        }
        let r = Roster(watchers: watchers, itemWatchers: itemWatchers, sampleClients: sampleClients)
        roster = r
        return r
    }

    /// A connection joined, left, or changed `watching`, `wantsItems`, `wantsSamples`,
    /// `dropped` or `closeAfterFlush`.
    private func rosterChanged() { roster = nil }

    private func markForFlush(_ s: ClientSession) {
        guard !s.queuedForFlush else { return }
        s.queuedForFlush = true
        flushQueue.append(s)
    }

    /// Advances the engine to `now`, publishes a new snapshot if it changed, sends what is due,
    /// and INDEX for every rest on a different item.
    private func publish(now: Int64) {
        engine.advance(to: seconds(now))
        lastFrame = now
        let events = engine.takeEvents()
        let state = engine.state
        let tiltEnabled = engine.tiltSettings.enabled
        if forceChange || changed(state: state, tiltEnabled: tiltEnabled) {
            seq += 1
            published = Published(state: state, tilt: tilt, tiltEnabled: tiltEnabled, sensor: sensorStatus,
                                  time: now, line: nil, lineWithItems: nil)
            forceChange = false
            // Items belong to this instant: encode them now, not when a slow client drains.
            if var p = published, currentRoster().itemWatchers > 0 {
                p.lineWithItems = encode(p, items: true)
                published = p
            }
        }
        let current = watchers()
        for s in current where s.lastStateSeq < seq {
            deliverState(to: s, now: now, force: false)
        }
        for event in events {
            if case let .cameToRest(index?, previous) = event {
                let line = ServerMessage.index(index: index, previous: previous).encodedLine()
                for s in current where !s.dropped {
                    // INDEX always follows the STATE that shows the rest, even inside the rate
                    // interval. While an older STATE is still unsent (or the socket is full),
                    // that STATE cannot be queued yet: the INDEX waits with it.
                    if s.lastStateSeq < seq || !s.heldAfterState.isEmpty {
                        if s.hasUnsentState || s.writeBlocked {
                            hold(line, for: s)
                            continue
                        }
                        deliverState(to: s, now: now, force: true)
                    }
                    append(line, to: s)
                }
            }
        }
    }

    private func changed(state: CarouselState, tiltEnabled: Bool) -> Bool {
        guard let p = published else { return true }
        if state.index != p.state.index || state.phase != p.state.phase || state.count != p.state.count
            || sensorStatus != p.sensor || tiltEnabled != p.tiltEnabled { return true }
        if abs(state.offset - p.state.offset) >= Self.offsetThreshold { return true }
        switch (tilt, p.tilt) {
        case (nil, nil): return false
        case let (a?, b?):
            return abs(a.rollDegrees - b.rollDegrees) >= Self.tiltThresholdDegrees
                || abs(a.pitchDegrees - b.pitchDegrees) >= Self.tiltThresholdDegrees
        default: return true
        }
    }

    /// Sends the current snapshot to `s` if its rate allows (or `force`), then the INDEX lines
    /// held for it. Unless forced (a request's reply), a STATE is queued only when the client's
    /// previous STATE has gone: a newer one stays pending (`lastStateSeq < seq`) and is sent,
    /// coalesced, when the queue drains (`wrote`), so at most one STATE is ever queued.
    private func deliverState(to s: ClientSession, now: Int64, force: Bool) {
        guard published != nil, !s.dropped else { return }
        if !force, s.hasUnsentState || s.writeBlocked { return }
        if !force, let last = s.lastStateTime, now - last < s.frameIntervalNanoseconds { return }
        // Encoded once per snapshot, for the first client that needs it; the others only
        // reference it. The line is read in place: copying the whole snapshot per watcher
        // retained and released both of its lines.
        let line: [UInt8]
        if s.wantsItems {
            if let cached = published?.lineWithItems { line = cached } else if let p = published {
                line = encode(p, items: true)
                published?.lineWithItems = line
            } else { return }
        } else {
            if let cached = published?.line { line = cached } else if let p = published {
                line = encode(p, items: false)
                published?.line = line
            } else { return }
        }
        s.lastStateSeq = seq
        s.lastStateTime = now
        append(line, to: s)
        s.stateEnd = s.output.count
        guard !s.heldAfterState.isEmpty else { return }
        let held = s.heldAfterState
        s.heldAfterState = []
        for l in held { append(l, to: s) }
    }

    /// Keeps an INDEX line until the STATE it follows can be queued; it counts toward the bound.
    private func hold(_ line: [UInt8], for s: ClientSession) {
        if s.pendingOutputCount + s.heldByteCount + line.count > limits.outputLimit {
            drop(s, reason: "\(s.pendingOutputCount + s.heldByteCount) bytes unsent and INDEX lines piling up")
            return
        }
        s.heldAfterState.append(line)
    }

    private func encode(_ p: Published, items: Bool) -> [UInt8] {
        let reading = p.tilt
        let message = StateMessage(
            seq: seq, timeNanoseconds: p.time, index: p.state.index, position: p.state.position,
            offset: p.state.offset, velocity: p.state.velocity, phase: p.state.phase.rawValue, count: p.state.count,
            tilt: WireTilt(rollDeg: reading?.rollDegrees ?? 0, pitchDeg: reading?.pitchDegrees ?? 0, enabled: p.tiltEnabled),
            sensor: p.sensor.rawValue)
        guard items else { return message.encodedLine() }
        // Items are computed for the engine's current time, which is the snapshot's time: a
        // snapshot is always published right after `advance(to:)`.
        let wire = engine.visibleItems().map(WireItem.init(_:))
        return message.encodedLine(itemsJSON: WireItem.encodeArray(wire))
    }

    // MARK: - Output

    private func send(_ message: ServerMessage, to s: ClientSession) {
        append(message.encodedLine(), to: s)
    }

    private func append(_ line: [UInt8], to s: ClientSession) {
        guard !s.dropped else { return }
        // A line larger than the bound alone (a STATE with thousands of items after a dense
        // set_geometry) still goes to a client that keeps up, i.e. whose backlog is small:
        // otherwise every items watcher was silently dropped on its first STATE.
        let oversizedAllowed = line.count > limits.outputLimit && s.pendingOutputCount <= limits.outputLimit / 4
        if s.pendingOutputCount + line.count > limits.outputLimit, !oversizedAllowed {
            // A client that stops reading is disconnected once its buffer passes the bound.
            drop(s, reason: "\(s.pendingOutputCount) bytes unsent, a \(line.count)-byte line would pass")
            return
        }
        var rest = line[...]
        if s.pendingOutputCount == 0, !s.writeBlocked, let write = directWrite, !line.isEmpty {
            switch line.withUnsafeBytes({ write(s.handle, $0) }) {
            case let .wrote(n):
                if n >= line.count { return }
                rest = line[n...]
            case .wouldBlock:
                s.writeBlocked = true
            case .failed:
                // The peer is gone (EPIPE, ECONNRESET): the shell closes it on its next pass.
                discard(s)
                return
            }
        }
        s.output.append(contentsOf: rest)
        markForFlush(s)
    }

    /// Marks `s` for closing and forgets its output; the shell closes it on its next pass.
    private func discard(_ s: ClientSession) {
        s.dropped = true
        s.output = []
        s.outputStart = 0
        s.stateEnd = 0
        s.heldAfterState = []
        rosterChanged()
        markForFlush(s)
    }

    private func drop(_ s: ClientSession, reason: String) {
        discard(s)
        clientDropped(s.id, s.credentials,
                      "output backlog over the \(limits.outputLimit)-byte bound (\(reason)): the client does not read fast enough")
    }

    private func closeAfterOutput(_ s: ClientSession, now: Int64) {
        s.closeAfterFlush = true
        s.watching = false
        s.heldAfterState = []
        s.wantsSamples = false
        rosterChanged()
        markForFlush(s)
        lingering[s.id] = now + Self.lingerNanoseconds
    }
}
