import CarouselPosix
import CarouselConfig
import CarouselService
import CarouselEngine
import CarouselProtocol
import CLinux
import IIOSensors
import MotionFusion
#if canImport(Glibc)
import Glibc
#endif

/// The thin epoll shell around `DaemonCore`: it owns every descriptor (listening socket,
/// clients, sensor, frame timerfd, watchdog timerfd, signalfd), turns readiness into core events
/// with the CLOCK_MONOTONIC time, writes the core's output, and sleeps in `epoll_wait` with no
/// timeout when nothing is due (the watchdog ping is the only periodic wake-up when idle).
final class DaemonRuntime {
    private enum Token {
        static let listener: UInt64 = 1
        static let signals: UInt64 = 2
        static let frameTimer: UInt64 = 3
        static let watchdog: UInt64 = 4
        static let sensor: UInt64 = 5
        static let acceptRetry: UInt64 = 6
        static let sensorProxyBus: UInt64 = 7
        static let sensorProxyTimer: UInt64 = 8
        static let sensorListing: UInt64 = 9
        static let clientBase: UInt64 = 1 << 32
    }

    private let options: DaemonOptions
    private var configuration: DaemonConfiguration
    private let log: Logger
    /// The sensor's lines, identical ones limited to one per 10 s (a broken sensor is retried
    /// on every wake-up: `RepeatedLogLimiter`).
    private let sensorLog: LogSink
    private let epoll: Epoll
    private let core: DaemonCore
    private var policy: ControlPolicy

    /// The listening socket, once open.
    private var listener: FileDescriptor?
    /// The socket file we bound (removed at exit if it is still ours); nil when systemd passed
    /// the socket.
    private var ownedSocket: BoundSocketFile?
    private var signalFD: Int32 = -1
    private var frameTimerFD: Int32 = -1
    private var armedDeadline: Int64?
    private var watchdogFD: Int32 = -1
    /// One-shot timer that puts the listener back after `accept` ran out of descriptors.
    private var acceptRetryFD: Int32 = -1
    /// The listener is out of the epoll set: `accept` failed for lack of descriptors or memory
    /// (EMFILE, ENFILE, ENOBUFS, ENOMEM). It stays readable with connections waiting, so
    /// retrying at once would spin the loop and log a warning per attempt until a descriptor
    /// comes free. It comes back when a client closes or after `acceptRetryNanoseconds`.
    private var acceptPaused = false
    /// The out-of-descriptors warning was logged and no `accept` has succeeded since.
    private var acceptStarvationLogged = false
    private static let acceptRetryNanoseconds: Int64 = 100_000_000

    /// The `sensors` request's listings, each on a thread of its own.
    private let sensorListing: SensorListingRunner

    /// `net.hadess.SensorProxy` on the system bus, while `[server] sensor_proxy` is on.
    private var sensorProxy: SensorProxyService?

    private var source: SensorSource
    private var sourceStarted = false
    private var registeredSensorFD: Int32?
    private var sampleBuffer: [IMUSample] = []
    /// The last calibration file that parsed (kept when a reload finds a malformed one).
    private var calibrationFile: CalibrationFile?
    /// What the pipeline currently applies, and the sensor it was checked against.
    private var appliedCalibration = Calibration.identity
    private var calibrationCheckedFor: CalibrationLoader.SensorIdentity?

    /// One accepted connection: its descriptor and what the shell did to it, found with one
    /// lookup per flush.
    private final class Connection {
        let fd: FileDescriptor
        /// EPOLLOUT is in its epoll interest (output is waiting for room in the socket).
        var writeInterest = false
        /// No more reads, only writes, until the peer closes (EPOLLHUP) or a send fails: the
        /// peer shut down its sending side while watching (EOF would be reported forever), or
        /// the connection is closing and its final ERROR waits for room in the socket.
        var readClosed = false
        /// Not read for now: its requests wait behind a `recenter_tilt` (`DaemonCore.acceptsInput`),
        /// so what it sends stays in its socket, whose full buffer blocks the peer's writes,
        /// instead of piling up in the daemon's memory. Read again once the wait is over.
        var inputPaused = false
        init(fd: FileDescriptor) { self.fd = fd }
    }

