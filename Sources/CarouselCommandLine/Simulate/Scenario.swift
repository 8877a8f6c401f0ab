import CarouselEngine

/// A `carouselctl simulate` scenario: the carousel's configuration, timed input events and the
/// frame times to print (docs/ENGINE.md "carouselctl simulate: scenarios").
struct Scenario: Equatable {
    var configuration: CarouselConfiguration
    /// Events in time order.
    var events: [ScenarioEvent]
    /// Frame times, seconds, ascending.
    var frames: [Double]
}

/// One timed input.
struct ScenarioEvent: Equatable {
    /// Event time, seconds.
    var time: Double
    var kind: Kind

    enum Kind: Equatable {
        case dragBegan(location: Double)
        case dragMoved(location: Double)
        case dragEnded(location: Double, velocity: Double?)
        case fling(offset: Double, velocity: Double)
        case setOffset(Double)
        case tilt(rollDegrees: Double)
        case outerScroll(y: Double)
        case outerScrollEnded
        case scrollTo(index: Int, animated: Bool)
        case tap(location: Double, cross: Double?)
        case setCount(Int)
        case resize(viewport: CarouselSize, item: CarouselSize, spacing: Double?, axis: ScrollAxis?,
                    direction: LayoutDirection?)
        case setTilt(enabled: Bool?, mode: TiltMode?, deadZoneDegrees: Double?, maxDegrees: Double?,
                     maxItemsPerSecond: Double?)
        case setAutoplay(enabled: Bool?, paused: Bool?, intervalSeconds: Double?, resumeSeconds: Double?, step: Int?)
        case insertItems(at: Int, count: Int, animated: Bool)
        case removeItems(at: Int, count: Int, animated: Bool)
        case setStyle(LayoutStyle)
    }

    /// The event `type` names, as written in scenarios.
    static let typeNames = ["drag_began", "drag_moved", "drag_ended", "fling", "set_offset", "tilt",
                            "outer_scroll", "outer_scroll_ended", "scroll_to", "tap", "set_count",
                            "resize", "set_tilt", "set_autoplay", "insert_items", "remove_items", "set_style"]
}

