import CarouselEngine
import CarouselProtocol
import IIOSensors
import MotionFusion

/// The daemon's decisions, free of sockets and clocks (swift-nio's "pure core, thin shell"):
/// clients and their lifecycle (`ClientLifecycle`), request handling, authorisation results,
/// the STATE publishing rule of docs/PROTOCOL.md "Publishing rules", and the carousel pipeline (samples → tilt →
/// engine). The epoll shell (`DaemonRuntime`) feeds it events with the CLOCK_MONOTONIC time
/// `now` in nanoseconds, drains each connection's `Outbox` through `flush(_:now:write:)`, and
/// arms its frame timer for `nextDeadline`. The only I/O reachable from here is the writer the
/// shell hands each connection's outbox (`clientConnected(_:credentials:mayControl:now:writer:)`).
/// Tests drive it with a scripted clock and no writers.
public final class DaemonCore {
    /// Server limits and rates.
    public struct Limits: Sendable {
        /// Simultaneous connections (`[server] max_clients`).
        public var maxClients: Int
        /// Highest STATE rate per client and the frame rate while moving, Hz (`[server] max_rate_hz`).
        public var maxRateHz: Double
        /// Per-client output bound in bytes; a client over it is dropped (docs/PROTOCOL.md "Publishing rules": 256 KiB).
        public var outputLimit: Int
        /// Read samples even with nobody watching (`[sensor] always_on`).
        public var alwaysOn: Bool
        /// Connections only peers with control rights may take (`[server] control_reserve`,
        /// already capped at half of `maxClients`; see `Admission`).
        public var controlReserve: Int
        /// Connections one uid without control rights may hold (`[server] max_clients_per_uid`).
        public var maxClientsPerUID: Int
        /// How long a connection without control rights that does not watch may go without a
        /// request before it is closed, ns (`[server] idle_timeout_s`); 0: never.
        public var idleTimeoutNanoseconds: Int64
        public init(maxClients: Int = 64, maxRateHz: Double = 60, outputLimit: Int = 256 * 1024, alwaysOn: Bool = false,
                    controlReserve: Int = 4, maxClientsPerUID: Int = 16, idleTimeoutNanoseconds: Int64 = 30_000_000_000) {
            self.maxClients = maxClients
            self.maxRateHz = maxRateHz
            self.outputLimit = outputLimit
            self.alwaysOn = alwaysOn
            self.controlReserve = controlReserve
            self.maxClientsPerUID = maxClientsPerUID
            self.idleTimeoutNanoseconds = idleTimeoutNanoseconds
        }
    }

    /// Below these a change is not a change (docs/PROTOCOL.md "Publishing rules"): 0.01 point of offset, 0.1° of tilt.
    public static let offsetThreshold = 0.01
    public static let tiltThresholdDegrees = 0.1
    /// How long a closing connection's final ERROR may wait for room in its socket (a peer that
    /// does not read) before the connection is closed anyway, ns.
    public static let lingerNanoseconds: Int64 = 2_000_000_000
    /// The slowest STATE rate a watcher can ask for, Hz (one STATE per 1000 s).
    public static let minimumRateHz = 1e-3

