/// Identifiers that go into topics and Home Assistant object ids.
public enum DeviceIdentifier {
    /// `text` with every character outside `[A-Za-z0-9_-]` replaced by `_` (one `_` per
    /// Unicode scalar), so it is one topic level without wildcards and a valid Home Assistant
    /// object id: `kiosk.lobby` → `kiosk_lobby`.
    public static func sanitized(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": result.unicodeScalars.append(scalar)
            default: result.append("_")
            }
        }
        return result
    }
}
