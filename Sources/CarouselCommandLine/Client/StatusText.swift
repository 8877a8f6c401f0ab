import CarouselProtocol

/// Human-readable renderings of STATUS and STATE objects (`carouselctl status` and `watch`).
/// Missing fields print as `?`, so a newer or older daemon never makes the client fail; the
/// strings are shown through `TerminalText.visible` and the numbers whatever their size, so
/// neither can a program on the socket that is not carouseld.
enum StatusText {
    static func render(greeting: WireJSON, status: WireJSON, state: WireJSON, socketPath: String) -> String {
        let release = Self.text(status["release"]) ?? Self.text(greeting["release"]) ?? "?"
        let proto = "\(greeting["proto_major"]?.intValue.map(String.init) ?? "?").\(greeting["proto_minor"]?.intValue.map(String.init) ?? "?")"
        var text = "carouseld \(release) (protocol \(proto)) on \(socketPath)\n"
        func row(_ name: String, _ value: String) { text += "  " + name.padding(13) + value + "\n" }
        // Clamped: 1e300 s would not fit Int64 (and a century is as good an answer).
        if let up = status["uptime_s"]?.doubleValue { row("uptime:", ISO8601UTC.age(seconds: Int64(min(max(up, -1e12), 1e12)))) }
        row("config:", Self.text(status["config_path"]) ?? "(built-in defaults)")
        var sensor = Self.text(status["sensor"]) ?? "?"
        // Status first, so a script grepping "sensor: ok" works with and without sensor_name.
        if let name = Self.text(status["sensor_name"]) { sensor += " (\(name))" }
        if let rate = status["sample_rate_hz"]?.doubleValue { sensor += ", \(fmt(rate)) Hz" }
        row("sensor:", sensor)
        // The estimator used in place of [filter] method (a sensor without a gyroscope).
        if let estimator = status["estimator"], let used = Self.text(estimator["used"]) {
            let configured = Self.text(estimator["configured"]) ?? "?"
            let why = Self.text(estimator["reason"]).map { " (\($0))" } ?? ""
            row("estimator:", "\(used) with a \(number(estimator["lowpass_hz"], 1)) Hz low-pass in place of \(configured)\(why)")
        }
        let clients = status["clients"]?.intValue.map(String.init) ?? "?"
        let watchers = status["watchers"]?.intValue.map(String.init) ?? "?"
        row("clients:", "\(clients) (\(watchers) watching)")
        if let calibration = status["calibration"] {
            let file = Self.text(calibration["file"]) ?? "(none configured)"
            let applied = calibration["applied"]?.boolValue == true ? "applied" : "not applied"
            row("calibration:", "\(file) (\(applied))")
        }
        let count = state["count"]?.intValue.map(String.init) ?? "?"
        let index = state["index"]?.intValue.map(String.init) ?? "none"
        row("carousel:", "item \(index) of \(count), position \(number(state["position"], 3)), \(Self.text(state["phase"]) ?? "?")")
        let tilt = state["tilt"]
        let enabled = tilt?["enabled"]?.boolValue == false ? "disabled" : "enabled"
        if tilt?["roll_deg"]?.isNull == true {
            // The daemon reads the sensor only for watchers (unless [sensor] always_on), so with
            // none the estimate is missing however well the sensor works: say so, or an operator
            // who sees "sensor: ok" goes looking for a fault.
            let why = status["watchers"]?.intValue == 0 ? "no estimate: no client watches, so the sensor is not read" : "no estimate yet"
            row("tilt:", "\(why) (\(enabled))")
        } else {
            row("tilt:", "roll \(number(tilt?["roll_deg"], 1))°, pitch \(number(tilt?["pitch_deg"], 1))° (\(enabled))")
        }
        if let orientation = Self.text(status["orientation"]) { row("orientation:", orientation) }
        return text
    }

    /// One compact line per STATE for `watch`: seq, index/count, position, phase, tilt, sensor.
    static func stateLine(_ state: WireJSON) -> String {
        let seq = state["seq"]?.intValue.map(String.init) ?? "?"
        let index = state["index"]?.intValue.map(String.init) ?? "-"
        let count = state["count"]?.intValue.map(String.init) ?? "?"
        let phase = text(state["phase"]) ?? "?"
        let tilt = state["tilt"]
        return "#\(seq.padding(6)) index \((index + "/" + count).padding(7)) position \(number(state["position"], 3).padding(9))"
            + "\(phase.padding(15)) roll \(angle(tilt?["roll_deg"]).padding(7)) pitch \(angle(tilt?["pitch_deg"]).padding(7))"
            + "sensor \(text(state["sensor"]) ?? "?")"
    }

    /// A string field as the terminal may show it (`TerminalText.visible`), nil when absent or
    /// not a string.
    static func text(_ value: WireJSON?) -> String? {
        value?.stringValue.map(TerminalText.visible)
    }

    /// A tilt angle in degrees with one decimal, `-` while the daemon has no estimate (`null`).
    static func angle(_ value: WireJSON?) -> String {
        value?.isNull == true ? "-" : number(value, 1) + "°"
    }

    /// One item of a STATE's `items`: `item 3 center 640.0,400.0 scale 0.840 alpha 0.920 z -82.3`
    /// (points; the scale shown is the x scale).
    static func itemLine(_ item: WireJSON) -> String {
        let center = item["center"]?.arrayValue ?? []
        let scale = item["scale"]?.arrayValue ?? []
        let index = item["index"]?.intValue.map(String.init) ?? "?"
        return "item \(index.padding(4))center \(number(center.first, 1)),\(number(center.dropFirst().first, 1))"
            + " scale \(number(scale.first, 3)) alpha \(number(item["alpha"], 3)) z \(number(item["zIndex"], 1))"
    }

    /// A number with `decimals` decimals, `?` when absent.
    static func number(_ value: WireJSON?, _ decimals: Int) -> String {
        guard let v = value?.doubleValue, v.isFinite else { return "?" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (v * scale).rounded() / scale
        // 1e308 · 10 is inf: shown as the number it is, not as "inf".
        guard r.isFinite else { return v.description }
        var s = (r == 0 ? 0 : r).description
        // Pad to the requested decimals ("3.1" → "3.100") so columns line up.
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < decimals { s += String(repeating: "0", count: decimals - have) }
        }
        if s.contains("e") { return v.description }
        return s
    }
}

extension String {
    /// Left-aligned in a column of `width` characters plus one space.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count + 1)
    }
}