    public var limits: Limits
    public internal(set) var engine: CarouselEngine
    /// The sensor-to-engine path in use (the runtime always sets one; nil in a core built without
    /// one, as some tests do).
    public var tiltPipeline: TiltPipeline? {
        // A new pipeline (reload, calibration) keeps the display client's rotation.
        didSet { if let r = clientDisplayRotation { tiltPipeline?.setDisplayRotation(r) } }
    }
    /// The rotation the display client last gave (`set_display_rotation`), nil before any.
    var clientDisplayRotation: DisplayRotation?
    /// Answers `reload`: nil on success, else why the running configuration was kept.
    public var reloadHandler: () -> String? = { "reload is not supported" }
    /// The libiio context URI whose sensors `sensors` lists (`[sensor] uri`, `local:` when empty).
    public var sensorsURI = "local:"
    /// Starts listing the sensors of a URI off the loop (the shell's thread), to be reported
    /// with `sensorListingFinished(_:outcome:now:)`; returns nil, or why it could not start.
    public var startSensorListing: (SensorListingID, String) -> String? = { _, _ in "listing sensors is not supported" }
    /// Told when a client is dropped because its unsent output passed the bound: the client,
    /// its peer credentials and why (one line, for a warning naming the fd).
    public var clientDropped: (ClientID, PeerCredentials, String) -> Void = { _, _, _ in }
    /// `STATUS` fields the shell knows.
    public var configPath: String?
    public var calibration = WireCalibration(file: nil, applied: false)
    /// The selected sensor's IIO `name` and sysfs path (a replay: file name and path), nil while
    /// none is selected; STATUS `sensor_name`/`sensor_path`, which `carouselctl calibrate` writes
    /// into the calibration file.
    public var sensorIdentity: (name: String, path: String)?
    public var sampleRateHz: Double?

    public internal(set) var sensorStatus: SensorStatus
    public private(set) var sensorName: String?
    public private(set) var sensorMessage: String?
    /// The sysfs paths of the accelerometer and of its separate gyroscope device being read, as
    /// SENSOR `path` / `gyro_path` carry them; nil when none (or the source has no devices).
    public private(set) var sensorPath: String?
    public private(set) var sensorGyroPath: String?
    /// The estimator the tilt pipeline uses in place of the configured one (accelerometer-only
    /// samples under a gyro method), nil while it uses the configured one: SENSOR and STATUS
    /// `estimator`, and a sentence in SENSOR's `message`.
    public private(set) var estimatorSubstitution: WireEstimator?
    /// Told when `estimatorSubstitution` changes (the shell logs it once).
    public var estimatorChanged: (WireEstimator?) -> Void = { _ in }
    public internal(set) var tilt: TiltReading?
    /// Which way up the device is held, as last told to watchers (`undefined` without an estimate).
    public internal(set) var orientation: DeviceOrientation = .undefined

    let startNanoseconds: Int64
    /// The shell reads the sensor (between `sensorStarted` and `sensorStopped`).
    var sensorRunning = false
    /// Clients whose `recenter_tilt` waits for a fresh estimate, oldest first.
    var recenterWaiters: [ClientSession] = []
    /// `sensors` requests and the listings that answer them.
    var sensorListings = SensorListings()
    /// Settings clients changed at runtime, kept across reloads.
    var overrides = RuntimeOverrides()
    var sessions: [ClientID: ClientSession] = [:]
    private var order: [ClientID] = []
    /// Closing connections and when they are closed anyway, CLOCK_MONOTONIC ns.
    private var lingering: [ClientID: Int64] = [:]

    /// Watchers and sample subscribers in connection order, rebuilt only when a connection
    /// joins, leaves or changes its subscription (`rosterChanged()`), not on every publish: with
    /// 256 watchers the per-publish rebuild (a dictionary lookup per client) cost more than the
    /// STATE itself.
    private var roster: Roster?
    struct Roster {
        var watchers: [ClientSession]
        var itemWatchers: Int
        var sampleClients: [ClientSession]
        /// Open connections that neither watch nor stream samples (`DaemonCore+Idle` times out
        /// those without control rights).
        var unsubscribed: [ClientSession]
    }
    /// Connections with output queued (or to be closed) since the shell last took them
    /// (`takeClientsToFlush`): the shell writes to these only, not to every connection.
    private var flushQueue: [ClientSession] = []

    var seq: UInt64 = 0
    /// The layout the watchers were last told (`LAYOUT`, protocol 1.1), nil before the first
    /// publish.
    var layoutSent: LayoutMessage?
    var published: Published?
    /// `published`'s STATE line without and with items, encoded once for the first watcher
    /// that needs it and shared by every other (nil until then). Kept beside the snapshot, not
    /// in it: read from inside the optional snapshot, a line costs a copy of the whole snapshot
    /// per watcher once the snapshot is more than a few words (PERFORMANCE.md D8: 19.8 M
    /// instructions).
    var publishedLine: [UInt8]?
    var publishedLineWithItems: [UInt8]?
    var forceChange = true
    var lastFrame: Int64

