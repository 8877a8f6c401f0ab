import CarouselEngine

/// Decodes one request line (docs/PROTOCOL.md "Requests") into a `Request`, or the `ProtocolError` to answer.
///
/// Rules: the line must be one JSON object with a string `cmd` and no key repeated in any object
/// (`bad_json` naming the key; last-wins would silently pick one); unknown members are ignored (so a
/// newer client can talk to an older server, as in gpsd); a known member with the wrong type or
/// out of range is `bad_field` with a message naming it. `null` is never "absent": a known member
/// given as `null` is `bad_field` (an optional one is left out for its default), whatever its type.
public enum RequestDecoder {
    /// Decodes a line without its trailing newline (a trailing `\r` is tolerated by the parser as
    /// whitespace).
    /// - Throws: `ProtocolError` with code `bad_json`, `unknown_cmd` or `bad_field`.
    public static func decode(line: some Collection<UInt8>) throws(ProtocolError) -> Request {
        let value: WireJSON
        do {
            value = try WireJSONParser.parse(line, limits: .request)
        } catch {
            throw ProtocolError(.badJSON, error.description)
        }
        return try decode(value)
    }

    /// Decodes an already parsed request object.
    public static func decode(_ value: WireJSON) throws(ProtocolError) -> Request {
        guard case .object = value else {
            throw ProtocolError(.badJSON, "a request must be a JSON object, got \(value.typeName)")
        }
        guard let cmdValue = value["cmd"] else {
            throw ProtocolError(.unknownCommand, "missing field 'cmd'")
        }
        guard let cmd = cmdValue.stringValue else {
            throw ProtocolError(.badField, "field 'cmd': expected a string, got \(cmdValue.typeName)")
        }
        let fields = Fields(object: value, cmd: cmd)
        switch cmd {
        case "watch": return try watch(fields)
        case "poll": return .poll
        case "status": return .status
        case "sensors": return .sensors
        case "samples": return .samples(enable: try fields.optionalBool("enable") ?? true)
        case "scroll_to":
            // The upper end is the engine's count limit; the running count is checked on apply.
            let index = try fields.integer("index", in: 0...CarouselLimits.maximumCount)
            return .scrollTo(index: index, animated: try fields.optionalBool("animated") ?? true)
        case "drag":
            return .drag(phase: try fields.choice("phase", DragPhase.self), location: try fields.number("location"),
                         velocity: try fields.optionalNumber("velocity"))
        case "tap":
            return .tap(location: try fields.number("location"), cross: try fields.optionalNumber("cross"))
        case "outer_scroll":
            return .outerScroll(y: try fields.number("y"))
        case "outer_scroll_ended":
            return .outerScrollEnded(y: try fields.optionalNumber("y"))
        case "set_count": return try setCount(fields)
        case "set_geometry": return try setGeometry(fields)
        case "set_tilt": return try setTilt(fields)
        case "recenter_tilt": return .recenterTilt
        case "reload": return .reload
        case "set_autoplay": return try setAutoplay(fields)
        case "insert_items": return .insertItems(try itemEdit(fields))
        case "remove_items": return .removeItems(try itemEdit(fields))
        case "set_style": return try setStyle(fields)
        case "set_display_rotation": return try setDisplayRotation(fields)
        default:
            throw ProtocolError(.unknownCommand, "unknown command '\(cmd)'", cmd: cmd)
        }
    }

    private static func watch(_ fields: Fields) throws(ProtocolError) -> Request {
        let rate = try fields.optionalNumber("max_rate_hz")
        if let rate, !(rate > 0) { throw fields.bad("max_rate_hz", "must be greater than 0, got \(WireJSONWriter.format(rate))") }
        return .watch(WatchRequest(enable: try fields.optionalBool("enable") ?? true,
                                   items: try fields.optionalBool("items") ?? false,
                                   maxRateHz: rate,
                                   orientation: try fields.optionalBool("orientation") ?? false))
    }

