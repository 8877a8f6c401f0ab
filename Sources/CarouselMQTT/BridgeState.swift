import CarouselProtocol

/// The part of the daemon's STATE (docs/PROTOCOL.md, "Server messages") the bridge publishes on `<base>/state`, with
/// the STATE's own field names: `index`, `count`, `position`, `phase`,
/// `tilt {roll_deg, pitch_deg, enabled}`, `sensor`.
public struct BridgeState: Sendable, Equatable {
    /// The centered item; nil (JSON `null`) with no items.
    public var index: Int?
    /// The number of items, ≥ 0.
    public var count: Int
    /// Fractional item index, `offset / pitch`.
    public var position: Double
    /// `idle`, `dragging`, `decelerating`, `snapping`, `animating`, `tilting` or
    /// `outer_scrolling`, passed on as the daemon sends it.
    public var phase: String
    /// Roll relative to neutral, degrees, unrounded (the payload rounds it); nil (`null`) while
    /// the daemon has no estimate (daemons of protocol 1.0 send 0 instead, which is passed on as 0).
    public var rollDeg: Double?
    /// Pitch relative to neutral, degrees; as `rollDeg`.
    public var pitchDeg: Double?
    /// Whether tilt drives the carousel (`tilt.enabled`).
    public var tiltEnabled: Bool
    /// `ok`, `stale`, `absent`, `replay` or `error`.
    public var sensor: String

    /// A state from its fields, as described on each property.
    public init(index: Int?, count: Int, position: Double, phase: String, rollDeg: Double?, pitchDeg: Double?,
                tiltEnabled: Bool, sensor: String) {
        self.index = index
        self.count = count
        self.position = position
        self.phase = phase
        self.rollDeg = rollDeg
        self.pitchDeg = pitchDeg
        self.tiltEnabled = tiltEnabled
        self.sensor = sensor
    }

    /// Reads a parsed `STATE` message.
    /// - Throws: `BridgeStateError` naming the first missing or mistyped field.
    public init(stateMessage m: WireJSON) throws(BridgeStateError) {
        func field(_ name: String, in object: WireJSON, _ path: String) throws(BridgeStateError) -> WireJSON {
            guard let v = object[name] else { throw BridgeStateError("STATE has no '\(path)'") }
            return v
        }
        func optionalNumber(_ v: WireJSON, _ path: String) throws(BridgeStateError) -> Double? {
            if v.isNull { return nil }
            guard let n = v.doubleValue else { throw BridgeStateError("STATE '\(path)' is \(v.typeName), expected a number or null") }
            return n
        }
        let indexValue = try field("index", in: m, "index")
        if indexValue.isNull {
            index = nil
        } else {
            guard let i = indexValue.intValue else { throw BridgeStateError("STATE 'index' is not an integer or null") }
            index = i
        }
        guard let c = try field("count", in: m, "count").intValue, c >= 0 else { throw BridgeStateError("STATE 'count' is not an integer ≥ 0") }
        count = c
        guard let p = try field("position", in: m, "position").doubleValue else { throw BridgeStateError("STATE 'position' is not a number") }
        position = p
        guard let ph = try field("phase", in: m, "phase").stringValue else { throw BridgeStateError("STATE 'phase' is not a string") }
        phase = ph
        let tilt = try field("tilt", in: m, "tilt")
        rollDeg = try optionalNumber(try field("roll_deg", in: tilt, "tilt.roll_deg"), "tilt.roll_deg")
        pitchDeg = try optionalNumber(try field("pitch_deg", in: tilt, "tilt.pitch_deg"), "tilt.pitch_deg")
        guard let enabled = try field("enabled", in: tilt, "tilt.enabled").boolValue else {
            throw BridgeStateError("STATE 'tilt.enabled' is not a boolean")
        }
        tiltEnabled = enabled
        guard let s = try field("sensor", in: m, "sensor").stringValue else { throw BridgeStateError("STATE 'sensor' is not a string") }
        sensor = s
    }

    /// The resolution of the published tilt angles, degrees. The estimator is accurate to
    /// 0.3–1.5° (docs/FUSION.md, section 8), so a finer figure is noise: rounded to it, a device
    /// held still publishes nothing, and Home Assistant's recorder stores one row per real change.
    public static let angleResolutionDegrees = 0.1

    /// `degrees` rounded to `angleResolutionDegrees`, halves away from zero (`1.25` → `1.3`,
    /// `-0.04` → `-0`, which JSON writes as `0`); nil stays nil. A magnitude of 10¹⁵° or more
    /// (only a broken daemon sends one) is passed on as it is, since it has no fraction to round.
    public static func publishedAngle(_ degrees: Double?) -> Double? {
        guard let degrees, abs(degrees) < 1e15 else { return degrees }
        let steps = 1 / angleResolutionDegrees  // 10 steps per degree
        return (degrees * steps).rounded(.toNearestOrAwayFromZero) / steps
    }

    /// Whether the carousel is at rest.
    public var isIdle: Bool { phase == "idle" }

    /// Whether `other` differs in what is published at once rather than throttled: the count,
    /// the sensor status, whether tilt is enabled, starting or stopping to move, and the index
    /// of a carousel at rest (the daemon's `INDEX`). The index passing by while moving is
    /// throttled with the position, so a long fling does not publish every item it crosses.
    public func differsDiscretely(from other: BridgeState) -> Bool {
        count != other.count || sensor != other.sensor || tiltEnabled != other.tiltEnabled
            || isIdle != other.isIdle || (isIdle && index != other.index)
    }

    /// Whether `other` is worth publishing after this state was: any field but the tilt angles
    /// differs, an angle appears or goes (nil), or an angle moved by `angleResolutionDegrees` or
    /// more. The angles are compared unrounded, so noise around a rounding boundary (1.249°,
    /// 1.251°) publishes nothing, while a slow drift is published each time it adds up to 0.1°.
    public func differsNoticeably(from other: BridgeState) -> Bool {
        func moved(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return (a == nil) != (b == nil) }
            // 1e-9 absorbs binary rounding: 1.3 − 1.2 is 0.09999999999999987 in a Double.
            return !(abs(a - b) < Self.angleResolutionDegrees - 1e-9)
        }
        return index != other.index || count != other.count || position != other.position || phase != other.phase
            || tiltEnabled != other.tiltEnabled || sensor != other.sensor
            || moved(rollDeg, other.rollDeg) || moved(pitchDeg, other.pitchDeg)
    }

    /// The JSON published on `<base>/state`: the fields as read, but the tilt angles rounded
    /// to `angleResolutionDegrees` (`publishedAngle`).
    public var payload: [UInt8] {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("index"); if let index { w.int(index) } else { w.null() }
        w.key("count"); w.int(count)
        w.key("position"); w.number(position)
        w.key("phase"); w.string(phase)
        w.key("tilt")
        w.beginObject()
        w.key("roll_deg"); w.number(Self.publishedAngle(rollDeg))
        w.key("pitch_deg"); w.number(Self.publishedAngle(pitchDeg))
        w.key("enabled"); w.bool(tiltEnabled)
        w.endObject()
        w.key("sensor"); w.string(sensor)
        w.endObject()
        return w.bytes
    }
}

/// A STATE message the bridge cannot read (a daemon speaking another protocol version).
public struct BridgeStateError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