    /// The last published snapshot; its lines are `publishedLine` and `publishedLineWithItems`.
    struct Published {
        var state: CarouselState
        var tilt: TiltReading?
        var tiltEnabled: Bool
        var sensor: SensorStatus
        var autoplay: AutoplayState
        var time: Int64
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
    public var clientCount: Int { sessions.values.reduce(0) { $0 + ($1.isOpen ? 1 : 0) } }
    /// Number of clients watching.
    public var watcherCount: Int { sessions.values.reduce(0) { $0 + ($1.watch != nil ? 1 : 0) } }
    /// Whether the sensor must be read: someone watches or wants samples, a `recenter_tilt`
    /// waits for a fresh estimate, or `always_on`.
    public var needsSamples: Bool {
        if limits.alwaysOn || !recenterWaiters.isEmpty { return true }
        let r = currentRoster()
        return !r.watchers.isEmpty || !r.sampleClients.isEmpty
    }

    /// Bytes waiting to be written to `id` (empty when none).
    public func pendingOutput(for id: ClientID) -> ArraySlice<UInt8> {
        sessions[id]?.outbox.pending ?? []
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
        /// Close the connection now: dropped, failed, unknown, or closing with its final ERROR
        /// written (on a Unix socket the peer reads what was written before the close, even
        /// with its own unread input discarded, so nothing more is read from it).
        case close
    }

    /// Writes `id`'s outbox through `write` until it drains or `write` stops, with a single
    /// lookup of the connection (the shell calls this for each connection `takeClientsToFlush`
    /// returns, once per loop, and on EPOLLOUT). A STATE held back for a slow client goes out as
    /// soon as its queue drains, within the same call; the drained queue keeps its storage.
    /// - Parameter write: one `send` of the given bytes (never empty); must not call back into the core.
    public func flush(_ id: ClientID, now: Int64, write: (UnsafeRawBufferPointer) -> WriteResult) -> FlushOutcome {
        guard let s = sessions[id], !s.isClosed else { return .close }
        while true {
            switch s.outbox.drain(through: write) {
            case .failed: return .close
            case .blocked: return .blocked
            case .drained:
                deliverWaitingState(to: s, now: now)
                if s.isClosed { return .close }
                if s.outbox.pendingCount == 0 {
                    guard s.isClosing else { return .drained }
                    finishClosing(s)
                    return .close
                }
            }
        }
    }

    /// The connections whose output or state changed since the last call (new output, dropped,
    /// closing, a `recenter_tilt` wait over so its input is read again), each once, in the
    /// order they became due; appended to `ids`.
    public func takeClientsToFlush(into ids: inout [ClientID]) {
        for s in flushQueue {
            s.queuedForFlush = false
            ids.append(s.id)
        }
        flushQueue.removeAll(keepingCapacity: true)
    }

    /// Whether `id` must be closed now (dropped, or done after a final error), without more reads.
    public func shouldClose(_ id: ClientID) -> Bool {
        sessions[id]?.isClosed ?? true
    }

    /// Whether `id` watches or streams samples (and is not being dropped or closed): such a
    /// client that shuts down its sending side (`shutdown(SHUT_WR)`, `nc -N`) after its
    /// requests is kept and served until it closes.
    public func isSubscribed(_ id: ClientID) -> Bool {
        guard let s = sessions[id] else { return false }
        return s.subscription != .none
    }

