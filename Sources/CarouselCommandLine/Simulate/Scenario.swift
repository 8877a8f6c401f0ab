import CarouselEngine

/// A `carouselctl simulate` scenario: the carousel's configuration, timed input events and the
/// frame times to print (INTERFACES §1; format documented in docs/ENGINE.md).
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
    }

    /// The event `type` names, as written in scenarios.
    static let typeNames = ["drag_began", "drag_moved", "drag_ended", "fling", "set_offset", "tilt",
                            "outer_scroll", "outer_scroll_ended", "scroll_to", "tap", "set_count",
                            "resize", "set_tilt"]
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
        let dragThreshold = try r.number("dragThreshold", default: 10, "must be a finite number ≥ 0") { $0 >= 0 }
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
        let geometry = CarouselGeometry(viewport: viewportSize, item: itemSize, spacing: spacing, axis: axis,
                                        direction: direction, count: count, cyclic: cyclic)
        let configuration = CarouselConfiguration(geometry: geometry, initialIndex: initialIndex, style: style,
                                                  paging: paging, dragThreshold: dragThreshold, tilt: tilt,
                                                  outerScrollRatio: ratio)
        do {
            try configuration.validate()
        } catch {
            throw ScenarioError(path: error.field, message: error.reason)
        }
        var events: [ScenarioEvent] = []
        for (i, value) in (try r.array("events") ?? []).enumerated() {
            let event = try readEvent(value, path: "events[\(i)]")
            if let previous = events.last, event.time < previous.time {
                throw ScenarioError(path: "events[\(i)].t", message: "\(event.time) is earlier than the previous event (\(previous.time)); events must be in time order")
            }
            events.append(event)
        }
        let frames = try readFrames(r.value("frames"), lastEventTime: events.last?.time ?? 0)
        try r.finish()
        return Scenario(configuration: configuration, events: events, frames: frames)
    }

    private static func readSize(_ r: inout ObjectReader) throws(ScenarioError) -> CarouselSize {
        let w = try r.requiredNumber("width"), h = try r.requiredNumber("height")
        for (key, v) in [("width", w), ("height", h)] where !(v > 0) {
            throw ScenarioError(path: r.childPath(key), message: "must be > 0")
        }
        try r.finish()
        return CarouselSize(width: w, height: h)
    }

    private static func readStyle(_ value: JSONValue?, path: String) throws(ScenarioError) -> LayoutStyle {
        var name = "linear"
        var r: ObjectReader?
        switch value {
        case nil, .null?: break
        case let .string(s)?: name = s
        case let v?:
            var o = try ObjectReader(v, path: path)
            guard let n = try o.string("name") else { throw ScenarioError(path: "\(path).name", message: "required string is missing") }
            name = n
            r = o
        }
        var o: ObjectReader
        if let r { o = r } else { o = try ObjectReader(.object([]), path: path) }
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
        default:
            throw ScenarioError(path: r == nil ? path : "\(path).name",
                                message: "'\(name)' is not one of linear, zoom, stacked, coverFlow, rotary, cylinder")
        }
        try o.finish()
        return style
    }

    private static func readPaging(_ value: JSONValue?, path: String) throws(ScenarioError) -> PagingPolicy {
        var name = "momentum"
        var r: ObjectReader?
        switch value {
        case nil, .null?: break
        case let .string(s)?: name = s
        case let v?:
            var o = try ObjectReader(v, path: path)
            guard let n = try o.string("name") else { throw ScenarioError(path: "\(path).name", message: "required string is missing") }
            name = n
            r = o
        }
        var o: ObjectReader
        if let r { o = r } else { o = try ObjectReader(.object([]), path: path) }
        let policy: PagingPolicy
        switch name {
        case "nearest":
            policy = .nearest
        case "momentum":
            let rate = try o.number("decelerationRate", default: 0.998, "must lie strictly between 0 and 1") { $0 > 0 && $0 < 1 }
            let maxItems = try o.integer("maxItemsPerFling")
            if let maxItems, maxItems < 1 { throw ScenarioError(path: "\(path).maxItemsPerFling", message: "must be ≥ 1 or null") }
            policy = .momentum(decelerationRate: rate, maxItemsPerFling: maxItems)
        case "single":
            policy = .single(velocityThreshold: try o.number("velocityThreshold", default: 500, "must be ≥ 0") { $0 >= 0 })
        case "distance":
            policy = .distance(fraction: try o.number("fraction", default: 0.125, "must lie in [0, 1]") { (0...1).contains($0) })
        default:
            throw ScenarioError(path: r == nil ? path : "\(path).name", message: "'\(name)' is not one of nearest, momentum, single, distance")
        }
        try o.finish()
        return policy
    }

    private static func readTilt(_ t: inout ObjectReader, base: TiltSettings) throws(ScenarioError) -> TiltSettings {
        var s = base
        s.enabled = try t.bool("enabled") ?? s.enabled
        if let m = try t.choice("mode", TiltMode.allCases.map(\.rawValue)), let mode = TiltMode(rawValue: m) { s.mode = mode }
        s.deadZoneDegrees = try t.number("deadZoneDeg", default: s.deadZoneDegrees, "must be ≥ 0") { $0 >= 0 }
        s.maxDegrees = try t.number("maxDeg", default: s.maxDegrees, "must be > 0") { $0 > 0 }
        s.maxItemsPerSecond = try t.number("maxItemsPerSecond", default: s.maxItemsPerSecond, "must be ≥ 0") { $0 >= 0 }
        return s
    }

    private static func readEvent(_ value: JSONValue, path: String) throws(ScenarioError) -> ScenarioEvent {
        var r = try ObjectReader(value, path: path)
        let time = try r.requiredNumber("t")
        guard time >= 0 else { throw ScenarioError(path: "\(path).t", message: "must be ≥ 0") }
        guard let type = try r.string("type") else { throw ScenarioError(path: "\(path).type", message: "required string is missing") }
        let kind: ScenarioEvent.Kind
        switch type {
        case "drag_began": kind = .dragBegan(location: try r.requiredNumber("location"))
        case "drag_moved": kind = .dragMoved(location: try r.requiredNumber("location"))
        case "drag_ended": kind = .dragEnded(location: try r.requiredNumber("location"), velocity: try r.number("velocity"))
        case "fling": kind = .fling(offset: try r.requiredNumber("offset"), velocity: try r.requiredNumber("velocity"))
        case "set_offset": kind = .setOffset(try r.requiredNumber("offset"))
        case "tilt": kind = .tilt(rollDegrees: try r.requiredNumber("rollDeg"))
        case "outer_scroll": kind = .outerScroll(y: try r.requiredNumber("y"))
        case "outer_scroll_ended": kind = .outerScrollEnded
        case "scroll_to":
            guard let index = try r.integer("index") else { throw ScenarioError(path: "\(path).index", message: "required integer is missing") }
            kind = .scrollTo(index: index, animated: try r.bool("animated") ?? true)
        case "tap": kind = .tap(location: try r.requiredNumber("location"), cross: try r.number("cross"))
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
            let along = (axis ?? .horizontal) == .horizontal ? item.width : item.height
            if let spacing, !(along + spacing > 0) {
                throw ScenarioError(path: "\(path).spacing", message: "must leave a positive pitch (item length + spacing > 0)")
            }
            kind = .resize(viewport: viewport, item: item, spacing: spacing, axis: axis, direction: direction)
        case "set_tilt":
            let mode = try r.choice("mode", TiltMode.allCases.map(\.rawValue)).flatMap(TiltMode.init(rawValue:))
            func check(_ key: String, _ v: Double?) throws(ScenarioError) -> Double? {
                if let v, v < 0 { throw ScenarioError(path: "\(path).\(key)", message: "must be ≥ 0") }
                return v
            }
            kind = .setTilt(enabled: try r.bool("enabled"), mode: mode,
                            deadZoneDegrees: try check("deadZoneDeg", r.number("deadZoneDeg")),
                            maxDegrees: try check("maxDeg", r.number("maxDeg")),
                            maxItemsPerSecond: try check("maxItemsPerSecond", r.number("maxItemsPerSecond")))
        default:
            throw ScenarioError(path: "\(path).type", message: "'\(type)' is not one of \(ScenarioEvent.typeNames.joined(separator: ", "))")
        }
        try r.finish()
        // Rounded to the nanosecond like frame times, so an event and a frame written with the
        // same decimal time always coincide.
        return ScenarioEvent(time: roundedToNanosecond(time), kind: kind)
    }

    /// Frame times (INTERFACES §1 "Frames"): `t = k · every` for k = 0 … ⌊until/every + 1e-9⌋,
    /// then `until` if not already listed; `until` defaults to the last event time + 3 s. With
    /// `at`, exactly the listed times (sorted), plus `until` only when given. Times are rounded to
    /// the nanosecond so that `0.1 · 3` prints as 0.3.
    private static func readFrames(_ value: JSONValue?, lastEventTime: Double) throws(ScenarioError) -> [Double] {
        var r = try ObjectReader(value ?? .object([]), path: "frames")
        let until = try r.number("until")
        if let until, !(until >= 0) { throw ScenarioError(path: "frames.until", message: "must be ≥ 0") }
        var times: [Double] = []
        if let at = try r.array("at") {
            if r.has("every") { throw ScenarioError(path: "frames.every", message: "give either 'every' or 'at', not both") }
            for (i, v) in at.enumerated() {
                guard case let .number(t) = v, t >= 0 else {
                    throw ScenarioError(path: "frames.at[\(i)]", message: "expected a number ≥ 0")
                }
                times.append(roundedToNanosecond(t))
            }
            times.sort()
            if let until, !times.contains(roundedToNanosecond(until)) { times.append(roundedToNanosecond(until)) }
        } else {
            let every = try r.number("every", default: 0.1, "must be > 0") { $0 > 0 }
            let end = until ?? (lastEventTime + 3)
            let last = (end / every + 1e-9).rounded(.down)
            guard last < 1_000_000 else {
                throw ScenarioError(path: "frames.every", message: "more than a million frames (until / every = \(last))")
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

    static func roundedToNanosecond(_ t: Double) -> Double { (t * 1e9).rounded() / 1e9 }
}
