/// An MQTT payload as the bridge shows it in a log line (docs/MQTT.md "Logging"): at most
/// `limit` bytes, decoded as UTF-8 (invalid bytes as U+FFFD), with an unambiguous escape so a
/// hostile payload can neither break the line nor forge one:
///
/// - a C0 control character or DEL becomes `\x` and always two lowercase hex digits
///   (newline `\x0a`, ESC `\x1b`), so `\x1` followed by the text `b` cannot be mistaken for ESC;
/// - a backslash becomes `\\`, so the text `\x0a` in a payload shows as `\\x0a`, not as an
///   escaped newline;
/// - a payload longer than `limit` ends with `…`.
///
/// Decoding back: `\\` is one backslash, `\xHH` the byte HH; nothing else starts with `\`.
enum LogPayloadText {
    /// The most payload bytes shown.
    static let limit = 64

    static func shown(_ payload: [UInt8]) -> String {
        var text = ""
        for scalar in String(decoding: payload.prefix(limit), as: UTF8.self).unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
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
