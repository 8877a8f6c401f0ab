import CMosquitto

/// libmosquitto's own checks of what may go into an MQTT packet, so a configuration is refused
/// when it is read rather than by the broker or by libmosquitto once connected.
public enum MosquittoText {
    /// Whether `text` is a valid MQTT UTF-8 string (`mosquitto_validate_utf8`): at most 65,535
    /// bytes, no U+0000, no control characters (U+0001…U+001F, U+007F…U+009F, e.g. U+0085) and
    /// no non-characters (U+FDD0…U+FDEF, U+xFFFE, U+xFFFF, e.g. U+FFFF).
    public static func isValidUTF8(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 65535 else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                mosquitto_validate_utf8($0.baseAddress, Int32($0.count)) == Int32(MOSQ_ERR_SUCCESS.rawValue)
            }
        }
    }

    /// Whether `topic` may be published to (`mosquitto_pub_topic_check2` and valid UTF-8): not
    /// empty, no `+` or `#`.
    public static func isPublishableTopic(_ topic: String) -> Bool {
        guard !topic.isEmpty, isValidUTF8(topic) else { return false }
        let bytes = Array(topic.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                mosquitto_pub_topic_check2($0.baseAddress, $0.count) == Int32(MOSQ_ERR_SUCCESS.rawValue)
            }
        }
    }
}
