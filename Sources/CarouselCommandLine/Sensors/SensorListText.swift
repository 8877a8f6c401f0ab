import IIOSensors

/// The human-readable form of `carouselctl sensors`.
enum SensorListText {
    /// One block per sensor; "No IIO motion sensors found" when the list is empty.
    static func render(_ sensors: [SensorInfo], uri: String) -> String {
        if sensors.isEmpty { return "No IIO motion sensors found (\(uri)).\n" }
        var text = ""
        for s in sensors {
            text += "\(s.id): \(TerminalText.visible(s.name))" + (s.label.isEmpty ? "" : " [\(TerminalText.visible(s.label))]") + " (\(s.kind.rawValue))\n"
            text += "  path: \(TerminalText.visible(s.path))\n"
            if !s.dev.isEmpty { text += "  dev: \(s.dev)\n" }
            text += "  channels:\n"
            for c in s.channels {
                let index = c.index.map { "index \($0)" } ?? "not buffered"
                text += "    \(c.name): \(index), type \(c.type ?? "-"), scale \(c.scale), offset \(c.offset)\n"
            }
            text += "  mount matrix: \(s.mountMatrix) (\(s.mountMatrixSource.rawValue))\n"
            text += "  sampling frequency: \(s.samplingFrequencyHz.map { "\($0) Hz" } ?? "unknown")"
            if !s.samplingFrequencyAvailableHz.isEmpty {
                text += " (available: \(s.samplingFrequencyAvailableHz.map { "\($0)" }.joined(separator: " ")))"
            }
            text += "\n  buffered: \(s.buffered ? "yes" : "no")"
            text += s.triggers.isEmpty ? "\n" : ", triggers: \(s.triggers.joined(separator: ", "))\n"
            for w in s.warnings { text += "  warning: \(TerminalText.visible(w))\n" }
        }
        return text
    }
}