    private var clients: [ClientID: Connection] = [:]
    /// `SO_SNDBUF` of every client socket, bytes (the kernel doubles it for its bookkeeping).
    static let clientSendBufferBytes: Int32 = 16 * 1024
    /// Reused by `flushClients` (no allocation per loop).
    private var flushIDs: [ClientID] = []
    private var nextClient = 1
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    private var running = true

    init(options: DaemonOptions) throws(SystemError) {
        self.options = options
        self.configuration = options.configuration
        self.log = options.logger
        self.sensorLog = options.logger.limited(by: RepeatedLogLimiter())
        self.epoll = try Epoll()
        self.sensorListing = try SensorListingRunner()
        let now = clinux_monotonic_ns()
        let c = options.configuration
        let engine = CarouselEngine(configuration: EngineSetup.carouselConfiguration(c), time: 0)
        self.source = SensorFactory.make(c.sensor, log: sensorLog)
        self.core = DaemonCore(
            engine: engine,
            tiltPipeline: DaemonRuntime.makePipeline(c),
            limits: DaemonRuntime.limits(c), sensorStatus: source.status, now: now)
        self.policy = ControlPolicy(daemonUID: UInt32(geteuid()),
                                    controlGID: c.server.controlGroup.isEmpty ? nil : UnixListener.groupID(c.server.controlGroup))
        core.configPath = options.configurationPath.map(ConfigurationFile.absolute)
        core.sensorsURI = Self.sensorsURI(c)
        core.startSensorListing = { [unowned self] id, uri in self.sensorListing.start(id, uri: uri) }
        core.reloadHandler = { [unowned self] in self.reload() }
        core.clientDropped = { [unowned self] id, peer, why in
            let fd = self.clients[id].map { String($0.fd.rawValue) } ?? "?"
            self.log.warning("\(id) (fd \(fd), pid \(peer.pid), uid \(peer.uid)) dropped: \(why)")
        }
        core.estimatorChanged = { [unowned self] substitution in
            if let substitution {
                self.log.notice(substitution.sentence)
            } else {
                self.log.info("[filter] method \(self.configuration.filter.method.rawValue) in use again")
            }
        }
        core.sensorChanged(status: source.status, name: source.name, message: source.statusMessage, now: now)
        loadCalibration()
    }

    static func limits(_ c: DaemonConfiguration) -> DaemonCore.Limits {
        DaemonCore.Limits(maxClients: c.server.maxClients, maxRateHz: c.server.maxRateHz, alwaysOn: c.sensor.alwaysOn,
                          controlReserve: c.server.effectiveControlReserve, maxClientsPerUID: c.server.maxClientsPerUID,
                          idleTimeoutNanoseconds: Int64((c.server.idleTimeoutSeconds * 1e9).rounded()))
    }

    /// `Calibration.apply` → estimator → mapper with the calibration's neutral attitude.
    static func makePipeline(_ c: DaemonConfiguration, calibration: Calibration = .identity) -> TiltPipeline {
        MotionTiltPipeline(calibration: calibration, estimator: EngineSetup.estimatorConfiguration(c),
                           mapper: EngineSetup.tiltMapper(c, calibration: calibration),
                           orientation: c.tilt.orientation, followsDisplay: c.tilt.displayRotation == nil)
    }

    // MARK: - Calibration