extension Scenario {
    /// Parses and validates a scenario document.
    /// - Throws: `ScenarioError` naming the JSON path of the first problem (syntax errors name
    ///   the line and column).
    static func parse(_ text: String) throws(ScenarioError) -> Scenario {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw ScenarioError(path: "", message: "invalid JSON at line \(error.line), column \(error.column): \(error.message)")
        }
        var r = try ObjectReader(root, path: "")
        guard var viewport = try r.object("viewport") else { throw ScenarioError(path: "viewport", message: "required object is missing") }
        guard var item = try r.object("item") else { throw ScenarioError(path: "item", message: "required object is missing") }
        let viewportSize = try readSize(&viewport)
        let itemSize = try readSize(&item)
        guard let count = try r.integer("count") else { throw ScenarioError(path: "count", message: "required integer is missing") }
        guard count >= 0 else { throw ScenarioError(path: "count", message: "must be ≥ 0") }
        let spacing = try r.number("spacing") ?? 0
        let axis = try r.choice("axis", ScrollAxis.allCases.map(\.rawValue)).flatMap(ScrollAxis.init(rawValue:)) ?? .horizontal
        let direction = try r.choice("direction", LayoutDirection.allCases.map(\.rawValue))
            .flatMap(LayoutDirection.init(rawValue:)) ?? .leftToRight
        let cyclic = try r.bool("cyclic") ?? false
        let initialIndex = try r.integer("initialIndex") ?? 0
        if count > 0, !(0..<count).contains(initialIndex) {
            throw ScenarioError(path: "initialIndex", message: "\(initialIndex) is outside 0…\(count - 1)")
        }
        let style = try readStyle(r.value("style"), path: "style")
        let paging = try readPaging(r.value("paging"), path: "paging")
        let dragThreshold = try r.number("dragThreshold") ?? 10
        var tilt = TiltSettings()
        if var t = try r.object("tilt") {
            tilt = try readTilt(&t, base: tilt)
            try t.finish()
        }
        var ratio = 0.8
        if var o = try r.object("outerScroll") {
            ratio = try o.number("ratio") ?? ratio
            try o.finish()
        }
        let align = try r.choice("align", ItemAlignment.allCases.map(\.rawValue)).flatMap(ItemAlignment.init(rawValue:)) ?? .center
        let contain = try r.bool("contain") ?? false
        let groupSize = try r.integer("groupSize") ?? 1
        var autoplay = AutoplaySettings()
        if var a = try r.object("autoplay") {
            autoplay = try readAutoplay(&a)
            try a.finish()
        }
        let geometry = CarouselGeometry(viewport: viewportSize, item: itemSize, spacing: spacing, axis: axis,
                                        direction: direction, count: count, cyclic: cyclic, align: align, contain: contain)
        let configuration = CarouselConfiguration(geometry: geometry, initialIndex: initialIndex, style: style,
                                                  paging: paging, dragThreshold: dragThreshold, tilt: tilt,
                                                  outerScrollRatio: ratio, autoplay: autoplay, groupSize: groupSize)
        do {
            try configuration.validate()
        } catch {
            throw ScenarioError(path: error.field, message: error.reason)
        }
        var events: [ScenarioEvent] = []
        // The configuration as the events change it, so that `set_tilt` and `resize` are checked
        // against the values in effect when they happen.
        var current = configuration
        var itemsPerFrame = configuration.maximumVisibleItemCount
        for (i, value) in (try r.array("events") ?? []).enumerated() {
            let event = try readEvent(value, path: "events[\(i)]")
            if let previous = events.last, event.time < previous.time {
                throw ScenarioError(path: "events[\(i)].t", message: "\(event.time) is earlier than the previous event (\(previous.time)); events must be in time order")
            }
            try apply(event, to: &current, path: "events[\(i)]")
            itemsPerFrame = max(itemsPerFrame, current.maximumVisibleItemCount)
            events.append(event)
        }
        let frames = try readFrames(r.value("frames"), lastEventTime: events.last?.time ?? 0)
        // Frames × items bounds the output: 100 000 frames of 4096 items would be ~100 GB.
        guard frames.count * itemsPerFrame <= maximumOutputItems else {
            throw ScenarioError(path: "frames", message: "\(frames.count) frames of up to \(itemsPerFrame) visible items exceed \(maximumOutputItems) items of output; ask for fewer frames or use a larger pitch")
        }
        try r.finish()
        return Scenario(configuration: configuration, events: events, frames: frames)
    }

    /// Applies an event that changes the configuration (`set_tilt`, `resize`, `set_count`,
    /// `set_autoplay`, `insert_items`, `remove_items`, `set_style`) and validates the result.
    /// - Throws: `ScenarioError` at `path` + the field the engine would reject.
    static func apply(_ event: ScenarioEvent, to configuration: inout CarouselConfiguration,
                      path: String) throws(ScenarioError) {
        switch event.kind {
        case let .setTilt(enabled, mode, deadZone, maxDegrees, maxItems):
            configuration.tilt.enabled = enabled ?? configuration.tilt.enabled
            configuration.tilt.mode = mode ?? configuration.tilt.mode
            configuration.tilt.deadZoneDegrees = deadZone ?? configuration.tilt.deadZoneDegrees
            configuration.tilt.maxDegrees = maxDegrees ?? configuration.tilt.maxDegrees
            configuration.tilt.maxItemsPerSecond = maxItems ?? configuration.tilt.maxItemsPerSecond
        case let .resize(viewport, item, spacing, axis, direction):
            configuration.geometry.viewport = viewport
            configuration.geometry.item = item
            configuration.geometry.spacing = spacing ?? configuration.geometry.spacing
            configuration.geometry.axis = axis ?? configuration.geometry.axis
            configuration.geometry.direction = direction ?? configuration.geometry.direction
        case let .setCount(count):
            configuration.geometry.count = count
        case let .setAutoplay(enabled, paused, interval, resume, step):
            configuration.autoplay.enabled = enabled ?? configuration.autoplay.enabled
            configuration.autoplay.paused = paused ?? configuration.autoplay.paused
            configuration.autoplay.intervalSeconds = interval ?? configuration.autoplay.intervalSeconds
            configuration.autoplay.resumeSeconds = resume ?? configuration.autoplay.resumeSeconds
            configuration.autoplay.step = step ?? configuration.autoplay.step
        // Item edits are refused as the daemon refuses them (DaemonCore+Features), not clamped,
        // so a scenario and a display that sends the same request agree.
        case let .insertItems(at, count, _):
            let n = configuration.geometry.count, most = CarouselLimits.maximumCount
            guard at <= n else { throw ScenarioError(path: "\(path).at", message: "\(at) is out of range 0…\(n)") }
            guard count <= most - n else { throw ScenarioError(path: "\(path).count", message: "\(n) + \(count) items exceed \(most)") }
            configuration.geometry.count += count
        case let .removeItems(at, count, _):
            let n = configuration.geometry.count
            guard n > 0 else { throw ScenarioError(path: "\(path).at", message: "the carousel has no items to remove, got \(at)") }
            guard at < n else { throw ScenarioError(path: "\(path).at", message: "\(at) is out of range 0…\(n - 1)") }
            guard count <= n - at else {
                throw ScenarioError(path: "\(path).count", message: "\(count) items from \(at) pass the last item (\(n - 1))")
            }
            configuration.geometry.count -= count
        case let .setStyle(style):
            configuration.style = style
        default:
            return
        }
        do {
            try configuration.validate()
        } catch {
            // Scenario keys inside an event drop the section prefix (`tilt.maxDeg` → `maxDeg`,
            // `autoplay.intervalS` → `intervalS`); a style's fields stay under `style`.
            var field = error.field
            for prefix in ["tilt.", "autoplay."] where field.hasPrefix(prefix) { field = String(field.dropFirst(prefix.count)) }
            throw ScenarioError(path: "\(path).\(field)", message: error.reason)
        }
    }

    private static func readSize(_ r: inout ObjectReader) throws(ScenarioError) -> CarouselSize {
        let w = try r.requiredNumber("width"), h = try r.requiredNumber("height")
        for (key, v) in [("width", w), ("height", h)] where !(v > 0) {
            throw ScenarioError(path: r.childPath(key), message: "must be > 0")
        }
        try r.finish()
        return CarouselSize(width: w, height: h)
    }

    /// A `style` or `paging` value: a name string, or an object with `name` and parameters.
    /// Returns the name, a reader over the parameters (empty for a bare name) and the path to
    /// report a bad name at.
    private static func readNamed(_ value: JSONValue?, path: String,
                                  default fallback: String) throws(ScenarioError) -> (String, ObjectReader, String) {
        switch value {
        case nil, .null?:
            return (fallback, try ObjectReader(.object([]), path: path), path)
        case let .string(s)?:
            return (s, try ObjectReader(.object([]), path: path), path)
        case let v?:
            guard case .object = v else {
                throw ScenarioError(path: path, message: "expected a name string or an object with \"name\", found \(v.typeName)")
            }
            var o = try ObjectReader(v, path: path)
            guard let name = try o.string("name") else { throw ScenarioError(path: "\(path).name", message: "required string is missing") }
            return (name, o, "\(path).name")
        }
    }

    static func readStyle(_ value: JSONValue?, path: String) throws(ScenarioError) -> LayoutStyle {
        let (name, parameters, namePath) = try readNamed(value, path: path, default: "linear")
        var o = parameters
        let style: LayoutStyle
        switch name {
        case "linear":
            let d = LinearStyle()
            style = .linear(LinearStyle(
                minScaleW: try o.number("minScaleW", default: d.minScaleW, "must lie in [0, 1]") { (0...1).contains($0) },
                minScaleH: try o.number("minScaleH", default: d.minScaleH, "must lie in [0, 1]") { (0...1).contains($0) },
                minAlpha: try o.number("minAlpha", default: d.minAlpha, "must lie in [0, 1]") { (0...1).contains($0) }))
        case "zoom":
            let d = ZoomStyle()
            let factor = try o.number("scaleFactor", default: d.scaleFactor, "must lie in [0, 1]") { (0...1).contains($0) }
            let active = try o.number("activeDistance")
            if let active, !(active > 0) { throw ScenarioError(path: "\(path).activeDistance", message: "must be > 0") }
            style = .zoom(ZoomStyle(scaleFactor: factor, activeDistance: active))
        case "stacked":
            style = .stacked
        case "coverFlow":
            let d = CoverFlowStyle()
            style = .coverFlow(CoverFlowStyle(
                tilt: try o.number("tilt", default: d.tilt, "must be finite") { $0.isFinite },
                spacing: try o.number("spacing", default: d.spacing, "must be finite") { $0.isFinite }))
        case "rotary", "cylinder":
            let s = try o.number("spacing", default: RingStyle().spacing, "must be > 0") { $0 > 0 }
            style = name == "rotary" ? .rotary(RingStyle(spacing: s)) : .cylinder(RingStyle(spacing: s))
        case "custom":
            style = .custom(try readCustomStyle(&o))
        default:
            throw ScenarioError(path: namePath, message: "'\(name)' is not one of linear, zoom, stacked, coverFlow, rotary, cylinder, custom")
        }
        try o.finish()
        return style
    }

    private static func readPaging(_ value: JSONValue?, path: String) throws(ScenarioError) -> PagingPolicy {
        let (name, parameters, namePath) = try readNamed(value, path: path, default: "momentum")
        var o = parameters
        let policy: PagingPolicy
        switch name {
        case "nearest":
            policy = .nearest
        case "momentum":
            let rate = try o.number("decelerationRate") ?? 0.998
            let maxItems = try o.integer("maxItemsPerFling")
            if let maxItems, maxItems < 1 { throw ScenarioError(path: "\(path).maxItemsPerFling", message: "must be ≥ 1 or null") }
            policy = .momentum(decelerationRate: rate, maxItemsPerFling: maxItems)
        case "single":
            policy = .single(velocityThreshold: try o.number("velocityThreshold") ?? 500)
        case "distance":
            policy = .distance(fraction: try o.number("fraction", default: 0.125, "must lie in [0, 1]") { (0...1).contains($0) })
        case "free":
            policy = .free(decelerationRate: try o.number("decelerationRate") ?? 0.998,
                           stickyVelocity: try o.number("stickyVelocity") ?? 0)
        default:
            throw ScenarioError(path: namePath, message: "'\(name)' is not one of nearest, momentum, single, distance, free")
        }
        try o.finish()
        return policy
    }

    private static func readTilt(_ t: inout ObjectReader, base: TiltSettings) throws(ScenarioError) -> TiltSettings {
        var s = base
        s.enabled = try t.bool("enabled") ?? s.enabled
        if let m = try t.choice("mode", TiltMode.allCases.map(\.rawValue)), let mode = TiltMode(rawValue: m) { s.mode = mode }
        for parameter in TiltParameter.allCases {
            if let value = try t.number(parameter.scenarioName) { parameter.set(value, in: &s) }
        }
        return s
    }

    private static func readEvent(_ value: JSONValue, path: String) throws(ScenarioError) -> ScenarioEvent {
        var r = try ObjectReader(value, path: path)
        let time = try r.requiredTime("t")
        guard let type = try r.string("type") else { throw ScenarioError(path: "\(path).type", message: "required string is missing") }
        let kind: ScenarioEvent.Kind
        switch type {
        case "drag_began": kind = .dragBegan(location: try r.requiredCoordinate("location"))
        case "drag_moved": kind = .dragMoved(location: try r.requiredCoordinate("location"))
        case "drag_ended": kind = .dragEnded(location: try r.requiredCoordinate("location"), velocity: try r.speed("velocity"))
        case "fling":
            let offset = try r.requiredCoordinate("offset")
            guard let velocity = try r.speed("velocity") else { throw ScenarioError(path: "\(path).velocity", message: "required number is missing") }
            kind = .fling(offset: offset, velocity: velocity)
        case "set_offset": kind = .setOffset(try r.requiredCoordinate("offset"))
        case "tilt":
            let roll = try r.requiredNumber("rollDeg")
            guard abs(roll) <= 180 else { throw ScenarioError(path: "\(path).rollDeg", message: "\(roll) is outside [−180, 180] degrees") }
            kind = .tilt(rollDegrees: roll)
        case "outer_scroll": kind = .outerScroll(y: try r.requiredCoordinate("y"))
        case "outer_scroll_ended": kind = .outerScrollEnded
        case "scroll_to":
            guard let index = try r.integer("index") else { throw ScenarioError(path: "\(path).index", message: "required integer is missing") }
            kind = .scrollTo(index: index, animated: try r.bool("animated") ?? true)
        case "tap":
            let location = try r.requiredCoordinate("location")
            let cross = try r.number("cross")
            if let cross, !(abs(cross) <= CarouselLimits.maximumCoordinate) {
                throw ScenarioError(path: "\(path).cross", message: "\(cross) is outside ±1e15 points")
            }
            kind = .tap(location: location, cross: cross)
        case "set_count":
            guard let count = try r.integer("count") else { throw ScenarioError(path: "\(path).count", message: "required integer is missing") }
            guard count >= 0 else { throw ScenarioError(path: "\(path).count", message: "must be ≥ 0") }
            kind = .setCount(count)
        case "resize":
            guard var v = try r.object("viewport") else { throw ScenarioError(path: "\(path).viewport", message: "required object is missing") }
            guard var i = try r.object("item") else { throw ScenarioError(path: "\(path).item", message: "required object is missing") }
            let viewport = try readSize(&v), item = try readSize(&i)
            let axis = try r.choice("axis", ScrollAxis.allCases.map(\.rawValue)).flatMap(ScrollAxis.init(rawValue:))
            let direction = try r.choice("direction", LayoutDirection.allCases.map(\.rawValue)).flatMap(LayoutDirection.init(rawValue:))
            let spacing = try r.number("spacing")
            kind = .resize(viewport: viewport, item: item, spacing: spacing, axis: axis, direction: direction)
        case "set_tilt":
            let mode = try r.choice("mode", TiltMode.allCases.map(\.rawValue)).flatMap(TiltMode.init(rawValue:))
            var values: [TiltParameter: Double] = [:]
            for parameter in TiltParameter.allCases {
                values[parameter] = try r.number(parameter.scenarioName)
            }
            kind = .setTilt(enabled: try r.bool("enabled"), mode: mode, deadZoneDegrees: values[.deadZone],
                            maxDegrees: values[.maxAngle], maxItemsPerSecond: values[.maxItemsPerSecond])
        case "set_autoplay", "insert_items", "remove_items", "set_style":
            kind = try readFeatureEvent(type, &r, path: path)
        default:
            throw ScenarioError(path: "\(path).type", message: "'\(type)' is not one of \(ScenarioEvent.typeNames.joined(separator: ", "))")
        }
        try r.finish()
        // Rounded to the nanosecond like frame times, so an event and a frame written with the
        // same decimal time always coincide.
        return ScenarioEvent(time: roundedToNanosecond(time), kind: kind)
    }

    /// Frame times (docs/ENGINE.md "carouselctl simulate: scenarios", Frames): `t = k · every` for k = 0 …
    /// ⌊until/every + 1e-9⌋, then `until` if not already listed; `until` defaults to the last event time + 3
    /// s. With
    /// `at`, exactly the listed times (sorted), plus `until` only when given. Times are rounded to
    /// the nanosecond so that `0.1 · 3` prints as 0.3.
    private static func readFrames(_ value: JSONValue?, lastEventTime: Double) throws(ScenarioError) -> [Double] {
        var r = try ObjectReader(value ?? .object([]), path: "frames")
        let until = try r.number("until")
        if let until, !(0...Scenario.maximumTime).contains(until) {
            throw ScenarioError(path: "frames.until", message: "\(until) is outside [0, \(Int(Scenario.maximumTime))] seconds")
        }
        var times: [Double] = []
        if let at = try r.array("at") {
            if r.has("every") { throw ScenarioError(path: "frames.every", message: "give either 'every' or 'at', not both") }
            guard at.count <= Scenario.maximumFrames else {
                throw ScenarioError(path: "frames.at", message: "\(at.count) times; at most \(Scenario.maximumFrames) frames")
            }
            for (i, v) in at.enumerated() {
                guard case let .number(t) = v, (0...Scenario.maximumTime).contains(t) else {
                    throw ScenarioError(path: "frames.at[\(i)]", message: "expected a number of seconds in [0, \(Int(Scenario.maximumTime))]")
                }
                times.append(roundedToNanosecond(t))
            }
            if let until, !times.contains(roundedToNanosecond(until)) { times.append(roundedToNanosecond(until)) }
            // Sorted after adding `until`, which may come before some of the listed times.
            times.sort()
        } else {
            let every = try r.number("every", default: 0.1, "must be > 0") { $0 > 0 }
            let end = until ?? (lastEventTime + 3)
            let last = (end / every + 1e-9).rounded(.down)
            guard last < Double(Scenario.maximumFrames) else {
                let source = until == nil ? "the default until (last event + 3 s = \(end) s)" : "until (\(end) s)"
                throw ScenarioError(path: "frames.every", message: "\(every) s over \(source) gives more than \(Scenario.maximumFrames) frames")
            }
            var k = 0.0
            while k <= last {
                times.append(roundedToNanosecond(k * every))
                k += 1
            }
            let u = roundedToNanosecond(end)
            if times.last.map({ abs($0 - u) > 1e-9 }) ?? true { times.append(u) }
        }
        try r.finish()
        return times
    }

    /// Largest event or frame time, seconds (about 11.6 days); keeps nanosecond rounding exact.
    static let maximumTime = 1_000_000.0
    /// Most frames one scenario may ask for.
    static let maximumFrames = 100_000
    /// Most item objects in one run's output (about 300 bytes each: 3 GB at most).
    static let maximumOutputItems = 10_000_000

    static func roundedToNanosecond(_ t: Double) -> Double { (t * 1e9).rounded() / 1e9 }
}
