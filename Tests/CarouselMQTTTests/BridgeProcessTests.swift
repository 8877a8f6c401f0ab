import CLinux
import CarouselMQTT
import CarouselProtocol
import CarouselTestSupport
import Mosquitto
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto (ephemeral 127.0.0.1 port), a real carouseld and the built carousel-mqtt,
/// observed through the `Mosquitto` wrapper itself as a test client. tests/mqtt/run covers the
/// rest (TLS, passwords, restarts, discovery) with Debian's mosquitto clients.
@Suite(.serialized) struct BridgeProcessTests {
    /// A free TCP port on 127.0.0.1 (bound to 0, read back, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestSupportError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// mosquitto on `port`, waiting until it listens.
    static func broker(port: Int) throws -> DaemonProcess {
        let path = "/usr/sbin/mosquitto"
        guard access(path, X_OK) == 0 else {
            throw TestSupportError("\(path) is missing: install Debian's mosquitto (scripts/bootstrap)")
        }
        let conf = TestTemp.path("mosquitto.conf")
        try TestTemp.write((getuid() == 0 ? "user root\n" : "") + "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n", to: conf)
        let process = try DaemonProcess(executable: path, arguments: ["-c", conf], logPath: TestTemp.path("mosquitto.log"))
        try process.waitForLog(containing: "Opening ipv4 listen socket on port \(port)")
        return process
    }

    /// A test subscriber: the wrapper driven by `poll(2)`, as the bridge drives it.
    final class Subscriber {
        let client: MosquittoClient
        var messages: [MosquittoMessage] = []

        init(port: Int, topics: [String]) throws {
            client = try MosquittoClient(clientID: "carousel-mqtt-test-\(getpid())-\(port)-\(topics.count)")
            try client.connect(host: "127.0.0.1", port: port, keepaliveSeconds: 10)
            try pump(seconds: 5) { events in events.contains { if case .connected(0, _) = $0 { true } else { false } } }
            for topic in topics { try client.subscribe(topic, qos: .atLeastOnce) }
        }

        /// Drives the session until `done` holds for the events so far or `seconds` pass.
        func pump(seconds: Double, until done: ([MosquittoEvent]) -> Bool) throws {
            let deadline = clinux_monotonic_ns() + Int64(seconds * 1e9)
            var events: [MosquittoEvent] = []
            while clinux_monotonic_ns() < deadline {
                guard let fd = client.socketDescriptor else { throw TestSupportError("the test client lost the broker") }
                var p = pollfd(fd: fd, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
                _ = poll(&p, 1, 50)
                if p.revents & Int16(POLLOUT) != 0 { try client.loopWrite() }
                if p.revents & Int16(POLLIN) != 0 { try client.loopRead() }
                try client.loopMisc()
                for event in client.takeEvents() {
                    events.append(event)
                    if case let .message(m) = event { messages.append(m) }
                }
                if done(events) { return }
            }
            throw TestSupportError("timed out after \(seconds) s; messages: \(messages.suffix(5).map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" })")
        }

        /// Waits for a message on `topic` whose payload satisfies `match`.
        @discardableResult
        func await(_ topic: String, seconds: Double = 10, _ match: (MosquittoMessage) -> Bool) throws -> MosquittoMessage {
            if let m = messages.first(where: { $0.topic == topic && match($0) }) { return m }
            try pump(seconds: seconds) { _ in messages.contains { $0.topic == topic && match($0) } }
            guard let m = messages.first(where: { $0.topic == topic && match($0) }) else { throw TestSupportError("no message on \(topic)") }
            return m
        }

        func publish(_ topic: String, _ payload: String) throws {
            try client.publish(topic: topic, payload: Array(payload.utf8), qos: .atLeastOnce, retain: false)
        }
    }

