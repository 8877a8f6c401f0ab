import CLinux
import CarouselProtocol
import CarouselService
import Mosquitto
#if canImport(Glibc)
import Glibc
#endif

/// carousel-mqtt's event loop: one `poll(2)` over carouseld's socket, the broker's socket
/// (libmosquitto driven by `loopRead`/`loopWrite`/`loopMisc`, no library thread) and a
/// signalfd, on one thread, with no locks (docs/MQTT.md "How it works").
///
/// Each side is a small state machine: waiting (until a backoff deadline), connecting (broker
/// only: TCP/TLS handshake and CONNACK pending), connected. Losing either side never ends the
/// bridge; it logs one line, publishes `offline` when the daemon is the one gone, and tries
/// again with exponential backoff. Everything it holds is bounded (docs/MQTT.md "Bounds"): the
/// newest state (one), the commands waiting for the daemon's answer (`pendingCommandLimit`, each
/// with at most `maximumPayloadBytes` of payload), the request bytes for the daemon
/// (`DaemonConnection.outputLimit`), and the publications libmosquitto has not yet handed to
/// the socket (QoS 0) or the broker has not acknowledged (QoS 1/2): past `inFlightLimit` state
/// publications wait and coalesce and command errors are dropped; availability and discovery,
/// a handful per (re)connection or per `republish_min_interval_s`, always go out.
public final class Bridge {
    /// Commands sent to carouseld whose ACK/ERROR has not arrived.
    public static let pendingCommandLimit = 64
    /// Publications in libmosquitto's queue (not yet written, or not yet acknowledged) before
    /// state publications wait and command errors are dropped.
    public static let inFlightLimit = 64
    /// The longest command payload read, bytes: a longer one is refused unread (libmosquitto
    /// still receives it whole; bound it at the broker too, docs/MQTT.md "Security").
    public static let maximumPayloadBytes = 256
    /// Command errors published and logged, at most, a second on average …
    public static let errorRatePerSecond = 5.0
    /// … and at once.
    public static let errorBurst = 20

    /// `connected(since:)`: when the broker accepted the connection (CLOCK_MONOTONIC ns).
    private enum BrokerLink { case waiting(until: Int64), connecting, connected(since: Int64) }
    private enum DaemonLink { case waiting(until: Int64), connected(greeted: Bool) }

    private let configuration: BridgeConfiguration
    private let log: Logger
    private let notifier: ServiceNotifier
    private let topics: BridgeTopics
    private let discovery: HomeAssistantDiscovery?
    private let qos: MosquittoQoS
    private let mqtt: MosquittoClient
    private let daemon: DaemonConnection
    private var broker = BrokerLink.waiting(until: 0)
    private var daemonLink = DaemonLink.waiting(until: 0)
    private var brokerBackoff: Backoff
    private var daemonBackoff: Backoff
    private var random = SystemRandomNumberGenerator()

    /// The newest state from the daemon (nil until the first STATE of a connection).
    private var latest: BridgeState?
    private var schedule: StatePublishSchedule
    /// What the retained availability topic says, as far as this connection published it.
    private var availabilityPublished: Bool?
    /// The count in the last published Home Assistant `number` config; nil until the configs
    /// have gone out on this broker connection (they wait for the daemon's count).
    private var discoveryCount: Int?
    /// When the configs were last published (CLOCK_MONOTONIC ns), and when they are due again
    /// after an `online` on `<discovery_prefix>/status` arrived sooner than the interval allows.
    private var discoveryPublishedAt: Int64?
    private var discoveryDue: Int64?
    private let discoveryInterval: Int64
    private var pendingCommands: [(cmd: String, topic: String, payload: [UInt8])] = []
    /// Command errors: published and logged within this budget, the rest counted.
    private var errorBudget = RateBudget(ratePerSecond: Bridge.errorRatePerSecond, burst: Bridge.errorBurst)
    /// Daemon liveness: the last time it sent anything, and whether a `poll` asks for a sign.
    private var daemonHeardAt: Int64 = 0
    private var livenessPollSent = false
    private let livenessTimeout: Int64
    private var inFlight: Set<Int32> = []
    /// A state publication skipped because of `inFlightLimit`.
    private var stateWaitsForAcknowledgements = false
    private var brokerFailuresLogged = 0
    /// How many connections in a row the broker dropped before `stableBrokerConnection` passed.
    private var shortBrokerConnections = 0
    private var daemonFailuresLogged = 0
    private var badStates = 0
    /// The last error of a libmosquitto loop call, for the log line when the socket is gone.
    private var lastBrokerError: String?

