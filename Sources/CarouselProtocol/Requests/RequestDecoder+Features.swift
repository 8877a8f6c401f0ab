import CarouselEngine

/// Decoding of `set_autoplay`, `insert_items`, `remove_items` and `set_style`: each number is
/// checked against the engine's own bounds (`AutoplaySettings`, `CarouselLimits`,
/// `CustomStyleParameter`); what depends on the running carousel (an index against the count)
/// is checked by the daemon.
extension RequestDecoder {
    static func setAutoplay(_ fields: Fields) throws(ProtocolError) -> Request {
        let longest = AutoplaySettings.maximumSeconds, shortest = AutoplaySettings.minimumIntervalSeconds
        let interval = try fields.optionalNumber("interval_s")
        if let interval, !(interval == 0 || (shortest...longest).contains(interval)) {
            throw fields.bad("interval_s", "must be 0 (off) or lie in [\(WireJSONWriter.format(shortest)), "
                + "\(WireJSONWriter.format(longest))] seconds, got \(WireJSONWriter.format(interval))")
        }
        let resume = try fields.optionalNumber("resume_s")
        if let resume, !(0...longest).contains(resume) {
            throw fields.bad("resume_s", "must lie in [0, \(WireJSONWriter.format(longest))] seconds, got \(WireJSONWriter.format(resume))")
        }
        var step: Int?
        if let v = try fields.optional("step", expected: "an integer") {
            guard let d = v.doubleValue else { throw fields.bad("step", "expected an integer, got \(v.typeName)") }
            guard d.rounded(.towardZero) == d else {
                throw fields.bad("step", "expected an integer, got \(WireJSONWriter.format(d))")
            }
            let most = AutoplaySettings.maximumStep
            guard d != 0, d.magnitude <= Double(most) else {
                throw fields.bad("step", "must be a non-zero integer within ±\(most), got \(WireJSONWriter.format(d))")
            }
            step = Int(d)
        }
        return .setAutoplay(AutoplayRequest(enabled: try fields.optionalBool("enabled"),
                                            paused: try fields.optionalBool("paused"),
                                            intervalSeconds: interval, resumeSeconds: resume, step: step))
    }

    static func itemEdit(_ fields: Fields) throws(ProtocolError) -> ItemEditRequest {
        // Each number's own range (the running count is the daemon's to check).
        let at = try fields.integer("at", in: 0...CarouselLimits.maximumCount)
        let count = try fields.integer("count", in: 1...CarouselLimits.maximumCount)
        return ItemEditRequest(at: at, count: count, animated: try fields.optionalBool("animated") ?? true)
    }

    static func setStyle(_ fields: Fields) throws(ProtocolError) -> Request {
        let name = try fields.choice("style", StyleName.self)
        var values: [CustomStyleParameter: Double] = [:]
        if let custom = try fields.optional("custom", expected: "an object of numbers") {
            guard case .object = custom else {
                throw fields.bad("custom", "expected an object of numbers, got \(custom.typeName)")
            }
            guard name == .custom else {
                throw fields.bad("custom", "only goes with style 'custom', got style '\(name.rawValue)'")
            }
            // Unlike a request's own members, the custom object is a closed set (the
            // `[style.custom]` keys, which the file also refuses unknown): a misspelt number
            // would otherwise be ACKed and silently keep its old value.
            let known = CustomStyleParameter.allCases.map(\.wireName)
            for (key, _) in custom.objectValue ?? [] where !known.contains(key) {
                let shown = key.count > 64 ? String(key.prefix(64)) + "…" : key
                throw fields.bad("custom.\(shown)", "unknown custom style number; known: " + known.joined(separator: ", "))
            }
            for parameter in CustomStyleParameter.allCases {
                guard let v = custom[parameter.wireName] else { continue }
                let field = "custom." + parameter.wireName
                if v.isNull { throw fields.bad(field, "expected a number, got null (omit the field to keep its value)") }
                guard let n = v.doubleValue else { throw fields.bad(field, "expected a number, got \(v.typeName)") }
                guard parameter.accepts(n) else {
                    throw fields.bad(field, "\(parameter.requirement), got \(WireJSONWriter.format(n))")
                }
                values[parameter] = n
            }
        }
        return .setStyle(StyleRequest(style: name, custom: values))
    }
}
