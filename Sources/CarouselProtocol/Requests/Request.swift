import CarouselEngine

/// A touch phase of the `drag` command.
public enum DragPhase: String, Sendable, Equatable, CaseIterable {
    case began, moved, ended
}

/// A width and height in points.
public struct WireSize: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// `watch`: subscribe to (or, with `enable: false`, leave) the STATE/INDEX/SENSOR stream.
public struct WatchRequest: Sendable, Equatable {
    /// Start (true, the default) or stop watching.
    public var enable: Bool
    /// Include per-item attributes in STATE (default false).
    public var items: Bool
    /// Highest STATE rate wanted, Hz; nil: the server's `max_rate_hz`. The server caps it.
    public var maxRateHz: Double?
    /// Also send ORIENTATION: the current one after the first STATE, then one per change
    /// (default false; protocol 1.2).
    public var orientation: Bool
    public init(enable: Bool = true, items: Bool = false, maxRateHz: Double? = nil, orientation: Bool = false) {
        self.enable = enable
        self.items = items
        self.maxRateHz = maxRateHz
        self.orientation = orientation
    }
}

/// `set_geometry`: the display client's real viewport and card sizes, in points.
public struct GeometryRequest: Sendable, Equatable {
    public var viewport: WireSize
    public var item: WireSize
    /// Gap between neighbouring items along the axis, points (≥ 0); nil keeps the current
    /// spacing (as an omitted `axis` keeps the axis: every omitted field keeps its value).
    public var spacing: Double?
    /// nil keeps the current axis.
    public var axis: ScrollAxis?
    /// nil keeps the current direction.
    public var direction: LayoutDirection?
    public init(viewport: WireSize, item: WireSize, spacing: Double? = nil, axis: ScrollAxis? = nil,
                direction: LayoutDirection? = nil) {
        self.viewport = viewport
        self.item = item
        self.spacing = spacing
        self.axis = axis
        self.direction = direction
    }
}

/// `set_tilt`: runtime tilt settings; every field is optional and an absent one keeps the
/// current value.
public struct TiltRequest: Sendable, Equatable {
    public var enabled: Bool?
    /// Rate control or bounded parallax.
    public var mode: TiltMode?
    /// The numbers given (`dead_zone_deg`, `max_deg`, `max_items_per_second`), each within its
    /// `TiltParameter.range`.
    public var values: [TiltParameter: Double]

    public init(enabled: Bool? = nil, mode: TiltMode? = nil, values: [TiltParameter: Double] = [:]) {
        self.enabled = enabled
        self.mode = mode
        self.values = values
    }

    /// `settings` with this request's fields applied (unchecked: see `TiltSettings.check()`).
    public func applied(to settings: TiltSettings) -> TiltSettings {
        var result = settings
        if let enabled { result.enabled = enabled }
        if let mode { result.mode = mode }
        for (parameter, value) in values { parameter.set(value, in: &result) }
        return result
    }
}

/// One client request (docs/PROTOCOL.md "Requests"). Locations are along the scroll axis in viewport points;
/// velocities in points per second.
public enum Request: Sendable, Equatable {
    case watch(WatchRequest)
    case poll
    case status
    case sensors
    /// Stream raw samples (control).
    case samples(enable: Bool)
    /// Scroll so that item `index` is centered.
    case scrollTo(index: Int, animated: Bool)
    /// A touch drag: finger `location` along the axis, optional finger `velocity` (pt/s) on `ended`.
    case drag(phase: DragPhase, location: Double, velocity: Double?)
    /// A tap at `location` along the axis and optional `cross` across it.
    case tap(location: Double, cross: Double?)
    /// The outer scroll view's content offset `y`, points.
    case outerScroll(y: Double)
    /// The outer scroll ended (optionally at `y`).
    case outerScrollEnded(y: Double?)
    case setCount(Int)
    case setGeometry(GeometryRequest)
    case setTilt(TiltRequest)
    case recenterTilt
    case reload
    /// Autoplay at run time: pause/resume, on/off, interval, resume delay, step.
    case setAutoplay(AutoplayRequest)
    /// Insert items before item `at`, keeping the current card in place.
    case insertItems(ItemEditRequest)
    /// Remove items from item `at`, keeping the current card (or its neighbour) in place.
    case removeItems(ItemEditRequest)
    /// Change the layout style.
    case setStyle(StyleRequest)
    /// The display's rotation, degrees clockwise: 0, 90, 180 or 270 (a web page's
    /// `screen.orientation.angle`); protocol 1.2.
    case setDisplayRotation(degrees: Int)

    /// The wire name of the command.
    public var cmd: String {
        switch self {
        case .watch: return "watch"
        case .poll: return "poll"
        case .status: return "status"
        case .sensors: return "sensors"
        case .samples: return "samples"
        case .scrollTo: return "scroll_to"
        case .drag: return "drag"
        case .tap: return "tap"
        case .outerScroll: return "outer_scroll"
        case .outerScrollEnded: return "outer_scroll_ended"
        case .setCount: return "set_count"
        case .setGeometry: return "set_geometry"
        case .setTilt: return "set_tilt"
        case .recenterTilt: return "recenter_tilt"
        case .reload: return "reload"
        case .setAutoplay: return "set_autoplay"
        case .insertItems: return "insert_items"
        case .removeItems: return "remove_items"
        case .setStyle: return "set_style"
        case .setDisplayRotation: return "set_display_rotation"
        }
    }

    /// Whether the command needs control rights (uid 0, the daemon's uid, or `control_group`).
    public var requiresControl: Bool {
        switch self {
        case .watch, .poll, .status, .sensors: return false
        default: return true
        }
    }

    /// Every command name the server knows.
    public static let commandNames: [String] = [
        "watch", "poll", "status", "sensors", "samples", "scroll_to", "drag", "tap", "outer_scroll",
        "outer_scroll_ended", "set_count", "set_geometry", "set_tilt", "recenter_tilt", "reload",
        "set_autoplay", "insert_items", "remove_items", "set_style", "set_display_rotation",
    ]
}
