import CarouselEngine

/// `LAYOUT {viewport {width, height}, item {width, height}, spacing, axis, direction, style,
/// cyclic, count}` (protocol 1.1): the layout a display draws, which STATE does not carry.
/// The daemon sends it to a watcher right after `WATCH` when watching is enabled, and to every
/// watcher whenever one of these fields changes (`set_geometry`, `set_count`, a reload, another
/// client's change), before the STATE that shows the change. Lengths in points (one point is one
/// CSS pixel for a web display).
public struct LayoutMessage: Sendable, Equatable {
    /// Viewport size, points.
    public var viewport: CarouselSize
    /// Untransformed item size, points.
    public var item: CarouselSize
    /// Gap between neighbouring items along the axis, points.
    public var spacing: Double
    /// `horizontal` or `vertical`.
    public var axis: String
    /// `ltr` or `rtl` (a vertical carousel is never mirrored).
    public var direction: String
    /// The layout style's name as in the configuration (`linear`, `zoom`, `stacked`,
    /// `coverFlow`, `rotary`, `cylinder`).
    public var style: String
    public var cyclic: Bool
    /// Number of items.
    public var count: Int

    /// The layout of an engine configuration.
    public init(_ configuration: CarouselConfiguration) {
        let g = configuration.geometry
        viewport = g.viewport
        item = g.item
        spacing = g.spacing
        axis = g.axis.rawValue
        direction = g.direction.rawValue
        style = Self.name(of: configuration.style)
        cyclic = g.cyclic
        count = g.count
    }

    /// The configuration's name for a style (`[carousel] style`, simulate's `style`).
    public static func name(of style: LayoutStyle) -> String {
        switch style {
        case .linear: return "linear"
        case .zoom: return "zoom"
        case .stacked: return "stacked"
        case .coverFlow: return "coverFlow"
        case .rotary: return "rotary"
        case .cylinder: return "cylinder"
        case .custom: return "custom"
        }
    }

    /// The NDJSON line, ending with `\n`.
    public func encodedLine() -> [UInt8] {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("class"); w.string("LAYOUT")
        w.key("viewport"); Self.write(viewport, to: &w)
        w.key("item"); Self.write(item, to: &w)
        w.key("spacing"); w.number(spacing)
        w.key("axis"); w.string(axis)
        w.key("direction"); w.string(direction)
        w.key("style"); w.string(style)
        w.key("cyclic"); w.bool(cyclic)
        w.key("count"); w.int(count)
        w.endObject()
        return w.bytes + [0x0A]
    }

    private static func write(_ size: CarouselSize, to w: inout WireJSONWriter) {
        w.beginObject()
        w.key("width"); w.number(size.width)
        w.key("height"); w.number(size.height)
        w.endObject()
    }
}
