/// The numbers of the `custom` style, each with its names and its one allowed range.
///
/// The table every surface reads, as `TiltParameter` is for tilt: the configuration file's
/// `[style.custom]` keys, the `set_style` request's `custom` object and LAYOUT's `custom` object
/// use `wireName` (snake_case: `next_rotate_y`), `carouselctl simulate` scenarios use
/// `scenarioPath` (`next.rotateY` inside the style object, docs/ENGINE.md "carouselctl simulate: scenarios"), and
/// `CustomStyle.validate()` applies `accepts(_:)` for all of them.
public enum CustomStyleParameter: CaseIterable, Hashable, Sendable {
    /// One number of one side's look (`CustomSide`).
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case translateX, translateY, translateZ, rotateX, rotateY, rotateZ, scale, opacity

        /// `translate_x`, `rotate_y`, `scale`, … (the INI/wire suffix).
        var wireSuffix: String {
            switch self {
            case .translateX: return "translate_x"
            case .translateY: return "translate_y"
            case .translateZ: return "translate_z"
            case .rotateX: return "rotate_x"
            case .rotateY: return "rotate_y"
            case .rotateZ: return "rotate_z"
            case .scale: return "scale"
            case .opacity: return "opacity"
            }
        }
    }

    /// A number of the previous side's look (items before the reference item).
    case previous(Field)
    /// A number of the next side's look (items after it).
    case next(Field)
    /// `CustomStyle.limit`, items.
    case limit
    /// `CustomStyle.perspective`, points.
    case perspective

    public static let allCases: [CustomStyleParameter] =
        Field.allCases.map { .previous($0) } + Field.allCases.map { .next($0) } + [.limit, .perspective]

    /// The configuration key and request field: `prev_translate_x` … `next_opacity`, `limit`,
    /// `perspective` (the names; `prev_` keeps INI lines short).
    public var wireName: String {
        switch self {
        case let .previous(f): return "prev_" + f.wireSuffix
        case let .next(f): return "next_" + f.wireSuffix
        case .limit: return "limit"
        case .perspective: return "perspective"
        }
    }

    /// The scenario key path inside the style object: `previous.translateX`, `next.opacity`,
    /// `limit`, `perspective` (also the engine's field name after `style.`).
    public var scenarioPath: String {
        switch self {
        case let .previous(f): return "previous." + f.rawValue
        case let .next(f): return "next." + f.rawValue
        case .limit: return "limit"
        case .perspective: return "perspective"
        }
    }

    /// Whether `value` is allowed (NaN and infinities never are). Translations within ±1000
    /// pitches, rotations within ±3600°, scale in [0, 100], opacity in [0, 1], limit in
    /// (0, 1000] items, perspective 0 (none) or in [1, 1 000 000] points.
    public func accepts(_ value: Double) -> Bool {
        switch self {
        case let .previous(f), let .next(f):
            switch f {
            case .translateX, .translateY, .translateZ: return (-1000...1000).contains(value)
            case .rotateX, .rotateY, .rotateZ: return (-3600...3600).contains(value)
            case .scale: return (0...100).contains(value)
            case .opacity: return (0...1).contains(value)
            }
        case .limit: return value > 0 && value <= CustomStyle.maximumLimit
        case .perspective: return value == 0 || (value >= 1 && value <= 1e6)
        }
    }

    /// What `accepts(_:)` allows, for messages: "must lie within ±1000 pitches".
    public var requirement: String {
        switch self {
        case let .previous(f), let .next(f):
            switch f {
            case .translateX, .translateY, .translateZ: return "must lie within ±1000 pitches"
            case .rotateX, .rotateY, .rotateZ: return "must lie within ±3600 degrees"
            case .scale: return "must lie in [0, 100]"
            case .opacity: return "must lie in [0, 1]"
            }
        case .limit: return "must be > 0 and ≤ \(Int(CustomStyle.maximumLimit)) items"
        case .perspective: return "must be 0 (none) or lie in [1, 1000000] points"
        }
    }

    /// This parameter's value in `style`.
    public func value(in style: CustomStyle) -> Double {
        switch self {
        case let .previous(f): return f.value(in: style.previous)
        case let .next(f): return f.value(in: style.next)
        case .limit: return style.limit
        case .perspective: return style.perspective
        }
    }

    /// Sets this parameter in `style` (unchecked: call `CustomStyle.validate()` after).
    public func set(_ value: Double, in style: inout CustomStyle) {
        switch self {
        case let .previous(f): f.set(value, in: &style.previous)
        case let .next(f): f.set(value, in: &style.next)
        case .limit: style.limit = value
        case .perspective: style.perspective = value
        }
    }
}

extension CustomStyleParameter.Field {
    func value(in side: CustomSide) -> Double {
        switch self {
        case .translateX: return side.translateX
        case .translateY: return side.translateY
        case .translateZ: return side.translateZ
        case .rotateX: return side.rotateX
        case .rotateY: return side.rotateY
        case .rotateZ: return side.rotateZ
        case .scale: return side.scale
        case .opacity: return side.opacity
        }
    }

    func set(_ value: Double, in side: inout CustomSide) {
        switch self {
        case .translateX: side.translateX = value
        case .translateY: side.translateY = value
        case .translateZ: side.translateZ = value
        case .rotateX: side.rotateX = value
        case .rotateY: side.rotateY = value
        case .rotateZ: side.rotateZ = value
        case .scale: side.scale = value
        case .opacity: side.opacity = value
        }
    }
}
