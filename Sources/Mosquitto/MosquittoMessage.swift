/// An MQTT application message received from the broker (a copy of libmosquitto's
/// `struct mosquitto_message`, which is only valid during the callback).
public struct MosquittoMessage: Sendable, Equatable {
    public var topic: String
    /// The payload bytes as published (MQTT payloads need not be UTF-8), at most the
    /// receiving client's `maximumPayloadBytes` of them.
    public var payload: [UInt8]
    /// The length of the payload as published, bytes (more than `payload.count` when it was cut).
    public var payloadLength: Int
    public var qos: MosquittoQoS
    /// Whether the broker delivered it from its retained store (a message published with the
    /// retain flag before this subscription).
    public var retain: Bool

    public init(topic: String, payload: [UInt8], payloadLength: Int? = nil, qos: MosquittoQoS, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.payloadLength = payloadLength ?? payload.count
        self.qos = qos
        self.retain = retain
    }

    /// Whether the payload was longer than the client copies (`payloadLength > payload.count`).
    public var isCut: Bool { payloadLength > payload.count }
}

/// MQTT's quality of service of a publication or subscription.
public enum MosquittoQoS: Int32, Sendable, CaseIterable {
    /// At most once: no acknowledgement.
    case atMostOnce = 0
    /// At least once: PUBACK; a message may arrive twice.
    case atLeastOnce = 1
    /// Exactly once: the four-packet PUBREC/PUBREL/PUBCOMP handshake.
    case exactlyOnce = 2
}

/// What happened inside libmosquitto during a `loopRead`, `loopWrite` or `loopMisc` call,
/// queued in order and handed out by `MosquittoClient.takeEvents()`.
public enum MosquittoEvent: Sendable, Equatable {
    /// The broker answered CONNECT: `code` 0 is success, else the CONNACK refusal code;
    /// `reason` is `mosquitto_connack_string(code)`.
    case connected(code: Int32, reason: String)
    /// The connection ended: `code` 0 after our own `disconnect()`, else the `MOSQ_ERR_*`
    /// cause (`MOSQ_ERR_CONN_LOST`, `MOSQ_ERR_KEEPALIVE`, …); the socket is closed.
    case disconnected(code: Int32, reason: String)
    case message(MosquittoMessage)
    /// A QoS 1/2 publication with this message id was acknowledged (QoS 0: handed to the socket).
    case published(messageID: Int32)
    /// libmosquitto's own error or warning line (`mosquitto_log_callback_set`), e.g. the OpenSSL
    /// reason of a failed TLS handshake.
    case log(isError: Bool, message: String)
}
