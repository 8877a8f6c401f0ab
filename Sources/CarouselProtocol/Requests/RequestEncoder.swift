import CarouselEngine

/// The request line a client sends (docs/PROTOCOL.md "Requests"): the inverse of `RequestDecoder`, so
/// `RequestDecoder.decode(line: request.jsonLine) == request` for every request. Optional
/// fields that are nil are left out (the server's default applies).
extension Request {
    /// The JSON object text, without the newline.
    public var jsonText: String { String(decoding: encodedObject(), as: UTF8.self) }

    /// The NDJSON line, ending with `\n`.
    public var jsonLine: [UInt8] { encodedObject() + [0x0A] }

    private func encodedObject() -> [UInt8] {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("cmd"); w.string(cmd)
        func optional(_ name: String, _ value: Double?) { if let value { w.key(name); w.number(value) } }
        func optional(_ name: String, _ value: Bool?) { if let value { w.key(name); w.bool(value) } }
        func optional(_ name: String, _ value: String?) { if let value { w.key(name); w.string(value) } }
        func size(_ name: String, _ value: WireSize) {
            w.key(name); w.beginObject()
            w.key("width"); w.number(value.width)
            w.key("height"); w.number(value.height)
            w.endObject()
        }
        switch self {
        case let .watch(watch):
            w.key("enable"); w.bool(watch.enable)
            w.key("items"); w.bool(watch.items)
            optional("max_rate_hz", watch.maxRateHz)
            if watch.orientation { w.key("orientation"); w.bool(true) }
        case .poll, .status, .sensors, .recenterTilt, .reload:
            break
        case let .samples(enable):
            w.key("enable"); w.bool(enable)
        case let .scrollTo(index, animated):
            w.key("index"); w.int(index)
            w.key("animated"); w.bool(animated)
        case let .drag(phase, location, velocity):
            w.key("phase"); w.string(phase.rawValue)
            w.key("location"); w.number(location)
            optional("velocity", velocity)
        case let .tap(location, cross):
            w.key("location"); w.number(location)
            optional("cross", cross)
        case let .outerScroll(y):
            w.key("y"); w.number(y)
        case let .outerScrollEnded(y):
            optional("y", y)
        case let .setCount(count):
            w.key("count"); w.int(count)
        case let .setDisplayRotation(degrees):
            w.key("degrees"); w.int(degrees)
        case let .setGeometry(geometry):
            size("viewport", geometry.viewport)
            size("item", geometry.item)
            optional("spacing", geometry.spacing)
            optional("axis", geometry.axis?.rawValue)
            optional("direction", geometry.direction?.rawValue)
        case let .setTilt(tilt):
            optional("enabled", tilt.enabled)
            optional("mode", tilt.mode?.rawValue)
            for parameter in TiltParameter.allCases { optional(parameter.wireName, tilt.values[parameter]) }
        case let .setAutoplay(a):
            optional("enabled", a.enabled)
            optional("paused", a.paused)
            optional("interval_s", a.intervalSeconds)
            optional("resume_s", a.resumeSeconds)
            if let step = a.step { w.key("step"); w.int(step) }
        case let .insertItems(e), let .removeItems(e):
            w.key("at"); w.int(e.at)
            w.key("count"); w.int(e.count)
            w.key("animated"); w.bool(e.animated)
        case let .setStyle(style):
            w.key("style"); w.string(style.style.rawValue)
            if !style.custom.isEmpty {
                w.key("custom"); w.beginObject()
                for parameter in CustomStyleParameter.allCases {
                    if let value = style.custom[parameter] { w.key(parameter.wireName); w.number(value) }
                }
                w.endObject()
            }
        }
        w.endObject()
        return w.bytes
    }
}
