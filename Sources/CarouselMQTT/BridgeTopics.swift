/// The MQTT topics of one device, all under `<topic_prefix>/<device_id>/` (docs/MQTT.md):
/// `state` and `availability` (retained), `error`, and the command topics.
public struct BridgeTopics: Sendable, Equatable {
    /// `<topic_prefix>/<device_id>`.
    public let base: String

    public init(topicPrefix: String, deviceID: String) {
        base = topicPrefix + "/" + deviceID
    }

    /// Retained JSON state (`BridgeState.payload`).
    public var state: String { base + "/state" }
    /// Retained `online` / `offline`; `offline` is also the last will.
    public var availability: String { base + "/availability" }
    /// Not retained: `{topic, payload, message}` for a command that failed.
    public var error: String { base + "/error" }

    /// The topic of a command.
    public func command(_ command: BridgeCommand) -> String { base + "/" + command.rawValue }

    /// The command a received topic names, nil for any other topic.
    public func command(forTopic topic: String) -> BridgeCommand? {
        guard topic.hasPrefix(base + "/") else { return nil }
        return BridgeCommand(rawValue: String(topic.dropFirst(base.count + 1)))
    }

    /// The payloads of the availability topic.
    public static let online: [UInt8] = Array("online".utf8)
    public static let offline: [UInt8] = Array("offline".utf8)
}
