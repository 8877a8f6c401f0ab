/// An MQTT payload as the bridge shows it in a log line (docs/MQTT.md "Logging"): at most
/// `limit` bytes, decoded as UTF-8 (invalid bytes as U+FFFD), with an unambiguous escape so a
/// hostile payload can neither break the line nor forge one:
///
/// - a C0 control character, DEL or a C1 control character (U+0080…U+009F, which some
///   terminals read as escapes too) becomes `\x` and always two lowercase hex digits (newline
///   `\x0a`, ESC `\x1b`, U+009B `\x9b`), so `\x1` followed by the text `b` cannot be mistaken
///   for ESC;
/// - a backslash becomes `\\`, so the text `\x0a` in a payload shows as `\\x0a`, not as an
///   escaped newline;
/// - a payload longer than `limit` ends with `…`.
///
/// Decoding back: `\\` is one backslash, `\xHH` the character U+00HH; nothing else starts with `\`.
enum LogPayloadText {
    /// The most payload bytes shown.
    static let limit = 64

    /// Text from carouseld (its `release`, an ERROR's message, a sensor status) shows at most
    /// this many bytes: the daemon's socket is trusted no more than the broker.
    static let daemonTextLimit = 128

    /// `text` escaped like a payload, at most `daemonTextLimit` bytes.
    static func shown(daemonText text: String) -> String { shown(Array(text.utf8), limit: daemonTextLimit) }

    static func shown(_ payload: [UInt8], limit: Int = LogPayloadText.limit) -> String {
        var text = ""
        for scalar in String(decoding: payload.prefix(limit), as: UTF8.self).unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                text += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else if scalar == "\\" {
                text += "\\\\"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return payload.count > limit ? text + "…" : text
    }
}
