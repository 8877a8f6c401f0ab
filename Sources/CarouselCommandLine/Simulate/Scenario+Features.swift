import CarouselEngine

/// Scenario keys of autoplay, item editing and the `custom` style (docs/ENGINE.md "Scenario
/// format"): `autoplay {enabled, intervalS, resumeS, step, paused}`, the `custom` style's
/// `previous`/`next` objects with `limit` and `perspective`, and the events `set_autoplay`,
/// `insert_items`, `remove_items` and `set_style`. Ranges are the engine's own
/// (`CarouselConfiguration.validate()`), reported at the scenario's JSON path.
extension Scenario {
    /// `autoplay`'s members (also the fields of a `set_autoplay` event), over the defaults.
    static func readAutoplay(_ a: inout ObjectReader) throws(ScenarioError) -> AutoplaySettings {
        var s = AutoplaySettings()
        s.enabled = try a.bool("enabled") ?? s.enabled
        s.paused = try a.bool("paused") ?? s.paused
        s.intervalSeconds = try a.number("intervalS") ?? s.intervalSeconds
        s.resumeSeconds = try a.number("resumeS") ?? s.resumeSeconds
        s.step = try a.integer("step") ?? s.step
        return s
    }

    /// The `custom` style's parameters: `previous` and `next` objects with `translateX` …
    /// `opacity`, then `limit` and `perspective` (every `CustomStyleParameter.scenarioPath`).
    static func readCustomStyle(_ o: inout ObjectReader) throws(ScenarioError) -> CustomStyle {
        var style = CustomStyle()
        var previous = try o.object("previous")
        var next = try o.object("next")
        for parameter in CustomStyleParameter.allCases {
            let value: Double?
            switch parameter {
            case let .previous(f): value = try previous?.number(f.rawValue)
            case let .next(f): value = try next?.number(f.rawValue)
            case .limit: value = try o.number("limit")
            case .perspective: value = try o.number("perspective")
            }
            if let value { parameter.set(value, in: &style) }
        }
        try previous?.finish()
        try next?.finish()
        return style
    }

    /// The events `set_autoplay`, `insert_items`, `remove_items` and `set_style`.
    static func readFeatureEvent(_ type: String, _ r: inout ObjectReader, path: String) throws(ScenarioError) -> ScenarioEvent.Kind {
        switch type {
        case "set_autoplay":
            let step = try r.integer("step")
            return .setAutoplay(enabled: try r.bool("enabled"), paused: try r.bool("paused"),
                                intervalSeconds: try r.number("intervalS"), resumeSeconds: try r.number("resumeS"),
                                step: step)
        case "insert_items", "remove_items":
            guard let at = try r.integer("at") else { throw ScenarioError(path: "\(path).at", message: "required integer is missing") }
            guard at >= 0 else { throw ScenarioError(path: "\(path).at", message: "must be ≥ 0") }
            guard let count = try r.integer("count") else { throw ScenarioError(path: "\(path).count", message: "required integer is missing") }
            guard count >= 1 else { throw ScenarioError(path: "\(path).count", message: "must be ≥ 1") }
            let animated = try r.bool("animated") ?? true
            return type == "insert_items" ? .insertItems(at: at, count: count, animated: animated)
                                          : .removeItems(at: at, count: count, animated: animated)
        default:
            guard r.has("style") else { throw ScenarioError(path: "\(path).style", message: "required style is missing") }
            return .setStyle(try readStyle(r.value("style"), path: "\(path).style"))
        }
    }
}