    /// Whether the shell should read more of `id`'s input now: false while a request of it is
    /// answered later (a `recenter_tilt` waiting for a fresh estimate, a `sensors` waiting for
    /// its listing). Its later requests wait with it, so what it sends in the meantime (up to
    /// 3 s of it) would otherwise pile up unread in its framer without bound; the shell stops
    /// reading instead, and the peer's writes block once its socket is full. When the wait ends
    /// the connection is put in the flush queue (`takeClientsToFlush`), where the shell asks again.
    public func acceptsInput(from id: ClientID) -> Bool {
        sessions[id]?.pendingReply == nil
    }

    /// Whether `id`'s connection is to be shut down for writing once its output is flushed.
    public func isClosing(_ id: ClientID) -> Bool { sessions[id]?.isClosing ?? false }

    /// When the shell must call `tick(now:)` next (CLOCK_MONOTONIC ns), nil when nothing is due
    /// (an idle carousel with every watcher up to date: no wake-ups; with autoplay running, one
    /// wake-up at each step's deadline).
    public var nextDeadline: Int64? {
        var deadline: Int64?
        func consider(_ t: Int64) { deadline = min(deadline ?? t, t) }
        if isMoving { consider(lastFrame + frameInterval(limits.maxRateHz)) }
        if let t = autoplayDeadline { consider(t) }
        for s in watchers() where s.outbox.acceptsState && s.lastStateSeq < seq {
            guard let watch = s.watch else { continue }
            consider((s.lastStateTime ?? Int64.min / 2) + watch.frameIntervalNanoseconds)
        }
        for (_, t) in lingering { consider(t) }
        for s in recenterWaiters { if let t = s.recenterDeadline { consider(t) } }
        if let t = sensorListings.nextDeadline { consider(t) }
        if let t = nextIdleDeadline { consider(t) }
        return deadline
    }

    /// Connections past their linger time, to be closed by the shell.
    public func expiredLingering(now: Int64) -> [ClientID] {
        lingering.filter { $0.value <= now }.map(\.key).sorted()
    }

    // MARK: - Connections

    /// A client connected. Sends the VERSION greeting, or `too_many_clients` and marks the
    /// connection for closing when `Admission` refuses it (`max_clients`, `control_reserve`,
    /// `max_clients_per_uid`).
    /// - Parameter writer: the connection's non-blocking `send` (the shell's socket I/O), used by
    ///   its outbox to write a line for an empty queue at once; nil queues every line for
    ///   `flush(_:now:write:)`. It must not call back into the core.
    /// - Returns: false when the connection is refused (it still gets its ERROR line).
    @discardableResult
    public func clientConnected(_ id: ClientID, credentials: PeerCredentials, mayControl: Bool, now: Int64,
                                writer: ((UnsafeRawBufferPointer) -> WriteResult)? = nil) -> Bool {
        let refusal = admissionRefusal(credentials: credentials, mayControl: mayControl)
        let session = ClientSession(id: id, credentials: credentials, mayControl: mayControl,
                                    outbox: Outbox(limit: limits.outputLimit, writer: writer), now: now)
        sessions[id] = session
        order.append(id)
        rosterChanged()
        if let refusal {
            send(.error(ProtocolError(.tooManyClients, refusal)), to: session)
            closeAfterOutput(session, now: now)
        } else {
            send(.version(release: carouseldRelease), to: session)
        }
        return refusal == nil
    }

    /// The connection is gone (EOF, error, or closed by the shell).
    public func clientDisconnected(_ id: ClientID) {
        guard let s = sessions.removeValue(forKey: id) else { return }
        s.lifecycle = .closed  // a queued flush of it finds nothing to do
        lingering[id] = nil
        recenterWaiters.removeAll { $0 === s }
        sensorListings.forget(id)
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
        s.outbox.consume(count, blocked: blocked)
        deliverWaitingState(to: s, now: now)
    }

    /// Bytes read from `id`: each complete line is one request.
    public func received<C: Collection<UInt8>>(_ bytes: C, from id: ClientID, now: Int64) {
        // What a closing or dropped client still sends is discarded.
        guard let s = sessions[id], s.isOpen else { return }
        s.framer.append(bytes)
        handleBufferedLines(of: s, now: now)
    }