    /// Sets up the MQTT session (client id, credentials, will, TLS); connects nothing yet.
    /// - Parameter password: the first line of `password_file`, read by the caller.
    /// - Throws: `MosquittoError` when libmosquitto refuses a setting (e.g. an unreadable CA file).
    public init(configuration: BridgeConfiguration, password: String?, log: Logger,
                notifier: ServiceNotifier = .systemd) throws(MosquittoError) {
        self.configuration = configuration
        self.log = log
        self.notifier = notifier
        topics = configuration.topics
        discovery = configuration.homeAssistantEnabled
            ? HomeAssistantDiscovery(discoveryPrefix: configuration.discoveryPrefix, deviceID: configuration.deviceID,
                                     topics: configuration.topics, release: carouseldRelease)
            : nil
        qos = MosquittoQoS(rawValue: Int32(configuration.qos)) ?? .atLeastOnce
        brokerBackoff = Backoff(minimumSeconds: configuration.brokerReconnectMinimumSeconds,
                                maximumSeconds: configuration.brokerReconnectMaximumSeconds)
        daemonBackoff = Backoff(minimumSeconds: configuration.daemonReconnectMinimumSeconds,
                                maximumSeconds: configuration.daemonReconnectMaximumSeconds)
        schedule = StatePublishSchedule(maximumRateHz: configuration.positionMaximumRateHz)
        daemon = DaemonConnection(socketPath: configuration.socketPath)
        discoveryInterval = Int64(configuration.discoveryRepublishMinimumIntervalSeconds * 1e9)
        livenessTimeout = Int64(configuration.daemonLivenessTimeoutSeconds * 1e9)
        mqtt = try MosquittoClient(clientID: configuration.effectiveClientID)
        mqtt.maximumPayloadBytes = Self.maximumPayloadBytes
        if let username = configuration.username { try mqtt.setCredentials(username: username, password: password) }
        try mqtt.setWill(topic: topics.availability, payload: BridgeTopics.offline, qos: qos, retain: true)
        if let caFile = configuration.caFile {
            try mqtt.setTLS(caFile: caFile, certificateFile: configuration.certificateFile, keyFile: configuration.keyFile)
        }
    }

    private var brokerName: String {
        "\(configuration.brokerHost):\(configuration.effectivePort)\(configuration.usesTLS ? " (TLS)" : "")"
    }

    private var brokerConnected: Bool { if case .connected = broker { return true } else { return false } }
    private var daemonReady: Bool { latest != nil }

    // MARK: The loop

