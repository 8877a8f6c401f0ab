/// JSON for `carouselctl sensors --json` and the protocol's `SENSORS` reply (docs/CLI.md "sensors"),
/// written by hand so that IIOSensors needs no Foundation; numbers are finite and never `-0`.
extension SensorInfo {
    /// The sensor as one JSON object (keys: name, label, path, dev, type, channels, mount_matrix,
    /// mount_matrix_source, sampling_frequency_hz, sampling_frequency_available_hz, buffered,
    /// triggers, warnings).
    public var jsonObject: String {
        var fields: [String] = []
        fields.append("\"name\":\(jsonString(name))")
        fields.append("\"label\":\(jsonString(label))")
        fields.append("\"path\":\(jsonString(path))")
        fields.append("\"dev\":\(jsonString(dev))")
        fields.append("\"type\":\(jsonString(kind.rawValue))")
        let channelObjects = channels.map { c in
            "{\"name\":\(jsonString(c.name)),\"index\":\(c.index.map(String.init) ?? "null"),"
                + "\"type\":\(c.type.map(jsonString) ?? "null"),\"scale\":\(jsonNumber(c.scale)),\"offset\":\(jsonNumber(c.offset))}"
        }
        fields.append("\"channels\":[\(channelObjects.joined(separator: ","))]")
        let rows = mountMatrix.rowArrays.map { "[" + $0.map(jsonNumber).joined(separator: ",") + "]" }
        fields.append("\"mount_matrix\":[\(rows.joined(separator: ","))]")
        fields.append("\"mount_matrix_source\":\(jsonString(mountMatrixSource.rawValue))")
        fields.append("\"sampling_frequency_hz\":\(samplingFrequencyHz.map(jsonNumber) ?? "null")")
        fields.append("\"sampling_frequency_available_hz\":[\(samplingFrequencyAvailableHz.map(jsonNumber).joined(separator: ","))]")
        fields.append("\"buffered\":\(buffered)")
        fields.append("\"triggers\":[\(triggers.map(jsonString).joined(separator: ","))]")
        fields.append("\"warnings\":[\(warnings.map(jsonString).joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A JSON array of sensors (`[]` when empty).
    public static func jsonArray(_ sensors: [SensorInfo]) -> String {
        "[" + sensors.map(\.jsonObject).joined(separator: ",") + "]"
    }
}

/// A JSON number: shortest round-trip form, `-0` as `0`, non-finite as `null`.
func jsonNumber(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    if v == 0 { return "0" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return v.description
}

/// A JSON string literal with the required escapes.
func jsonString(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}