    static func text(_ m: MosquittoMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

    /// Two bridges with one `[device] id` (two kiosks cloned with one host name) share a client
    /// id, and mosquitto closes the older session whenever the other connects. Each bridge must
    /// treat those short connections as one failure streak: its backoff grows (here to 1 s), its
    /// "lost the broker" warning comes once, and one warning names the client id. Without the
    /// streak each would reconnect every 0.1–0.2 s with a warning every time.
    @Test func twoBridgesWithOneClientIDBackOffAndNameIt() throws {
        let port = try Self.freePort()
        let broker = try Self.broker(port: port)
        defer { broker.signal(SIGKILL); _ = try? broker.wait() }
        let bridgeConf = TestTemp.path("twin-bridge.conf")
        try TestTemp.write("""
        [daemon]
        socket = \(TestTemp.path("twin-no-daemon.sock"))
        [broker]
        host = 127.0.0.1
        port = \(port)
        reconnect_min_s = 0.2
        reconnect_max_s = 1
        [device]
        id = twin

        """, to: bridgeConf)
        // -v: the losses logged at debug level are counted too.
        let bridges = try (1...2).map { n in
            try DaemonProcess(executable: TestPaths.product("carousel-mqtt"), arguments: ["--config", bridgeConf, "-v"],
                              logPath: TestTemp.path("twin-bridge-\(n).log"))
        }
        defer { for bridge in bridges { bridge.signal(SIGKILL); _ = try? bridge.wait() } }
        _ = try bridges[0].waitForLog(containing: "another client may be connected with the client id 'carousel-mqtt-twin'")
        // Each bridge loses the session when the other connects, so one bridge's losses are a
        // wait of each backoff apart. Delays of 0.2 s doubling to 1 s, times [0.5, 1) of jitter:
        // from the 4th loss on, a bridge's own delay is at least 0.5 s and the other's at least
        // 0.4 s, so the 4th to the 6th loss of the first bridge take at least 2 · 0.9 = 1.8 s
        // (waits of 0.1–0.2 s without the growing backoff: 0.8 s at most).
        let fourth = try Self.timeOfLoss(4, of: bridges[0])
        let sixth = try Self.timeOfLoss(6, of: bridges[0])
        let seconds = Double(sixth - fourth) / 1e9
        #expect(seconds >= 1.4, "the 4th to the 6th loss took \(seconds) s: the backoff did not grow")
        _ = try Self.timeOfLoss(3, of: bridges[1])
        for bridge in bridges {
            let lost = Self.losses(bridge.log)
            let warned = lost.filter { $0.contains("warning: lost the broker") }
            #expect(warned.count <= 2, "\(warned.count) of \(lost.count) losses logged as warnings: \(bridge.log)")
        }
    }

    /// The lines of a bridge's log that report a lost broker connection (warnings and, with -v,
    /// debug lines).
    static func losses(_ log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains("lost the broker") }
    }

    /// The CLOCK_MONOTONIC time, ns, at which the test sees the `n`-th lost connection in the
    /// bridge's log (woken by inotify as the line is written); at most 30 s away.
    static func timeOfLoss(_ n: Int, of bridge: DaemonProcess) throws -> Int64 {
        try bridge.waitForLog("loss number \(n) ('lost the broker')", timeoutSeconds: 30) { losses($0).count >= n }
        return clinux_monotonic_ns()
    }

    @Test func stateCommandsAndTheLastWill() throws {
        let port = try Self.freePort()
        let broker = try Self.broker(port: port)
        defer { broker.signal(SIGKILL); _ = try? broker.wait() }
        let socketPath = TestTemp.path("bridge-daemon.sock")
        let daemonConf = TestTemp.path("bridge-daemon.conf")
        try TestTemp.write("""
        [sensor]
        source = iio
        device = carousel-mqtt-test-no-such-sensor
        [tilt]
        enabled = no
        [carousel]
        count = 10
        [server]
        socket = \(socketPath)
        socket_mode = 0666
        [calibration]
        file = /tmp/carousel-mqtt-test-no-calibration.conf

        """, to: daemonConf)
        let daemon = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", daemonConf, "--foreground"],
                                       logPath: TestTemp.path("bridge-daemon.log"))
        defer { daemon.signal(SIGKILL); _ = try? daemon.wait() }
        try daemon.waitForSocket(socketPath)
        let bridgeConf = TestTemp.path("bridge.conf")
        try TestTemp.write("""
        [daemon]
        socket = \(socketPath)
        [broker]
        host = 127.0.0.1
        port = \(port)
        keepalive_s = 5
        [device]
        id = swift.test

        """, to: bridgeConf)
        let bridge = try DaemonProcess(executable: TestPaths.product("carousel-mqtt"), arguments: ["--config", bridgeConf],
                                       logPath: TestTemp.path("bridge.log"))
        defer { bridge.signal(SIGKILL); _ = try? bridge.wait() }

        let sub = try Subscriber(port: port, topics: ["carouseld/swift_test/#"])
        try sub.await("carouseld/swift_test/availability") { Self.text($0) == "online" }
        let first = try sub.await("carouseld/swift_test/state") { _ in true }
        let state = try BridgeState(stateMessage: try WireJSONParser.parse(first.payload))
        #expect(state.index == 0 && state.count == 10 && state.position == 0 && state.phase == "idle")
        #expect(state.sensor == "absent" && !state.tiltEnabled)
        #expect(state.rollDeg == nil || state.rollDeg == 0)

        try sub.publish("carouseld/swift_test/set/index", "7")
        let rest = try sub.await("carouseld/swift_test/state") { m in
            (try? WireJSONParser.parse(m.payload)).map { $0["index"] == .number(7) && $0["phase"] == .string("idle") } ?? false
        }
        #expect(try WireJSONParser.parse(rest.payload)["position"] == .number(7))

        try sub.publish("carouseld/swift_test/set/count", "x")
        let error = try sub.await("carouseld/swift_test/error") { _ in true }
        #expect(try WireJSONParser.parse(error.payload) == .object([
            ("topic", .string("carouseld/swift_test/set/count")), ("payload", .string("x")),
            ("message", .string("expected an item count (a whole number)")),
        ]))
        #expect(!error.retain)

        // SIGKILL: no DISCONNECT, so the broker publishes the will (after about 1.5 × keepalive
        // at worst; on loopback the closed socket is noticed at once).
        bridge.signal(SIGKILL)
        _ = try bridge.wait()
        try sub.await("carouseld/swift_test/availability", seconds: 15) { Self.text($0) == "offline" }
    }
}