    private static func setDisplayRotation(_ fields: Fields) throws(ProtocolError) -> Request {
        let degrees = try fields.integer("degrees", in: 0...270)
        guard degrees % 90 == 0 else { throw fields.bad("degrees", "expected one of 0, 90, 180, 270, got \(degrees)") }
        return .setDisplayRotation(degrees: degrees)
    }

    private static func setCount(_ fields: Fields) throws(ProtocolError) -> Request {
        .setCount(try fields.integer("count", in: 0...CarouselLimits.maximumCount))
    }

    private static func setGeometry(_ fields: Fields) throws(ProtocolError) -> Request {
        let viewport = try fields.size("viewport")
        let item = try fields.size("item")
        let spacing = try fields.optionalNumber("spacing")
        if let spacing, spacing < 0 { throw fields.bad("spacing", "must be ≥ 0, got \(WireJSONWriter.format(spacing))") }
        return .setGeometry(GeometryRequest(viewport: viewport, item: item, spacing: spacing,
                                            axis: try fields.optionalChoice("axis", ScrollAxis.self),
                                            direction: try fields.optionalChoice("direction", LayoutDirection.self)))
    }

    /// Each number within its `TiltParameter.range`; whether the merged result keeps `max_deg`
    /// above `dead_zone_deg` is checked against the running settings by the daemon.
    private static func setTilt(_ fields: Fields) throws(ProtocolError) -> Request {
        var values: [TiltParameter: Double] = [:]
        for parameter in TiltParameter.allCases {
            guard let value = try fields.optionalNumber(parameter.wireName) else { continue }
            guard parameter.range.contains(value) else {
                let range = parameter.range
                throw fields.bad(parameter.wireName, "must lie in [\(WireJSONWriter.format(range.lowerBound)), "
                    + "\(WireJSONWriter.format(range.upperBound))] \(parameter.unit), got \(WireJSONWriter.format(value))")
            }
            values[parameter] = value
        }
        if let deadZone = values[.deadZone], let maxDeg = values[.maxAngle], !(maxDeg > deadZone) {
            throw fields.bad("max_deg", "must be greater than dead_zone_deg (\(WireJSONWriter.format(deadZone)))")
        }
        return .setTilt(TiltRequest(enabled: try fields.optionalBool("enabled"),
                                    mode: try fields.optionalChoice("mode", TiltMode.self), values: values))
    }

    /// Typed access to a request's members, producing `bad_field` errors that name the member.
    struct Fields {
        let object: WireJSON
        let cmd: String

        func bad(_ name: String, _ problem: String) -> ProtocolError {
            ProtocolError(.badField, "field '\(name)': \(problem)", cmd: cmd)
        }

        /// The member `name`; `null` is returned as is, for the caller's type check to refuse
        /// by name ("expected a number, got null").
        func required(_ name: String) throws(ProtocolError) -> WireJSON {
            guard let v = object[name] else {
                throw ProtocolError(.badField, "missing field '\(name)'", cmd: cmd)
            }
            return v
        }

        /// The member `name` when present, nil when absent; `null` is a `bad_field` naming the
        /// member and the type expected (read as absent, `"velocity": null` would mean "no
        /// velocity" to one client and an error to another).
        func optional(_ name: String, expected: String) throws(ProtocolError) -> WireJSON? {
            guard let v = object[name] else { return nil }
            if v.isNull { throw bad(name, "expected \(expected), got null (omit the field instead)") }
            return v
        }

        func number(_ name: String) throws(ProtocolError) -> Double {
            let v = try required(name)
            guard let n = v.doubleValue else { throw bad(name, "expected a number, got \(v.typeName)") }
            return n
        }

        func optionalNumber(_ name: String) throws(ProtocolError) -> Double? {
            guard let v = try optional(name, expected: "a number") else { return nil }
            guard let n = v.doubleValue else { throw bad(name, "expected a number, got \(v.typeName)") }
            return n
        }