    /// Reads `[calibration] file` (start, reload): missing → none, quietly; malformed → warning,
    /// the previous calibration stays. Then applies what fits the current sensor.
    /// - Parameter rebuildPipeline: the pipeline's settings changed (`[filter]`, `[tilt]`, the
    ///   carousel axis, the sensor): a new pipeline even if the calibration is the same.
    private func loadCalibration(rebuildPipeline: Bool = false) {
        let path = configuration.calibration.file
        switch CalibrationLoader.read(path: path) {
        case .missing:
            if calibrationFile != nil { log.notice("calibration \(path) is gone: no calibration applied") }
            calibrationFile = nil
        case let .loaded(file):
            calibrationFile = file
        case let .failed(message):
            log.warning(calibrationFile == nil ? "calibration not loaded, none applied: \(message)"
                                               : "calibration not loaded, keeping the previous one: \(message)")
        }
        calibrationCheckedFor = nil
        applyCalibration(force: true, rebuildPipeline: rebuildPipeline)
    }

    /// Puts the calibration that belongs to the current sensor into the pipeline (a new pipeline
    /// only when the correction or the pipeline's settings change, so the estimator keeps its
    /// state, and `recenter_tilt` its neutral, otherwise: a reload that changes, say,
    /// `max_clients` keeps a recenter).
    private func applyCalibration(force: Bool = false, rebuildPipeline: Bool = false) {
        let identity = SensorFactory.identity(of: source, settings: configuration.sensor)
        guard force || identity != calibrationCheckedFor else { return }
        calibrationCheckedFor = identity
        let outcome = CalibrationLoader.effective(file: calibrationFile, sensor: identity)
        if outcome.mismatch, let file = calibrationFile, let identity {
            log.warning("calibration \(configuration.calibration.file) was made for sensor \(file.sensorName)"
                        + "\(file.sensorPath.isEmpty ? "" : " (\(file.sensorPath))"), not \(identity.name) (\(identity.path)): ignored")
        }
        let path = configuration.calibration.file
        core.calibration = WireCalibration(file: path.isEmpty ? nil : path, applied: outcome.applied)
        core.sensorIdentity = identity.map { (name: $0.name, path: $0.path) }
        if rebuildPipeline || outcome.calibration != appliedCalibration {
            appliedCalibration = outcome.calibration
            core.tiltPipeline = Self.makePipeline(configuration, calibration: outcome.calibration)
        }
        if outcome.applied { log.info("calibration \(path) applied") }
    }

    /// The context the `sensors` request lists: `[sensor] uri`, or `local:`.
    static func sensorsURI(_ c: DaemonConfiguration) -> String {
        c.sensor.uri.isEmpty ? "local:" : c.sensor.uri
    }

    // MARK: - Start and stop