    /// Answers the complete lines `s` has sent, in order, until none is left or one must be
    /// answered later (`PendingReply`: the lines after it wait with it, so replies keep the
    /// order of the requests).
    func handleBufferedLines(of s: ClientSession, now: Int64) {
        while s.isOpen, s.pendingReply == nil {
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
            s.lastRequestTime = now
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
            if !samples.isEmpty, pipeline.estimatorSubstitution != estimatorSubstitution {
                substitutionChanged(to: pipeline.estimatorSubstitution)
            }
            if let latest {
                tilt = latest
                orientationChanged(to: latest.orientation)
                engine.tilt(rollDegrees: latest.driveDegrees, at: seconds(now))
                if !recenterWaiters.isEmpty { finishRecenterWaits(now: now) }
            }
        }
        publish(now: now)
    }

    /// The shell started reading the sensor: from now on a status other than `ok`/`replay`
    /// means it cannot deliver, and a waiting `recenter_tilt` is refused at once.
    public func sensorStarted(now: Int64) {
        sensorRunning = true
        refuseRecenterWaitsIfTheSensorCannotDeliver(now: now)
    }

    /// The shell stopped reading the sensor (nobody watches any more, or it is replaced): the
    /// last tilt is no longer current. STATE reports no tilt until the next sample, and the
    /// carousel stops following it as if the device were level (in velocity mode it settles on
    /// the nearest card), so an unwatched daemon neither scrolls on the roll it had when the last
    /// watcher left nor wakes for it. The orientation is `undefined` until the next sample, and
    /// the pipeline detects it afresh then (the device may have been turned meanwhile).
    public func sensorStopped(now: Int64) {
        sensorRunning = false
        tiltPipeline?.sensorStopped()
        guard dropTilt(now: now) else { return }
        publish(now: now)
    }

    /// Forgets the last tilt and levels the engine (the roll it follows), as if the device were
    /// level. Returns whether there was a tilt to drop. Both go together, so STATE never shows
    /// no tilt while the carousel still follows the last roll.
    @discardableResult
    private func dropTilt(now: Int64) -> Bool {
        orientationChanged(to: .undefined)
        guard tilt != nil || engine.tiltRollDegrees != 0 else { return false }
        tilt = nil
        engine.tilt(rollDegrees: 0, at: seconds(now))
        return true
    }

    /// The sensor's status, or the device(s) being read, changed: SENSOR to watchers, and the
    /// STATE `sensor` field follows. `path`/`gyroPath`: the sysfs paths of the accelerometer and
    /// its separate gyroscope device being read, so a move to another device with the same name
    /// and status (a convertible's display hub plugged back) is a change too.
    public func sensorChanged(status: SensorStatus, name: String?, message: String?, path: String? = nil,
                              gyroPath: String? = nil, now: Int64) {
        guard status != sensorStatus || name != sensorName || message != sensorMessage || path != sensorPath
            || gyroPath != sensorGyroPath else { return }
        sensorStatus = status
        sensorName = name
        sensorMessage = message
        sensorPath = path
        sensorGyroPath = gyroPath
        if status != .ok && status != .replay { dropTilt(now: now) }
        refuseRecenterWaitsIfTheSensorCannotDeliver(now: now)
        let line = sensorLine()
        for s in watchers() { append(line, to: s) }
        publish(now: now)
    }

    /// SENSOR as it stands: the source's status and message, and the estimator substitution
    /// (its sentence after the source's message).
    func sensorLine() -> [UInt8] {
        let parts = [sensorMessage, estimatorSubstitution?.sentence].compactMap { $0 }
        return ServerMessage.sensor(status: sensorStatus.rawValue, name: sensorName,
                                    message: parts.isEmpty ? nil : parts.joined(separator: "; "),
                                    path: sensorPath, gyroPath: sensorGyroPath,
                                    estimator: estimatorSubstitution).encodedLine()
    }