        /// A whole number; one too large for exact integer arithmetic (beyond ±2^53) is out of
        /// range, not "not whole".
        func integer(_ name: String) throws(ProtocolError) -> Int {
            try integer(name, in: -(1 << 53)...(1 << 53))
        }

        /// A whole number within `range`; a whole number outside it is "out of range lo…hi".
        func integer(_ name: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int {
            let v = try required(name)
            guard let d = v.doubleValue else { throw bad(name, "expected an integer, got \(v.typeName)") }
            guard d.rounded(.towardZero) == d else { throw bad(name, "expected an integer, got \(WireJSONWriter.format(d))") }
            guard d >= Double(range.lowerBound), d <= Double(range.upperBound), let n = v.intValue else {
                throw bad(name, "out of range \(range.lowerBound)…\(range.upperBound), got \(WireJSONWriter.format(d))")
            }
            return n
        }

        /// Absent means the default; `null` is a `bad_field`, not "absent": read as absent,
        /// `"enable": null` would turn watching on.
        func optionalBool(_ name: String) throws(ProtocolError) -> Bool? {
            guard let v = try optional(name, expected: "a boolean") else { return nil }
            guard let b = v.boolValue else { throw bad(name, "expected a boolean, got \(v.typeName)") }
            return b
        }

        func string(_ name: String) throws(ProtocolError) -> String {
            let v = try required(name)
            guard let s = v.stringValue else { throw bad(name, "expected a string, got \(v.typeName)") }
            return s
        }

        func optionalString(_ name: String) throws(ProtocolError) -> String? {
            guard let v = try optional(name, expected: "a string") else { return nil }
            guard let s = v.stringValue else { throw bad(name, "expected a string, got \(v.typeName)") }
            return s
        }

        /// One of `Choice`'s raw values (exact case, as on the wire).
        func choice<Choice>(_ name: String, _ type: Choice.Type) throws(ProtocolError) -> Choice
        where Choice: CaseIterable & RawRepresentable, Choice.RawValue == String {
            let text = try string(name)
            return try named(name, text, Choice.self)
        }

        /// `choice`, or nil when the member is absent (`null` is a `bad_field`).
        func optionalChoice<Choice>(_ name: String, _ type: Choice.Type) throws(ProtocolError) -> Choice?
        where Choice: CaseIterable & RawRepresentable, Choice.RawValue == String {
            guard let text = try optionalString(name) else { return nil }
            return try named(name, text, Choice.self)
        }

        private func named<Choice>(_ name: String, _ text: String, _ type: Choice.Type) throws(ProtocolError) -> Choice
        where Choice: CaseIterable & RawRepresentable, Choice.RawValue == String {
            if let choice = Choice(rawValue: text) { return choice }
            let names = Choice.allCases.map(\.rawValue)
            let expected = names.count == 2 ? "\(names[0]) or \(names[1])" : "one of " + names.joined(separator: ", ")
            throw bad(name, "expected \(expected), got '\(text)'")
        }

        /// A size given as `{"width": w, "height": h}` with both > 0.
        func size(_ name: String) throws(ProtocolError) -> WireSize {
            let v = try required(name)
            guard case .object = v else { throw bad(name, "expected an object {\"width\", \"height\"}, got \(v.typeName)") }
            var result = WireSize(width: 0, height: 0)
            for part in ["width", "height"] {
                guard let p = v[part] else { throw bad("\(name).\(part)", "missing") }
                guard let n = p.doubleValue else { throw bad("\(name).\(part)", "expected a number, got \(p.typeName)") }
                guard n > 0 else { throw bad("\(name).\(part)", "must be greater than 0, got \(WireJSONWriter.format(n))") }
                if part == "width" { result.width = n } else { result.height = n }
            }
            return result
        }
    }
}