    /// Sets up signals, timers and the listening socket.
    func start() -> ExitStatus {
        signal(SIGPIPE, SIG_IGN)
        let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]
        signalFD = signals.withUnsafeBufferPointer { clinux_signalfd_for($0.baseAddress, Int32($0.count)) }
        frameTimerFD = clinux_timerfd_create()
        acceptRetryFD = clinux_timerfd_create()
        guard signalFD >= 0, frameTimerFD >= 0, acceptRetryFD >= 0 else {
            log.error("signalfd/timerfd: \(Errno.current)")
            return .software
        }
        do {
            try epoll.add(signalFD, events: Epoll.readable, token: Token.signals)
            try epoll.add(frameTimerFD, events: Epoll.readable, token: Token.frameTimer)
            try epoll.add(acceptRetryFD, events: Epoll.readable, token: Token.acceptRetry)
            try epoll.add(sensorListing.pollDescriptor, events: Epoll.readable, token: Token.sensorListing)
        } catch {
            log.error(error.description)
            return .software
        }
        if let status = openListener() { return status }
        if let interval = Watchdog.pingIntervalNanoseconds(), interval > 0 {
            watchdogFD = clinux_timerfd_create()
            if watchdogFD >= 0 {
                _ = clinux_timerfd_set(watchdogFD, Int64(interval), Int64(interval))
                try? epoll.add(watchdogFD, events: Epoll.readable, token: Token.watchdog)
            }
        }
        configureSensorProxy(now: clinux_monotonic_ns())
        updateSensor(now: clinux_monotonic_ns())
        let socket = ownedSocket?.path ?? "the socket passed by systemd"
        log.notice("carouseld \(carouseldRelease) listening on \(socket); sensor \(source.name): \(source.status.rawValue)")
        _ = options.notifier.ready(status: "Listening on \(socket); sensor \(source.status.rawValue)")
        return .ok
    }

    private func openListener() -> ExitStatus? {
        do {
            if let fd = try SocketActivation.takeListeningSocket() {
                let passed = FileDescriptor(rawValue: fd)
                do {
                    try passed.setNonBlocking()
                } catch {
                    log.error("socket passed by systemd: fcntl O_NONBLOCK: \(error)")
                    return .software
                }
                listener = passed
            }
        } catch {
            log.error("socket activation: \(error.description)")
            return .configuration
        }
        if listener == nil {
            let server = configuration.server
            var gid: UInt32?
            if !server.socketGroup.isEmpty {
                guard let g = UnixListener.groupID(server.socketGroup) else {
                    log.error("[server] socket_group: no group named '\(server.socketGroup)'")
                    return .configuration
                }
                gid = g
            }
            do {
                let bound = try UnixListener.bind(path: server.socketPath, mode: server.socketMode, gid: gid,
                                                  backlog: UnixListener.backlog(maxClients: server.maxClients))
                listener = FileDescriptor(rawValue: bound.fd)
                ownedSocket = bound.file
            } catch {
                log.error("cannot listen: \(error.description)")
                switch error {
                case .alreadyServed: return .unavailable
                case .notASocket, .pathTooLong, .unsafeDirectory: return .configuration
                case .missingDirectory: return .ioError
                case let .system(e): return e.errno == .permissionDenied || e.errno == .notPermitted ? .noPermission : .ioError
                }
            }
        }
        guard let listener else { return .software }
        do {
            try epoll.add(listener.rawValue, events: Epoll.readable, token: Token.listener)
        } catch {
            log.error(error.description)
            return .software
        }
        return nil
    }

    /// Closes everything; removes the socket file if we created it and it is still ours (another
    /// daemon may have bound the path since our file was removed).
    func shutdown() {
        _ = options.notifier.stopping(status: "Stopping")
        for (_, connection) in clients { connection.fd.close() }
        clients.removeAll()
        if sourceStarted { source.stop() }
        sensorProxy?.stop()
        listener?.close()
        ownedSocket?.removeIfOurs()
        for fd in [signalFD, frameTimerFD, watchdogFD, acceptRetryFD] where fd >= 0 { close(fd) }
        log.notice("stopped")
    }

    // MARK: - The loop

    func run() -> ExitStatus {
        while running {
            let events: [(token: UInt64, events: UInt32)]
            do {
                events = try epoll.wait(timeoutMilliseconds: -1)
            } catch {
                log.error(error.description)
                return .software
            }
            for event in events {
                let now = clinux_monotonic_ns()
                switch event.token {
                case Token.listener: acceptClients(now: now)
                case Token.signals: handleSignals(now: now)
                case Token.frameTimer:
                    _ = clinux_timerfd_read(frameTimerFD)
                    armedDeadline = nil
                    core.tick(now: now)
                case Token.watchdog:
                    _ = clinux_timerfd_read(watchdogFD)
                    _ = options.notifier.watchdog()
                case Token.sensor: readSensor(now: now)
                case Token.acceptRetry:
                    _ = clinux_timerfd_read(acceptRetryFD)
                    resumeAccepting()
                case Token.sensorListing:
                    for finished in sensorListing.takeFinished() {
                        core.sensorListingFinished(finished.id, outcome: finished.outcome, now: now)
                    }
                case Token.sensorProxyBus, Token.sensorProxyTimer:
                    sensorProxy?.handle(token: event.token, now: now)
                default:
                    if event.token >= Token.clientBase {
                        clientEvent(ClientID(Int(event.token - Token.clientBase)), events: event.events, now: now)
                    }
                }
            }
            let now = clinux_monotonic_ns()
            flushClients(now: now)
            updateSensor(now: now)
            flushClients(now: now)
            publishSensorProxy(now: now)
            armFrameTimer(now: now)
        }
        return .ok
    }

    private func handleSignals(now: Int64) {
        while true {
            let signo = clinux_signalfd_read(signalFD)
            if signo <= 0 { return }
            switch signo {
            case SIGTERM, SIGINT:
                log.notice("received signal \(signo), exiting")
                running = false
            case SIGHUP:
                _ = reload()  // logs a failure itself
            default: break
            }
        }
    }

    // MARK: - Reload

    /// Loads the configuration again and applies it; returns why not, keeping the old one, and
    /// logs that reason (SIGHUP and the `reload` request alike). The file passes the same
    /// checks as at start-up and in `--check-config` (`CarouseldCommandLine.loadConfiguration`).
    /// systemd sees RELOADING=1, then READY=1 with a STATUS= saying whether it worked (a
    /// failed reload must not show "Reloaded" in `systemctl status`).
    private func reload() -> String? {
        _ = options.notifier.reloading()
        let new: DaemonConfiguration
        do {
            new = try options.reloadConfiguration()
        } catch {
            log.error("reload failed, keeping the running configuration: \(error.description)")
            _ = options.notifier.ready(status: "Reload failed, running configuration kept: \(error.description)")
            return error.description
        }
        defer { _ = options.notifier.ready(status: "Reloaded") }
        let now = clinux_monotonic_ns()
        let old = configuration
        configuration = new
        if new.server.socketPath != old.server.socketPath || new.server.socketMode != old.server.socketMode
            || new.server.socketGroup != old.server.socketGroup {
            log.warning("[server] socket settings change only on restart")
        }
        policy.controlGID = new.server.controlGroup.isEmpty ? nil : UnixListener.groupID(new.server.controlGroup)
        core.limits = Self.limits(new)
        core.sensorsURI = Self.sensorsURI(new)
        if new.carousel != old.carousel || new.tilt != old.tilt {
            core.reconfigure(EngineSetup.carouselConfiguration(new), now: now)
        }
        if new.sensor != old.sensor {
            stopSensor()
            source = SensorFactory.make(new.sensor, log: sensorLog)
            core.sensorChanged(status: source.status, name: source.name, message: source.statusMessage, now: now)
        }
        // A new pipeline for new [filter]/[tilt]/axis settings or another sensor (its estimate
        // and neutral belong to the old ones); otherwise the running one keeps its state.
        if new.server.sensorProxy != old.server.sensorProxy { configureSensorProxy(now: now) }
        loadCalibration(rebuildPipeline: new.filter != old.filter || new.tilt != old.tilt
                        || new.carousel.axis != old.carousel.axis || new.sensor != old.sensor)
        log.notice("configuration reloaded from \(options.configurationPath ?? "built-in defaults")")
        return nil
    }

    // MARK: - Sensor

    private func updateSensor(now: Int64) {
        let wanted = core.needsSamples || sensorProxy?.claimed == true
        var started = false
        if wanted && !sourceStarted {
            do {
                try source.start()
                sourceStarted = true
                started = true
            } catch {
                sensorLog(.error, "sensor \(source.name): \(error.description)")
                reportSensor(now: now, fallback: .error, message: error.description)
                return
            }
        } else if !wanted && sourceStarted {
            stopSensor()
        }
        syncSensorDescriptor()
        reportSensor(now: now)
        // After its status is reported, so the core judges the started sensor's status.
        if started { core.sensorStarted(now: now) }
    }

    private func stopSensor() {
        if let fd = registeredSensorFD { epoll.remove(fd) }
        registeredSensorFD = nil
        source.stop()
        sourceStarted = false
        core.sensorStopped(now: clinux_monotonic_ns())
    }

    private func syncSensorDescriptor() {
        let fd = sourceStarted ? source.pollDescriptor : nil
        guard fd != registeredSensorFD else { return }
        if let old = registeredSensorFD { epoll.remove(old) }
        registeredSensorFD = nil
        if let fd {
            do {
                try epoll.add(fd, events: Epoll.readable, token: Token.sensor)
                registeredSensorFD = fd
            } catch {
                log.error("sensor \(source.name): \(error.description)")
            }
        }
    }

    private func reportSensor(now: Int64, fallback: SensorStatus? = nil, message: String? = nil) {
        let status = fallback ?? source.status
        applyCalibration()  // an IIO sensor's identity is known once it is selected (or reselected)
        core.sampleRateHz = source.sampleRateHz
        core.sensorChanged(status: status, name: source.name, message: message ?? source.statusMessage,
                           path: source.selectedDevice?.path, gyroPath: source.selectedGyroPath, now: now)
    }

    private func readSensor(now: Int64) {
        guard sourceStarted else { return }
        sampleBuffer.removeAll(keepingCapacity: true)
        do {
            try source.readAvailable(into: &sampleBuffer)
        } catch {
            sensorLog(.warning, "sensor \(source.name): \(error.description)")
        }
        // A sensor that delivers again (after a silence: a resume, a wedged buffer re-enabled) is
        // reported `ok` before the samples move the tilt, so that watchers get SENSOR ok and then
        // STATEs whose new tilt says `sensor: ok`, never a new tilt beside `stale`. Any other
        // change (stale, error, a device gone) is reported after the samples that came before it.
        if !sampleBuffer.isEmpty {
            if source.status != core.sensorStatus, source.status == .ok || source.status == .replay { reportSensor(now: now) }
            core.samplesArrived(sampleBuffer, now: now)
        }
        syncSensorDescriptor()
        reportSensor(now: now)
    }

    // MARK: - Sensor proxy

    /// Starts or stops serving `net.hadess.SensorProxy` as `[server] sensor_proxy` says.
    private func configureSensorProxy(now: Int64) {
        if configuration.server.sensorProxy, sensorProxy == nil {
            let service = SensorProxyService(epoll: epoll, busToken: Token.sensorProxyBus,
                                             timerToken: Token.sensorProxyTimer,
                                             log: options.logger.limited(by: RepeatedLogLimiter()))
            do {
                try service.start(now: now)
                sensorProxy = service
            } catch {
                log.error("sensor proxy: \(error.description)")
                service.stop()
            }
        } else if !configuration.server.sensorProxy, let service = sensorProxy {
            service.stop()
            sensorProxy = nil
        }
    }

    /// Tells the bus the core's orientation and tilt (a PropertiesChanged when they changed).
    private func publishSensorProxy(now: Int64) {
        guard let service = sensorProxy else { return }
        service.update(SensorProxyReading.next(sensor: core.sensorStatus, sensorRunning: core.sensorRunning,
                                               detected: core.orientation,
                                               elevationDegrees: core.tilt?.elevationDegrees,
                                               previous: service.reading), now: now)
    }

    // MARK: - Clients

    /// Connections accepted per wake-up of the listener, so a client that connects and closes
    /// in a loop cannot keep the loop here (no timer, sensor or client event would run, and the
    /// dead connections would pile up). The listener is level-triggered: what is left is taken
    /// on the next pass, after the other events.
    private static let acceptsPerWakeup = 32

    private func acceptClients(now: Int64) {
        guard let listener else { return }
        for _ in 0..<Self.acceptsPerWakeup {
            let fd: FileDescriptor
            do {
                fd = try listener.accept()
            } catch {
                if error == .connectionAborted { continue }
                if error.isResourceExhaustion {
                    pauseAccepting(error)
                } else if error != .wouldBlock {
                    log.warning("accept: \(error)")
                }
                return
            }
            acceptStarvationLogged = false
            let credentials: PeerCredentials
            do {
                credentials = try fd.peerCredentials()
            } catch {
                log.warning("SO_PEERCRED: \(error); closing the connection")
                fd.close()
                continue
            }
            // A small send buffer, so a watcher that stops reading makes the socket refuse more
            // within about half a second of STATEs and the core coalesces from then on (the
            // kernel's default, ~208 KiB, holds ~4 s of old STATEs). Lines too big for it (item
            // STATEs) wait in the connection's outbox.
            do {
                try fd.setSendBufferSize(Self.clientSendBufferBytes)
            } catch {
                log.debug("SO_SNDBUF on \(fd): \(error); keeping the kernel's default")
            }
            let mayControl = policy.mayControl(credentials)
            if core.admissionRefusal(credentials: credentials, mayControl: mayControl) != nil { reapHungUpClients() }
            let id = ClientID(nextClient)
            nextClient += 1
            clients[id] = Connection(fd: fd)
            do {
                try epoll.add(fd.rawValue, events: Epoll.readable | UInt32(EPOLLRDHUP.rawValue), token: Token.clientBase + UInt64(id.rawValue))
            } catch {
                log.warning("\(error)")
                fd.close()
                clients[id] = nil
                continue
            }
            // The outbox writes a line for an empty queue at once through this `send`, so a
            // watcher that keeps up costs one `send` per STATE and no copy.
            let accepted = core.clientConnected(id, credentials: credentials, mayControl: mayControl,
                                                now: now, writer: { Self.send($0, to: fd) })
            log.debug("\(id) connected (pid \(credentials.pid), uid \(credentials.uid))\(accepted ? "" : ": refused, too_many_clients")")
        }
    }

    /// Takes the listener out of the epoll set until a client closes or the retry timer fires
    /// (see `acceptPaused`); warns once per episode.
    private func pauseAccepting(_ e: Errno) {
        if !acceptStarvationLogged {
            acceptStarvationLogged = true
            log.warning("accept: \(e) (out of descriptors or memory, [server] max_clients \(core.limits.maxClients)); "
                        + "new connections wait until a client leaves")
        }
        guard !acceptPaused else { return }
        acceptPaused = true
        if let listener { epoll.remove(listener.rawValue) }
        _ = clinux_timerfd_set(acceptRetryFD, Self.acceptRetryNanoseconds, 0)
    }

    private func resumeAccepting() {
        guard acceptPaused else { return }
        acceptPaused = false
        _ = clinux_timerfd_set(acceptRetryFD, 0, 0)
        do {
            if let listener { try epoll.add(listener.rawValue, events: Epoll.readable, token: Token.listener) }
        } catch {
            log.error("listener: \(error.description)")
        }
    }

    /// Closes clients that have hung up but whose EOF this loop has not read yet, so that a
    /// client reconnecting right after closing is not refused with `too_many_clients`.
    private func reapHungUpClients() {
        for (id, connection) in clients {
            let (gone, readClosed) = connection.fd.pollHangUp()
            // Half-closed but watching: still a client (see `clientEvent`), not a hang-up.
            let halfClosed = readClosed && !core.isSubscribed(id)
            if gone || halfClosed { closeClient(id) }
        }
    }

    private func clientEvent(_ id: ClientID, events: UInt32, now: Int64) {
        guard let connection = clients[id] else { return }
        let fd = connection.fd
        if events & Epoll.writable != 0 { flush(id, connection, now: now) }
        guard clients[id] != nil else { return }
        if events & (Epoll.readable | Epoll.hangup) != 0 {
            // Only EPOLLHUP/EPOLLERR reach a read-closed or paused connection: the peer is gone.
            if connection.readClosed || connection.inputPaused { closeClient(id); return }
            var n = 0
            var failure: Errno?
            readBuffer.withUnsafeMutableBytes { buffer in
                do throws(Errno) { n = try fd.receive(into: buffer) } catch { failure = error }
            }
            if let failure {
                if failure != .wouldBlock { closeClient(id) }
            } else if n > 0 {
                core.received(readBuffer[0..<n], from: id, now: now)
                if !core.acceptsInput(from: id) { setInputPaused(id, connection, true) }
            } else if events & UInt32(EPOLLHUP.rawValue) == 0, core.isSubscribed(id) {
                // Half-closed (`shutdown(SHUT_WR)` after `watch`, as `nc -N` or `socat` do when
                // their input ends): keep serving it; stop reading, since EOF stays readable.
                connection.readClosed = true
                updateInterest(id, connection)
            } else {
                closeClient(id)
            }
        }
    }

    /// Writes to the connections the core queued output for (or marked for closing) since the
    /// last pass: only those, so a loop iteration with 256 idle watchers costs nothing per watcher.
    private func flushClients(now: Int64) {
        core.takeClientsToFlush(into: &flushIDs)
        for id in flushIDs {
            guard let connection = clients[id] else { continue }
            flush(id, connection, now: now)
        }
        flushIDs.removeAll(keepingCapacity: true)
        for id in core.expiredLingering(now: now) { closeClient(id) }
    }

    /// Writes what the core queued for `id`, with MSG_NOSIGNAL, until EAGAIN.
    private func flush(_ id: ClientID, _ connection: Connection, now: Int64) {
        let fd = connection.fd
        if connection.inputPaused, core.acceptsInput(from: id) { setInputPaused(id, connection, false) }
        let outcome = core.flush(id, now: now) { Self.send($0, to: fd) }
        switch outcome {
        case .close:
            closeClient(id)
        case .blocked:
            setWriteInterest(id, connection, true)
            if core.isClosing(id) && !connection.readClosed {
                // Its final ERROR waits for room: what the peer sends meanwhile would only be
                // discarded, so it is not read at all (the peer's writes then block or fail).
                connection.readClosed = true
                updateInterest(id, connection)
            }
        case .drained:
            setWriteInterest(id, connection, false)
        }
    }

    /// One non-blocking `send` (`FileDescriptor.send`) as the outbox sees it.
    static func send(_ bytes: UnsafeRawBufferPointer, to fd: FileDescriptor) -> DaemonCore.WriteResult {
        do {
            let n = try fd.send(bytes)
            return n > 0 ? .wrote(n) : .failed
        } catch {
            return error == .wouldBlock ? .wouldBlock : .failed
        }
    }

    private func setWriteInterest(_ id: ClientID, _ connection: Connection, _ on: Bool) {
        guard on != connection.writeInterest else { return }
        connection.writeInterest = on
        updateInterest(id, connection)
    }

    private func setInputPaused(_ id: ClientID, _ connection: Connection, _ on: Bool) {
        guard on != connection.inputPaused else { return }
        connection.inputPaused = on
        updateInterest(id, connection)
    }

    /// The connection's epoll interest from its state: readable unless read-closed or paused,
    /// writable while output waits for room. (EPOLLHUP and EPOLLERR are always reported.)
    private func updateInterest(_ id: ClientID, _ connection: Connection) {
        let reads = !connection.readClosed && !connection.inputPaused
        var events: UInt32 = reads ? Epoll.readable | UInt32(EPOLLRDHUP.rawValue) : 0
        if connection.writeInterest { events |= Epoll.writable }
        try? epoll.modify(connection.fd.rawValue, events: events, token: Token.clientBase + UInt64(id.rawValue))
    }

    private func closeClient(_ id: ClientID) {
        if let connection = clients.removeValue(forKey: id) {
            epoll.remove(connection.fd.rawValue)
            connection.fd.close()
            resumeAccepting()  // a descriptor came free
        }
        core.clientDisconnected(id)
    }

    // MARK: - Frame timer

    private func armFrameTimer(now: Int64) {
        let deadline = core.nextDeadline
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        if let deadline {
            _ = clinux_timerfd_set(frameTimerFD, max(deadline - now, 1), 0)
        } else {
            _ = clinux_timerfd_set(frameTimerFD, 0, 0)
        }
    }
}