    /// The pipeline started or stopped using another estimator than the configured one: watchers
    /// get SENSOR saying so, and the shell logs it.
    private func substitutionChanged(to new: WireEstimator?) {
        estimatorSubstitution = new
        estimatorChanged(new)
        let line = sensorLine()
        for s in watchers() { append(line, to: s) }
    }

    /// Tells the watchers that asked for it (`watch` `orientation`) when the orientation changes.
    func orientationChanged(to new: DeviceOrientation) {
        guard new != orientation else { return }
        orientation = new
        let line = ServerMessage.orientation(new.rawValue).encodedLine()
        for s in watchers() where s.watch?.orientation == true { append(line, to: s) }
    }

    /// The frame timer fired (or any wake-up): advance the engine and publish what is due.
    public func tick(now: Int64) {
        for id in expiredLingering(now: now) {
            guard let s = sessions[id] else { continue }
            s.lifecycle = .closed
            rosterChanged()
            markForFlush(s)
        }
        expireIdleClients(now: now)
        expireRecenterWaits(now: now)
        expireSensorListings(now: now)
        publish(now: now)
    }

    /// Replaces the engine configuration after a reload (keeps the position, see
    /// `CarouselEngine.reconfigure`). What clients set at runtime stays (`RuntimeOverrides`):
    /// the file's values apply to every setting no client has changed.
    public func reconfigure(_ configuration: CarouselConfiguration, now: Int64) {
        engine.reconfigure(overrides.applied(to: configuration), at: seconds(now))
        forceChange = true
        publish(now: now)
    }

    // MARK: - Roster and flush queue

    func frameInterval(_ rateHz: Double) -> Int64 {
        Int64((1e9 / max(rateHz, Self.minimumRateHz)).rounded())
    }

    func watchers() -> [ClientSession] { currentRoster().watchers }

    func currentRoster() -> Roster {
        if let roster { return roster }
        var watchers: [ClientSession] = [], sampleClients: [ClientSession] = [], unsubscribed: [ClientSession] = []
        var itemWatchers = 0
        for id in order {
            guard let s = sessions[id], case let .open(subscription) = s.lifecycle else { continue }
            if let watch = subscription.watch {
                watchers.append(s)
                if watch.items { itemWatchers += 1 }
            }
            if subscription.samples { sampleClients.append(s) }
            if subscription == .none { unsubscribed.append(s) }
        }
        let r = Roster(watchers: watchers, itemWatchers: itemWatchers, sampleClients: sampleClients,
                       unsubscribed: unsubscribed)
        roster = r
        return r
    }

    /// A connection joined, left, or changed its lifecycle or subscription.
    func rosterChanged() { roster = nil }

    func markForFlush(_ s: ClientSession) {
        guard !s.queuedForFlush else { return }
        s.queuedForFlush = true
        flushQueue.append(s)
    }

    // MARK: - Lifecycle transitions

    /// Closes `s` at once and forgets its output; the shell closes it on its next pass.
    func discard(_ s: ClientSession) {
        s.lifecycle = .closed
        s.outbox.discard()
        rosterChanged()
        markForFlush(s)
    }

    /// Drops `s` because its outbox refused a line: over the bound (reported), or the peer gone.
    func drop(_ s: ClientSession, _ refusal: Outbox.Refusal) {
        discard(s)
        guard case let .overBound(reason) = refusal else { return }
        clientDropped(s.id, s.credentials,
                      "output backlog over the \(limits.outputLimit)-byte bound (\(reason)): the client does not read fast enough")
    }

    /// Closes `s`, whose final line has been written.
    func finishClosing(_ s: ClientSession) {
        s.lifecycle = .closed
        lingering[s.id] = nil
        rosterChanged()
    }

    /// Moves `s` to `closing` once its final line is queued.
    func closeAfterOutput(_ s: ClientSession, now: Int64) {
        s.lifecycle = .closing
        s.outbox.dropHeld()
        rosterChanged()
        markForFlush(s)
        lingering[s.id] = now + Self.lingerNanoseconds
    }
}
