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
/// again with exponential backoff. Everything it holds is bounded: the newest state (one),
/// the commands waiting for the daemon's answer (`pendingCommandLimit`), the request bytes for
/// the daemon (`DaemonConnection.outputLimit`) and the QoS > 0 publications the broker has not
/// acknowledged (`inFlightLimit`, past which state publications wait and coalesce).
public final class Bridge {
    /// Commands sent to carouseld whose ACK/ERROR has not arrived.
    public static let pendingCommandLimit = 64
    /// Unacknowledged QoS 1/2 publications before state publications wait.
    public static let inFlightLimit = 64

    private enum BrokerLink { case waiting(until: Int64), connecting, connected }
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
    /// The count in the last published Home Assistant `number` config.
    private var discoveryCount: Int?
    private var pendingCommands: [(cmd: String, topic: String, payload: [UInt8])] = []
    private var inFlight: Set<Int32> = []
    /// A state publication skipped because of `inFlightLimit`.
    private var stateWaitsForAcknowledgements = false
    private var brokerFailuresLogged = 0
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
        mqtt = try MosquittoClient(clientID: configuration.effectiveClientID)
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
        _ = notifier.ready(status: "starting")
        while true {
            let now = clinux_monotonic_ns()
            if case let .waiting(until) = daemonLink, now >= until { connectDaemon(now: now) }
            if case let .waiting(until) = broker, now >= until { connectBroker(now: now) }
            if brokerConnected, !stateWaitsForAcknowledgements, let state = schedule.due(now: now) { publish(state) }

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
        _ = daemon.send(Request.watch(WatchRequest(enable: true, items: false, maxRateHz: watchRateHz)).jsonLine)
        log.info("connected to carouseld on \(configuration.socketPath)")
    }

    /// The rate asked of the daemon: fast enough that a command's effect or a rest arrives
    /// within 50 ms, and at least the publishing rate; the bridge throttles further itself.
    private var watchRateHz: Double { max(20, configuration.positionMaximumRateHz) }

    private func serviceDaemon(_ events: Int16) {
        do {
            if events & Int16(POLLOUT) != 0 { try daemon.flush() }
            if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                for message in try daemon.receive() { handleDaemon(message) }
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
        log.warning("lost carouseld (\(why)); publishing offline, reconnecting in \(Self.seconds(seconds)) s")
        daemonFailuresLogged = 1
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
            let release = message["release"]?.stringValue ?? "?"
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
                if badStates % 100 == 0 { log.warning("ignoring a STATE the bridge cannot read: \(error)") }
                badStates += 1
                return
            }
            if latest == nil {
                daemonBackoff.reset()
                daemonFailuresLogged = 0
                log.notice("carouseld ready: index \(state.index.map(String.init) ?? "none") of \(state.count), sensor \(state.sensor)")
                latest = state
                updateAvailability()
                _ = notifier.status(statusLine)
            }
            offer(state)
        case "SENSOR":
            guard let status = message["status"]?.stringValue else { return }
            let detail = message["message"]?.stringValue.map { ": " + $0 } ?? ""
            if var state = latest, state.sensor != status {
                log.notice("sensor status \(status)\(detail)")
                state.sensor = status
                offer(state)
            }
        case "ACK":
            _ = takePending(cmd: message["cmd"]?.stringValue)
        case "ERROR":
            let code = message["code"]?.stringValue ?? "?"
            let text = message["message"]?.stringValue ?? ""
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

    private func handle(disconnectReason reason: String) {
        if case .waiting = broker { return }
        let wasConnected = brokerConnected
        inFlight.removeAll()
        stateWaitsForAcknowledgements = false
        availabilityPublished = nil
        lastBrokerError = nil
        if wasConnected { brokerFailuresLogged = 0 }
        brokerFailed(wasConnected ? "lost the broker \(brokerName) (\(reason))"
                                  : "cannot connect to the broker \(brokerName): \(reason)", now: clinux_monotonic_ns())
    }

    private func brokerUp() {
        broker = .connected
        brokerBackoff.reset()
        brokerFailuresLogged = 0
        log.notice("connected to the broker \(brokerName) as '\(configuration.effectiveClientID)'")
        var patterns = [topics.base + "/set/+", topics.command(.recenter)]
        if let discovery { patterns.append(discovery.statusTopic) }
        for pattern in patterns {
            do { try mqtt.subscribe(pattern, qos: qos) } catch { log.warning("\(error)") }
        }
        republishAll()
        _ = notifier.status(statusLine)
    }

    /// Availability, discovery and the newest state, whatever the broker holds.
    private func republishAll() {
        guard brokerConnected else { return }
        availabilityPublished = nil
        updateAvailability()
        publishDiscovery()
        if let latest { publish(schedule.republish(latest, now: clinux_monotonic_ns())) }
    }

    private func publishDiscovery() {
        guard let discovery else { return }
        let count = latest?.count ?? 0
        for (topic, payload) in discovery.messages(count: count) { send(topic, payload, retain: true) }
        discoveryCount = count
    }

    private func handleBrokerMessage(_ message: MosquittoMessage) {
        if let discovery, message.topic == discovery.statusTopic {
            if message.payload == BridgeTopics.online {
                log.info("Home Assistant is online: republishing discovery")
                publishDiscovery()
            }
            return
        }
        guard let command = topics.command(forTopic: message.topic) else { return }
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
        log.info("\(message.topic) '\(shown)' → \(request.cmd)")
    }

    // MARK: Publishing

    private func offer(_ state: BridgeState) {
        latest = state
        if let discovery, brokerConnected, discoveryCount != state.count {
            let (topic, payload) = discovery.indexNumber(count: state.count)
            send(topic, payload, retain: true)
            discoveryCount = state.count
        }
        guard brokerConnected, !stateWaitsForAcknowledgements else { return }
        if let now = schedule.offer(state, now: clinux_monotonic_ns()) { publish(now) }
    }

    private func publish(_ state: BridgeState) {
        if qos != .atMostOnce, inFlight.count >= Self.inFlightLimit {
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

    private func publishError(topic: String, payload: [UInt8], message: String) {
        log.warning("\(topic) '\(Self.shown(payload))': \(message)")
        send(topics.error, BridgeErrorPayload.encode(topic: topic, payload: payload, message: message), retain: false)
    }

    private func send(_ topic: String, _ payload: [UInt8], retain: Bool) {
        guard brokerConnected else { return }
        do {
            let id = try mqtt.publish(topic: topic, payload: payload, qos: qos, retain: retain)
            if qos != .atMostOnce { inFlight.insert(id) }
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
