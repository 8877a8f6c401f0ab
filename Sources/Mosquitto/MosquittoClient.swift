import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

/// An MQTT client session, wrapping `struct mosquitto *` (libmosquitto 2.0), driven by the
/// caller's own `poll(2)` loop rather than libmosquitto's thread (`mosquitto_loop_start`) or
/// blocking loop: the owner waits on `socketDescriptor` (readable, and writable when
/// `wantsWrite`), calls `loopRead()` / `loopWrite()` when it is ready and `loopMisc()` at least
/// once a second (keepalive PINGREQ), then handles `takeEvents()`. Everything happens on the
/// owner's thread, so there are no locks and no callbacks into the owner while libmosquitto is
/// in the middle of a call.
///
/// Errors are `MosquittoError` carrying the `MOSQ_ERR_*` code, described with
/// `mosquitto_strerror` (or `strerror` for `MOSQ_ERR_ERRNO`).
public final class MosquittoClient {
    private let handle: OpaquePointer
    private var events: [MosquittoEvent] = []
    /// Most payload bytes copied out of a received message; a longer payload is delivered with
    /// its first `maximumPayloadBytes` bytes and its full `payloadLength`, so a huge message
    /// costs one copy inside libmosquitto (freed after the callback) and none here.
    public var maximumPayloadBytes = Int.max

