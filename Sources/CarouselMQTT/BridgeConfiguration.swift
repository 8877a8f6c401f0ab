/// carousel-mqtt's settings (`configs/carousel-mqtt.conf` documents every key with its unit and
/// default; `BridgeConfigurationLoader` reads them). The defaults here are the file's.
public struct BridgeConfiguration: Sendable, Equatable {
    /// `[daemon] socket`: carouseld's Unix socket.
    public var socketPath = "/run/carouseld/carouseld.sock"
    /// `[daemon] reconnect_min_s`, `reconnect_max_s`: backoff while the daemon is unreachable, seconds.
    public var daemonReconnectMinimumSeconds = 0.5
    public var daemonReconnectMaximumSeconds = 5.0
    /// `[daemon] liveness_timeout_s`: carouseld is taken as gone (`offline`, reconnect) when it
    /// has sent nothing for this long; the bridge sends a `poll` after half of it, seconds.
    public var daemonLivenessTimeoutSeconds = 10.0

    /// `[broker] host`.
    public var brokerHost = "localhost"
    /// `[broker] port`; nil: 1883, or 8883 with TLS (`effectivePort`).
    public var brokerPort: Int?
    /// `[broker] username`; nil: connect without credentials.
    public var username: String?
    /// `[broker] password_file`: the password is its first line (without the newline).
    public var passwordFile: String?
    /// The configuration line that sets `password_file` (nil when built in code), so that an
    /// error reading the password names it.
    public var passwordFileLine: Int?
    /// `[broker] ca_file`: TLS is on when set (PEM CA certificate that signed the broker's).
    public var caFile: String?
    /// `[broker] cert_file`, `key_file`: client certificate and key for TLS client authentication.
    public var certificateFile: String?
    public var keyFile: String?
    /// `[broker] client_id`; nil: `carousel-mqtt-<device_id>` (`effectiveClientID`).
    public var clientID: String?
    /// `[broker] qos`: 0, 1 or 2, for everything published and subscribed.
    public var qos = 1
    /// `[broker] keepalive_s`: MQTT keepalive, seconds (5 … 65535).
    public var keepaliveSeconds = 60
    /// `[broker] reconnect_min_s`, `reconnect_max_s`: backoff while the broker is unreachable, seconds.
    public var brokerReconnectMinimumSeconds = 1.0
    public var brokerReconnectMaximumSeconds = 30.0

    /// `[device] id`, already reduced to `[A-Za-z0-9_-]`; default: the host name.
    public var deviceID: String
    /// `[device] id` as written, when it is set and differs from `deviceID` (characters were
    /// replaced): another device whose id reduces to the same would share its topics and client id.
    public var deviceIDAsWritten: String? {
        get { writtenDeviceID }
        set { writtenDeviceID = newValue == deviceID ? nil : newValue }
    }
    private var writtenDeviceID: String?
    /// `[device] topic_prefix`: first topic level(s), default `carouseld`.
    public var topicPrefix = "carouseld"

    /// `[publish] position_max_hz`: most state publications per second while moving (0: only
    /// discrete changes), default 2.
    public var positionMaximumRateHz = 2.0

    /// `[homeassistant] enabled`: publish Home Assistant discovery, default yes.
    public var homeAssistantEnabled = true
    /// `[homeassistant] discovery_prefix`, default `homeassistant`.
    public var discoveryPrefix = "homeassistant"
    /// `[homeassistant] republish_min_interval_s`: the configs are published again at most once
    /// per this many seconds, whatever arrives on `<discovery_prefix>/status`, default 60.
    public var discoveryRepublishMinimumIntervalSeconds = 60.0

    public init(deviceID: String) {
        self.deviceID = DeviceIdentifier.sanitized(deviceID)
        deviceIDAsWritten = deviceID
    }

    /// TLS is on exactly when a CA file is configured.
    public var usesTLS: Bool { caFile != nil }
    /// `port`, else 8883 with TLS and 1883 without.
    public var effectivePort: Int { brokerPort ?? (usesTLS ? 8883 : 1883) }
    /// `client_id`, else `carousel-mqtt-<device_id>`.
    public var effectiveClientID: String { clientID ?? "carousel-mqtt-" + deviceID }
    public var topics: BridgeTopics { BridgeTopics(topicPrefix: topicPrefix, deviceID: deviceID) }
}
