import CarouselEngine

/// `set_autoplay`: runtime autoplay settings; every field is optional and an absent one keeps
/// the current value.
public struct AutoplayRequest: Sendable, Equatable {
    /// Switches autoplay on or off (it runs only with a positive interval too).
    public var enabled: Bool?
    /// The user's pause (a display's pause button, WCAG 2.2.2): lasts until `paused: false`.
    public var paused: Bool?
    /// Seconds at rest before each step: 0 (off) or 0.1…86400.
    public var intervalSeconds: Double?
    /// Seconds of rest after an interaction before autoplay goes on: 0…86400.
    public var resumeSeconds: Double?
    /// Snap positions per step, non-zero within ±1000.
    public var step: Int?

    public init(enabled: Bool? = nil, paused: Bool? = nil, intervalSeconds: Double? = nil,
                resumeSeconds: Double? = nil, step: Int? = nil) {
        self.enabled = enabled
        self.paused = paused
        self.intervalSeconds = intervalSeconds
        self.resumeSeconds = resumeSeconds
        self.step = step
    }
}

/// `insert_items` / `remove_items`: `count` items at item `at`.
public struct ItemEditRequest: Sendable, Equatable {
    /// The first item inserted before (0…count) or removed (0..<count).
    public var at: Int
    /// How many items, ≥ 1.
    public var count: Int
    /// Whether the neighbour of a removed current card slides in (default true).
    public var animated: Bool

    public init(at: Int, count: Int, animated: Bool = true) {
        self.at = at
        self.count = count
        self.animated = animated
    }
}

/// A layout style's name as in the configuration (`[carousel] style`), simulate scenarios and
/// LAYOUT's `style`.
public enum StyleName: String, CaseIterable, Sendable, Equatable {
    case linear, zoom, stacked, coverFlow, rotary, cylinder, custom

    /// The name of `style`.
    public init(_ style: LayoutStyle) {
        switch style {
        case .linear: self = .linear
        case .zoom: self = .zoom
        case .stacked: self = .stacked
        case .coverFlow: self = .coverFlow
        case .rotary: self = .rotary
        case .cylinder: self = .cylinder
        case .custom: self = .custom
        }
    }

    /// The style with its default parameters (docs/STYLES.md); `custom` takes `custom`.
    public func style(custom: CustomStyle) -> LayoutStyle {
        switch self {
        case .linear: return .linear(LinearStyle())
        case .zoom: return .zoom(ZoomStyle())
        case .stacked: return .stacked
        case .coverFlow: return .coverFlow(CoverFlowStyle())
        case .rotary: return .rotary(RingStyle())
        case .cylinder: return .cylinder(RingStyle())
        case .custom: return .custom(custom)
        }
    }
}

/// `set_style`: the layout style, and for `custom` the numbers to change (each a
/// `CustomStyleParameter` by its wire name, within its rule); the others keep the running
/// custom style's values.
public struct StyleRequest: Sendable, Equatable {
    public var style: StyleName
    /// The `custom` object's numbers (only with `style: "custom"`).
    public var custom: [CustomStyleParameter: Double]

    public init(style: StyleName, custom: [CustomStyleParameter: Double] = [:]) {
        self.style = style
        self.custom = custom
    }

    /// `base` with this request's `custom` numbers applied.
    public func customStyle(over base: CustomStyle) -> CustomStyle {
        var result = base
        for (parameter, value) in custom { parameter.set(value, in: &result) }
        return result
    }
}
