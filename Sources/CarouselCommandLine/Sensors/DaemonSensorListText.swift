import CarouselProtocol

/// The human-readable form of `carouselctl sensors` when carouseld answered: the same layout as
/// `SensorListText`, read from the `SENSORS` objects (docs/CLI.md "sensors") instead of `SensorInfo`.
enum DaemonSensorListText {
    /// One block per sensor, then where the list came from; "No IIO motion sensors found" when
    /// the list is empty.
    static func render(_ sensors: [WireJSON], socketPath: String) -> String {
        let origin = "via carouseld on \(socketPath)"
        if sensors.isEmpty { return "No IIO motion sensors found (\(origin)).\n" }
        func text(_ v: WireJSON?) -> String { TerminalText.visible(v?.stringValue ?? "") }
        func number(_ v: WireJSON?) -> String { v?.doubleValue.map { "\($0)" } ?? "unknown" }
        var out = ""
        for s in sensors {
            let path = text(s["path"])
            let id = path.split(separator: "/").last.map(String.init) ?? path
            let label = text(s["label"])
            out += "\(id): \(text(s["name"]))" + (label.isEmpty ? "" : " [\(label)]") + " (\(text(s["type"])))\n"
            out += "  path: \(path)\n"
            let dev = text(s["dev"])
            if !dev.isEmpty { out += "  dev: \(dev)\n" }
            out += "  channels:\n"
            for c in s["channels"]?.arrayValue ?? [] {
                let index = c["index"]?.intValue.map { "index \($0)" } ?? "not buffered"
                let type = c["type"]?.stringValue ?? "-"
                out += "    \(text(c["name"])): \(index), type \(type), scale \(number(c["scale"])), offset \(number(c["offset"]))\n"
            }
            let rows = (s["mount_matrix"]?.arrayValue ?? []).map { row in
                // As MountMatrix prints it (the direct listing): integral entries without ".0".
                (row.arrayValue ?? []).map { v in
                    guard let d = v.doubleValue else { return "?" }
                    return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
                }.joined(separator: ", ")
            }
            out += "  mount matrix: \(rows.joined(separator: "; ")) (\(text(s["mount_matrix_source"])))\n"
            out += "  sampling frequency: \(s["sampling_frequency_hz"]?.doubleValue.map { "\($0) Hz" } ?? "unknown")"
            let available = (s["sampling_frequency_available_hz"]?.arrayValue ?? []).map { number($0) }
            if !available.isEmpty { out += " (available: \(available.joined(separator: " ")))" }
            out += "\n  buffered: \(s["buffered"]?.boolValue == true ? "yes" : "no")"
            let triggers = (s["triggers"]?.arrayValue ?? []).map { text($0) }
            out += triggers.isEmpty ? "\n" : ", triggers: \(triggers.joined(separator: ", "))\n"
            for w in s["warnings"]?.arrayValue ?? [] { out += "  warning: \(text(w))\n" }
        }
        return out + "(\(origin))\n"
    }
}
