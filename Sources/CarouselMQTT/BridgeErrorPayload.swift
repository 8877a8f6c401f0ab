import CarouselProtocol

/// The JSON published on `<base>/error`: `{"topic","payload","message"}` (not retained).
public enum BridgeErrorPayload {
    /// At most this many bytes of the offending payload are echoed back.
    public static let payloadEchoLimit = 256

    /// The encoded object. A payload that is not UTF-8 is shown with U+FFFD for the bad bytes.
    /// - Parameter payloadLength: the payload's length as published, when `payload` holds only
    ///   its start (`MosquittoMessage.isCut`); the echo then ends with `…` too.
    public static func encode(topic: String, payload: [UInt8], payloadLength: Int? = nil, message: String) -> [UInt8] {
        var shown = String(decoding: payload.prefix(payloadEchoLimit), as: UTF8.self)
        if max(payload.count, payloadLength ?? 0) > payloadEchoLimit { shown += "…" }
        var w = WireJSONWriter()
        w.beginObject()
        w.key("topic"); w.string(topic)
        w.key("payload"); w.string(shown)
        w.key("message"); w.string(message)
        w.endObject()
        return w.bytes
    }
}