    /// `mosquitto_lib_init`, once per process (it seeds libmosquitto and initialises OpenSSL).
    private static let libraryReady: Bool = { mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue) }()

    /// The libmosquitto version, e.g. `2.0.11` (`mosquitto_lib_version`).
    public static var libraryVersion: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// A new session with MQTT client identifier `clientID` (MQTT 3.1.1; clean session: the
    /// broker keeps no subscriptions or queued messages for us between connections, which the
    /// bridge does not need since it resubscribes and republishes its retained state).
    /// - Throws: `MosquittoError` when libmosquitto cannot be initialised or refuses the id.
    public init(clientID: String) throws(MosquittoError) {
        guard Self.libraryReady else { throw MosquittoError("mosquitto_lib_init", code: Int32(MOSQ_ERR_UNKNOWN.rawValue)) }
        guard let made = mosquitto_new(clientID, true, nil) else {
            throw MosquittoError("mosquitto_new '\(clientID)'", code: Int32(MOSQ_ERR_ERRNO.rawValue), errno: Glibc.errno)
        }
        handle = made
        let me = Unmanaged.passUnretained(self).toOpaque()
        mosquitto_user_data_set(handle, me)
        mosquitto_connect_callback_set(handle) { _, userData, code in
            MosquittoClient.owner(userData)?.events.append(
                .connected(code: code, reason: mosquitto_connack_string(code).map { String(cString: $0) } ?? "code \(code)"))
        }
        mosquitto_disconnect_callback_set(handle) { _, userData, code in
            MosquittoClient.owner(userData)?.events.append(
                .disconnected(code: code, reason: code == 0 ? "disconnected" : MosquittoError.reason(code: code, errno: Glibc.errno)))
        }
        mosquitto_publish_callback_set(handle) { _, userData, messageID in
            MosquittoClient.owner(userData)?.events.append(.published(messageID: messageID))
        }
        mosquitto_log_callback_set(handle) { _, userData, level, text in
            // Only errors and warnings: they explain a failure (e.g. OpenSSL's "certificate
            // verify failed") that the return codes only call "A TLS error occurred".
            guard level & Int32(MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
            MosquittoClient.owner(userData)?.events.append(
                .log(isError: level & Int32(MOSQ_LOG_ERR) != 0, message: String(cString: text)))
        }
        mosquitto_message_callback_set(handle) { _, userData, message in
            guard let owner = MosquittoClient.owner(userData), let message = message?.pointee, let topic = message.topic else { return }
            var payload: [UInt8] = []
            let length = Int(max(0, message.payloadlen))
            if let bytes = message.payload, length > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: min(length, owner.maximumPayloadBytes)))
            }
            owner.events.append(.message(MosquittoMessage(
                topic: String(cString: topic), payload: payload, payloadLength: length,
                qos: MosquittoQoS(rawValue: message.qos) ?? .atMostOnce, retain: message.retain)))
        }
    }

    deinit { mosquitto_destroy(handle) }

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> MosquittoClient? {
        userData.map { Unmanaged<MosquittoClient>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ call: @autoclosure () -> String, _ code: Int32) throws(MosquittoError) {
        if code != Int32(MOSQ_ERR_SUCCESS.rawValue) { throw MosquittoError.returned(call(), code) }
    }

    /// The events since the last call, oldest first.
    public func takeEvents() -> [MosquittoEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: Options (before connecting)

    /// User name and password for the broker (`mosquitto_username_pw_set`); nil password sends
    /// only the name.
    public func setCredentials(username: String, password: String?) throws(MosquittoError) {
        try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, username, password))
    }

    /// The last will: what the broker publishes when this session ends without a DISCONNECT
    /// (crash, SIGKILL, lost network, missed keepalive) — `mosquitto_will_set`.
    public func setWill(topic: String, payload: [UInt8], qos: MosquittoQoS, retain: Bool) throws(MosquittoError) {
        let code = payload.withUnsafeBytes {
            mosquitto_will_set(handle, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain)
        }
        try check("mosquitto_will_set \(topic)", code)
    }

    /// TLS with the broker's CA certificate file (PEM) and optionally a client certificate and
    /// key (PEM, unencrypted), `mosquitto_tls_set`. The broker's certificate must match the host
    /// name connected to (libmosquitto verifies it; `mosquitto_tls_insecure_set` stays false).
    public func setTLS(caFile: String, certificateFile: String?, keyFile: String?) throws(MosquittoError) {
        try check("mosquitto_tls_set \(caFile)", mosquitto_tls_set(handle, caFile, nil, certificateFile, keyFile, nil))
        try check("mosquitto_tls_insecure_set", mosquitto_tls_insecure_set(handle, false))
    }

    // MARK: Connection

    /// Starts connecting to `host:port` without waiting for the TCP handshake
    /// (`mosquitto_connect_async`; the host name is resolved here, synchronously). The CONNECT
    /// packet goes out from `loopWrite()`; `.connected` reports the broker's answer.
    /// - Parameter keepaliveSeconds: the MQTT keepalive (5 … 65535).
    public func connect(host: String, port: Int, keepaliveSeconds: Int) throws(MosquittoError) {
        try check("connect to \(host):\(port)", mosquitto_connect_async(handle, host, Int32(port), Int32(keepaliveSeconds)))
    }

    /// Connects again with the settings of the last `connect` (`mosquitto_reconnect_async`).
    public func reconnect() throws(MosquittoError) {
        try check("reconnect", mosquitto_reconnect_async(handle))
    }

    /// Sends DISCONNECT (the broker then does not publish the will) and closes the socket once
    /// it is written (`mosquitto_disconnect`); `.disconnected(code: 0)` follows.
    public func disconnect() throws(MosquittoError) {
        try check("mosquitto_disconnect", mosquitto_disconnect(handle))
    }

    /// The connection's socket (`mosquitto_socket`), nil while there is none.
    public var socketDescriptor: Int32? {
        let fd = mosquitto_socket(handle)
        return fd >= 0 ? fd : nil
    }

    /// Whether output is waiting (`mosquitto_want_write`): poll the socket for writability too.
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Reads what the socket holds (`mosquitto_loop_read`). On a lost connection libmosquitto
    /// closes the socket and `.disconnected` is queued.
    public func loopRead() throws(MosquittoError) { try check("read from the broker", mosquitto_loop_read(handle, 1)) }

    /// Writes queued packets, or finishes the TCP/TLS handshake (`mosquitto_loop_write`).
    public func loopWrite() throws(MosquittoError) { try check("write to the broker", mosquitto_loop_write(handle, 1)) }

    /// Keepalive: sends PINGREQ when due and drops a connection whose PINGRESP is overdue
    /// (`mosquitto_loop_misc`). Call at least once a second while connected.
    public func loopMisc() throws(MosquittoError) { try check("keepalive", mosquitto_loop_misc(handle)) }

    // MARK: Messages

    /// Publishes `payload` on `topic` (`mosquitto_publish`) and returns the message id
    /// (`.published` reports its acknowledgement).
    /// - Throws: `MosquittoError` (`MOSQ_ERR_NO_CONN` while not connected: nothing is queued).
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: MosquittoQoS, retain: Bool) throws(MosquittoError) -> Int32 {
        var messageID: Int32 = 0
        let code = payload.withUnsafeBytes {
            mosquitto_publish(handle, &messageID, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain)
        }
        try check("publish \(topic)", code)
        return messageID
    }

    /// Subscribes to `pattern` (MQTT wildcards `+`, `#` allowed), `mosquitto_subscribe`.
    public func subscribe(_ pattern: String, qos: MosquittoQoS) throws(MosquittoError) {
        var messageID: Int32 = 0
        try check("subscribe \(pattern)", mosquitto_subscribe(handle, &messageID, pattern, qos.rawValue))
    }
}