    /// Runs until SIGTERM or SIGINT, then publishes `offline` and disconnects cleanly.
    /// SIGHUP republishes the retained state, availability and discovery.
    /// - Returns: `.ok` after a signal; `.software` when the loop itself cannot go on (poll or
    ///   signalfd failing).
    public func run() -> ExitStatus {
        let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]
        let signalFD = signals.withUnsafeBufferPointer { clinux_signalfd_for($0.baseAddress, Int32($0.count)) }
        guard signalFD >= 0 else {
            log.error("cannot create a signalfd: \(String(cString: strerror(Glibc.errno)))")
            return .software
        }
        defer { Glibc.close(signalFD) }
        signal(SIGPIPE, SIG_IGN)
        log.notice("carousel-mqtt \(carouseldRelease) (libmosquitto \(MosquittoClient.libraryVersion)) for device "
                   + "'\(configuration.deviceID)': carouseld on \(configuration.socketPath), broker \(brokerName), "
                   + "topics under \(topics.base)/")
        if let written = configuration.deviceIDAsWritten {
            log.warning("device id '\(LogPayloadText.shown(daemonText: written))' is used as '\(configuration.deviceID)' "
                        + "(characters other than A-Z a-z 0-9 _ - become _): a device whose id reduces to the same shares "
                        + "its topics and client id, and the broker disconnects one for the other")
        }
        _ = notifier.ready(status: "starting")
        while true {
            let now = clinux_monotonic_ns()
            if case let .waiting(until) = daemonLink, now >= until { connectDaemon(now: now) }
            if case let .waiting(until) = broker, now >= until { connectBroker(now: now) }
            checkDaemonLiveness(now: now)
            if brokerConnected, !stateWaitsForAcknowledgements, let state = schedule.due(now: now) { publish(state) }
            if let due = discoveryDue, now >= due { publishDiscovery(now: now) }
            reportDroppedErrors(now: now)

            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            let daemonIndex = daemon.isOpen ? fds.count : -1
            if daemon.isOpen {
                fds.append(pollfd(fd: daemon.fd, events: Int16(POLLIN) | (daemon.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let brokerFD = mqtt.socketDescriptor
            let brokerIndex = brokerFD == nil ? -1 : fds.count
            if let brokerFD {
                fds.append(pollfd(fd: brokerFD, events: Int16(POLLIN) | (mqtt.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds(now: now)) }
            if ready < 0 {
                if Glibc.errno == EINTR { continue }
                log.error("poll failed: \(String(cString: strerror(Glibc.errno)))")
                return .software
            }
            if fds[0].revents != 0 {
                switch clinux_signalfd_read(signalFD) {
                case SIGHUP:
                    log.notice("SIGHUP: republishing state, availability and discovery")
                    republishAll()
                case SIGTERM, SIGINT:
                    shutDown()
                    return .ok
                default: break
                }
            }
            if daemonIndex >= 0 { serviceDaemon(fds[daemonIndex].revents) }
            if brokerIndex >= 0 { serviceBroker(fds[brokerIndex].revents) }
            handleBrokerEvents()
            checkBrokerSocket()
        }
    }

    /// Until the next deadline (a reconnection, a throttled state), at most 1 s so that
    /// `loopMisc` keeps the MQTT keepalive.
    private func timeoutMilliseconds(now: Int64) -> Int32 {
        var deadline = now + 1_000_000_000
        if case let .waiting(until) = daemonLink { deadline = min(deadline, until) }
        if case let .waiting(until) = broker { deadline = min(deadline, until) }
        if brokerConnected, !stateWaitsForAcknowledgements, let due = schedule.deadline { deadline = min(deadline, due) }
        if let due = discoveryDue { deadline = min(deadline, due) }
        if daemon.isOpen { deadline = min(deadline, daemonHeardAt + (livenessPollSent ? livenessTimeout : livenessTimeout / 2)) }
        return Int32(max(0, (deadline - now + 999_999) / 1_000_000))
    }

    private func delay(_ backoff: inout Backoff, now: Int64) -> (until: Int64, seconds: Double) {
        let seconds = backoff.nextDelaySeconds(jitter: Double.random(in: 0..<1, using: &random))
        return (now + Int64(seconds * 1e9), seconds)
    }

    private static func seconds(_ s: Double) -> String {
        s < 10 ? String(Double(Int(s * 10)) / 10) : String(Int(s))
    }

    // MARK: carouseld

    private func connectDaemon(now: Int64) {
        do {
            try daemon.open()
        } catch {
            let (until, seconds) = delay(&daemonBackoff, now: now)
            daemonLink = .waiting(until: until)
            // The first failure and then every 10th at warning level; the rest at debug, so a
            // daemon stopped for a day does not fill the journal.
            let level: LogLevel = daemonFailuresLogged % 10 == 0 ? .warning : .debug
            daemonFailuresLogged += 1
            log.log(level, "carouseld unreachable (\(error)); retrying in \(Self.seconds(seconds)) s")
            return
        }
        daemonLink = .connected(greeted: false)
        daemonHeardAt = now
        livenessPollSent = false
        _ = daemon.send(Request.watch(WatchRequest(enable: true, items: false, maxRateHz: watchRateHz)).jsonLine)
        log.info("connected to carouseld on \(configuration.socketPath)")
    }

    /// A daemon that is stopped (SIGSTOP), hung or swapped out keeps its socket open and sends
    /// nothing: after half of `liveness_timeout_s` of silence the bridge sends a `poll`, whose
    /// answer is a STATE; after all of it the daemon counts as lost (`offline`, reconnect).
    private func checkDaemonLiveness(now: Int64) {
        guard daemon.isOpen else { return }
        let silent = now - daemonHeardAt
        if silent >= livenessTimeout {
            daemonLost("it sent nothing for \(Self.seconds(Double(silent) / 1e9)) s, not even an answer to a poll")
        } else if silent >= livenessTimeout / 2, !livenessPollSent {
            livenessPollSent = true
            _ = daemon.send(Request.poll.jsonLine)
            log.debug("carouseld silent for \(Self.seconds(Double(silent) / 1e9)) s: poll")
        }
    }

    /// The rate asked of the daemon: fast enough that a command's effect or a rest arrives
    /// within 50 ms, and at least the publishing rate; the bridge throttles further itself.
    private var watchRateHz: Double { max(20, configuration.positionMaximumRateHz) }

    private func serviceDaemon(_ events: Int16) {
        do {
            if events & Int16(POLLOUT) != 0 { try daemon.flush() }
            if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                let messages = try daemon.receive()
                if !messages.isEmpty {
                    daemonHeardAt = clinux_monotonic_ns()
                    livenessPollSent = false
                }
                for message in messages { handleDaemon(message) }
            }
            if daemon.wantsWrite { try daemon.flush() }
        } catch {
            daemonLost(error.description)
        }
    }

    private func daemonLost(_ why: String) {
        daemon.close()
        let wasReady = daemonReady
        latest = nil
        let now = clinux_monotonic_ns()
        let (until, seconds) = delay(&daemonBackoff, now: now)
        daemonLink = .waiting(until: until)
        // A daemon that never became ready on this connection (stopped, still hung) is logged
        // like a failed connection: the first time and then every 10th at warning level.
        let level: LogLevel = wasReady || daemonFailuresLogged % 10 == 0 ? .warning : .debug
        log.log(level, "lost carouseld (\(why)); \(wasReady ? "publishing offline, " : "")reconnecting in \(Self.seconds(seconds)) s")
        daemonFailuresLogged = wasReady ? 1 : daemonFailuresLogged + 1
        for pending in pendingCommands {
            publishError(topic: pending.topic, payload: pending.payload,
                         message: "carouseld closed the connection before answering '\(pending.cmd)'")
        }
        pendingCommands.removeAll()
        if wasReady { updateAvailability() }
        _ = notifier.status(statusLine)
    }

    private func handleDaemon(_ message: WireJSON) {
        switch message["class"]?.stringValue {
        case "VERSION":
            let release = LogPayloadText.shown(daemonText: message["release"]?.stringValue ?? "?")
            let major = message["proto_major"]?.intValue ?? 0
            let minor = message["proto_minor"]?.intValue ?? 0
            if major != ServerMessage.protoMajor {
                log.error("carouseld \(release) speaks protocol \(major).\(minor); this bridge needs \(ServerMessage.protoMajor).x")
            } else {
                log.info("carouseld \(release), protocol \(major).\(minor)")
            }
            daemonLink = .connected(greeted: true)
        case "STATE":
            let state: BridgeState
            do { state = try BridgeState(stateMessage: message) } catch {
                if badStates % 100 == 0 { log.warning("ignoring a STATE the bridge cannot read: \(LogPayloadText.shown(daemonText: error.description))") }
                badStates += 1
                return
            }
            if latest == nil {
                daemonBackoff.reset()
                daemonFailuresLogged = 0
                log.notice("carouseld ready: index \(state.index.map(String.init) ?? "none") of \(state.count), "
                           + "sensor \(LogPayloadText.shown(daemonText: state.sensor))")
                latest = state
                updateAvailability()
                if discoveryCount == nil { publishDiscovery(now: clinux_monotonic_ns()) }
                _ = notifier.status(statusLine)
            }
            offer(state)
        case "SENSOR":
            guard let status = message["status"]?.stringValue else { return }
            let detail = message["message"]?.stringValue.map { ": " + LogPayloadText.shown(daemonText: $0) } ?? ""
            if var state = latest, state.sensor != status {
                log.notice("sensor status \(LogPayloadText.shown(daemonText: status))\(detail)")
                state.sensor = status
                offer(state)
            }
        case "ACK":
            _ = takePending(cmd: message["cmd"]?.stringValue)
        case "ERROR":
            let code = LogPayloadText.shown(daemonText: message["code"]?.stringValue ?? "?")
            let text = LogPayloadText.shown(daemonText: message["message"]?.stringValue ?? "")
            if let pending = takePending(cmd: message["cmd"]?.stringValue) {
                publishError(topic: pending.topic, payload: pending.payload, message: "carouseld refused '\(pending.cmd)': \(code): \(text)")
            } else {
                log.warning("carouseld: \(code): \(text)")
            }
        default:
            break  // WATCH, INDEX (the STATE before it shows the rest), and classes of newer daemons
        }
    }

    /// Removes and returns the oldest pending command named `cmd` (the daemon answers in order;
    /// older entries without an answer of their own are dropped as answered).
    private func takePending(cmd: String?) -> (cmd: String, topic: String, payload: [UInt8])? {
        guard let cmd, let i = pendingCommands.firstIndex(where: { $0.cmd == cmd }) else { return nil }
        let pending = pendingCommands[i]
        pendingCommands.removeFirst(i + 1)
        return pending
    }

    // MARK: The broker

    private func connectBroker(now: Int64) {
        do {
            try mqtt.connect(host: configuration.brokerHost, port: configuration.effectivePort,
                             keepaliveSeconds: configuration.keepaliveSeconds)
            broker = .connecting
            log.debug("connecting to the broker \(brokerName)")
        } catch {
            brokerFailed("cannot connect to the broker \(brokerName): \(error.reason)", now: now)
        }
    }

    private func brokerFailed(_ why: String, now: Int64) {
        let (until, seconds) = delay(&brokerBackoff, now: now)
        broker = .waiting(until: until)
        let level: LogLevel = brokerFailuresLogged % 10 == 0 ? .warning : .debug
        brokerFailuresLogged += 1
        log.log(level, "\(why); retrying in \(Self.seconds(seconds)) s")
        _ = notifier.status(statusLine)
    }

    private func serviceBroker(_ events: Int16) {
        do {
            if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 { try mqtt.loopRead() }
            if events & Int16(POLLOUT) != 0, mqtt.socketDescriptor != nil { try mqtt.loopWrite() }
        } catch {
            log.debug("broker I/O: \(error)")  // the disconnect event that follows is logged
            lastBrokerError = error.reason
        }
        if mqtt.socketDescriptor != nil {
            do { try mqtt.loopMisc() } catch { log.debug("broker keepalive: \(error)") }
        }
    }

    /// libmosquitto closes the socket of a failed TLS handshake without a disconnect callback:
    /// a session whose socket is gone is failed here, so the bridge always tries again.
    private func checkBrokerSocket() {
        switch broker {
        case .waiting: return
        case .connecting, .connected:
            guard mqtt.socketDescriptor == nil else { return }
            handle(disconnectReason: lastBrokerError ?? "the connection closed")
        }
    }

    private func handleBrokerEvents() {
        for event in mqtt.takeEvents() {
            switch event {
            case let .connected(code, reason):
                if code == 0 { brokerUp() } else {
                    log.error("the broker \(brokerName) refused the connection: \(reason)")
                }
            case let .disconnected(_, reason):
                handle(disconnectReason: reason)
            case let .message(message):
                handleBrokerMessage(message)
            case let .log(isError, text):
                // Rate-limited like the failure lines they explain.
                log.log(isError && brokerFailuresLogged % 10 == 0 ? .warning : .debug, "libmosquitto: \(text)")
            case let .published(messageID):
                inFlight.remove(messageID)
                if stateWaitsForAcknowledgements, inFlight.count < Self.inFlightLimit / 2 {
                    stateWaitsForAcknowledgements = false
                    if let latest { publish(schedule.republish(latest, now: clinux_monotonic_ns())) }
                }
            }
        }
    }

    /// How long a broker connection must hold before its loss counts as a new failure rather than
    /// one more of a streak: twice the longest wait between attempts (at least 10 s). Two clients
    /// with one client id take the session from each other whenever the other connects, so each
    /// connection lives at most one of the other's waits; counting those as failures keeps the
    /// backoff growing and the warnings rare instead of a reconnection (and a republication of
    /// availability and discovery) every second forever.
    private var stableBrokerConnection: Int64 {
        Int64(max(10, 2 * configuration.brokerReconnectMaximumSeconds) * 1e9)
    }

    private func handle(disconnectReason reason: String) {
        if case .waiting = broker { return }
        var connectedSince: Int64?
        if case let .connected(since) = broker { connectedSince = since }
        let now = clinux_monotonic_ns()
        inFlight.removeAll()
        stateWaitsForAcknowledgements = false
        availabilityPublished = nil
        discoveryCount = nil
        discoveryDue = nil
        lastBrokerError = nil
        if let since = connectedSince {
            if now - since >= stableBrokerConnection {
                brokerBackoff.reset()
                brokerFailuresLogged = 0
                shortBrokerConnections = 0
            } else {
                shortBrokerConnections += 1
                if shortBrokerConnections == Self.shortConnectionsBeforeHint { logSessionTakeoverHint() }
            }
        }
        brokerFailed(connectedSince != nil ? "lost the broker \(brokerName) (\(reason))"
                                  : "cannot connect to the broker \(brokerName): \(reason)", now: now)
    }

    /// Connections dropped soon after being made, in a row, before the bridge names the likely cause.
    static let shortConnectionsBeforeHint = 3

    /// The usual cause of a broker that keeps dropping fresh connections: MQTT allows one session
    /// per client id, and the broker closes the older one when another client connects with it.
    private func logSessionTakeoverHint() {
        let held = Self.seconds(Double(stableBrokerConnection) / 1e9)
        log.warning("the broker \(brokerName) dropped \(shortBrokerConnections) connections in a row within \(held) s of "
            + "accepting them: another client may be connected with the client id '\(configuration.effectiveClientID)' "
            + "(the broker closes the older session), e.g. a second bridge with the [device] id '\(configuration.deviceID)'; "
            + "give each bridge its own [device] id or [broker] client_id")
    }

    private func brokerUp() {
        // The backoff and the failure count are reset only once the connection has held
        // (`stableBrokerConnection`, checked when it is lost).
        broker = .connected(since: clinux_monotonic_ns())
        log.notice("connected to the broker \(brokerName) as '\(configuration.effectiveClientID)'")
        var patterns = [topics.base + "/set/+", topics.command(.recenter)]
        if let discovery { patterns.append(discovery.statusTopic) }
        for pattern in patterns {
            do { try mqtt.subscribe(pattern, qos: qos) } catch { log.warning("\(error)") }
        }
        republishAll()
        _ = notifier.status(statusLine)
    }

    /// Availability, discovery and the newest state, whatever the broker holds (after a
    /// (re)connection, on SIGHUP): not limited by `republish_min_interval_s`.
    private func republishAll() {
        guard brokerConnected else { return }
        availabilityPublished = nil
        updateAvailability()
        publishDiscovery(now: clinux_monotonic_ns())
        if let latest { publish(schedule.republish(latest, now: clinux_monotonic_ns())) }
    }

    /// The six configs, once the daemon's count is known (before it, the `number`'s `max` would
    /// be a retained guess); with no daemon yet, they go out with its first STATE. Each retired
    /// entity's config is cleared with them (an empty retained message).
    private func publishDiscovery(now: Int64) {
        discoveryDue = nil
        guard let discovery, brokerConnected, let count = latest?.count else { return }
        for (topic, payload) in discovery.messages(count: count) { send(topic, payload, retain: true) }
        for topic in discovery.retiredConfigTopics { send(topic, [], retain: true) }
        discoveryCount = count
        discoveryPublishedAt = now
    }

    /// Home Assistant said `online`: the configs again, at once if the last time is at least
    /// `republish_min_interval_s` ago, else once at the end of that interval (however many
    /// `online` arrive meanwhile).
    private func homeAssistantOnline(now: Int64) {
        guard discoveryDue == nil else { return }
        let earliest = (discoveryPublishedAt ?? .min / 2) + discoveryInterval
        if now >= earliest {
            log.info("Home Assistant is online: republishing discovery")
            publishDiscovery(now: now)
        } else {
            discoveryDue = earliest
            log.info("Home Assistant is online: republishing discovery in \(Self.seconds(Double(earliest - now) / 1e9)) s "
                     + "(at most once per \(Self.seconds(Double(discoveryInterval) / 1e9)) s)")
        }
    }

    private func handleBrokerMessage(_ message: MosquittoMessage) {
        if let discovery, message.topic == discovery.statusTopic {
            if message.payload == BridgeTopics.online, !message.isCut { homeAssistantOnline(now: clinux_monotonic_ns()) }
            return
        }
        guard let command = topics.command(forTopic: message.topic) else { return }
        if message.payloadLength == 0 {
            // `mosquitto_pub -r -n` clears a retained command: the broker passes the empty
            // payload on to current subscribers, and it is not a command.
            log.debug("\(message.topic): empty payload (a cleared retained message), ignored")
            return
        }
        if message.isCut {
            publishError(topic: message.topic, payload: message.payload, payloadLength: message.payloadLength,
                         message: "a payload of \(message.payloadLength) bytes, over the \(Self.maximumPayloadBytes)-byte limit; refused unread")
            return
        }
        let shown = Self.shown(message.payload)
        if message.retain {
            // A retained command would run again on every reconnection.
            publishError(topic: message.topic, payload: message.payload,
                         message: "ignoring a retained command: publish commands without the retain flag")
            return
        }
        let request: Request
        do { request = try command.request(payload: message.payload) } catch {
            publishError(topic: message.topic, payload: message.payload, message: error.message)
            return
        }
        guard case .connected = daemonLink, daemon.isOpen else {
            publishError(topic: message.topic, payload: message.payload,
                         message: "carouseld is not reachable on \(configuration.socketPath); command dropped")
            return
        }
        guard pendingCommands.count < Self.pendingCommandLimit else {
            publishError(topic: message.topic, payload: message.payload,
                         message: "\(Self.pendingCommandLimit) commands are already waiting for carouseld; command dropped")
            return
        }
        guard daemon.send(request.jsonLine) else {
            publishError(topic: message.topic, payload: message.payload,
                         message: "carouseld is not reading its socket; command dropped")
            return
        }
        pendingCommands.append((request.cmd, message.topic, message.payload))
        // Debug only: a command flood must not become a log flood (errors are rate-limited).
        log.debug("\(message.topic) '\(shown)' → \(request.cmd)")
    }

    // MARK: Publishing

    private func offer(_ state: BridgeState) {
        latest = state
        if let discovery, brokerConnected, let published = discoveryCount, published != state.count {
            let (topic, payload) = discovery.indexNumber(count: state.count)
            send(topic, payload, retain: true)
            discoveryCount = state.count
        }
        guard brokerConnected, !stateWaitsForAcknowledgements else { return }
        if let now = schedule.offer(state, now: clinux_monotonic_ns()) { publish(now) }
    }

    private func publish(_ state: BridgeState) {
        if inFlight.count >= Self.inFlightLimit {
            if !stateWaitsForAcknowledgements { log.warning("the broker acknowledges slowly: \(inFlight.count) publications in flight; state updates wait") }
            stateWaitsForAcknowledgements = true
            return
        }
        send(topics.state, state.payload, retain: true)
    }

    private func updateAvailability() {
        guard brokerConnected else { return }
        let online = daemonReady
        guard availabilityPublished != online else { return }
        send(topics.availability, online ? BridgeTopics.online : BridgeTopics.offline, retain: true)
        availabilityPublished = online
        log.info("availability \(online ? "online" : "offline")")
    }

    /// One `error` publication and one warning line, within `errorBudget` and `inFlightLimit`;
    /// beyond them the error is only counted (`reportDroppedErrors`).
    private func publishError(topic: String, payload: [UInt8], payloadLength: Int? = nil, message: String) {
        guard errorBudget.admit(now: clinux_monotonic_ns()) else { return }
        log.warning("\(topic) '\(Self.shown(payload))': \(message)")
        guard inFlight.count < Self.inFlightLimit else {
            log.warning("the broker takes publications slowly (\(inFlight.count) in flight): this error is not published")
            return
        }
        send(topics.error, BridgeErrorPayload.encode(topic: topic, payload: payload, payloadLength: payloadLength, message: message),
             retain: false)
    }

    /// One line a second at most for the command errors over the budget.
    private var droppedErrorsReportedAt: Int64 = 0
    private func reportDroppedErrors(now: Int64) {
        guard errorBudget.refused > 0, now - droppedErrorsReportedAt >= 1_000_000_000 else { return }
        droppedErrorsReportedAt = now
        let dropped = errorBudget.takeRefused()
        log.warning("\(dropped) more command error\(dropped == 1 ? "" : "s") neither published nor logged "
                    + "(at most \(Self.errorBurst) at once and \(WireJSONWriter.format(Self.errorRatePerSecond)) a second)")
    }

    private func send(_ topic: String, _ payload: [UInt8], retain: Bool) {
        guard brokerConnected else { return }
        do {
            // QoS 0 too: libmosquitto reports it published once it is written to the socket.
            inFlight.insert(try mqtt.publish(topic: topic, payload: payload, qos: qos, retain: retain))
        } catch {
            log.warning("\(error)")
        }
    }

    /// A payload for a log line (`LogPayloadText`).
    static func shown(_ payload: [UInt8]) -> String { LogPayloadText.shown(payload) }

    private var statusLine: String {
        "broker \(brokerConnected ? "connected" : "unreachable"), carouseld \(daemonReady ? "connected" : "unreachable")"
    }

    // MARK: Stopping

    /// Publishes `offline` (a clean DISCONNECT suppresses the will) and disconnects, waiting at
    /// most 2 s for the broker to take it.
    private func shutDown() {
        _ = notifier.stopping(status: "stopping")
        log.notice("stopping: publishing offline")
        guard brokerConnected else { return }
        send(topics.availability, BridgeTopics.offline, retain: true)
        do { try mqtt.disconnect() } catch { log.debug("\(error)") }
        let deadline = clinux_monotonic_ns() + 2_000_000_000
        while let fd = mqtt.socketDescriptor, clinux_monotonic_ns() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN) | (mqtt.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
            _ = poll(&p, 1, 100)
            if p.revents & Int16(POLLOUT) != 0 { try? mqtt.loopWrite() }
            if p.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 { try? mqtt.loopRead() }
            if !mqtt.wantsWrite { try? mqtt.loopMisc() }
        }
    }
}
