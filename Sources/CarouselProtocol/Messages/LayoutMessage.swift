import CarouselEngine

/// `LAYOUT {viewport {width, height}, item {width, height}, spacing, axis, direction, style,
/// cyclic, count, align, contain, group_size, custom?}` (protocol 1.1): the layout a display
/// draws, which STATE does not carry. `custom` (only with style `custom`) holds every
/// `CustomStyleParameter` by its wire name.
/// The daemon sends it to a watcher right after `WATCH` when watching is enabled, and to every
/// watcher whenever one of these fields changes (`set_geometry`, `set_count`, `set_style`,
/// `insert_items`, `remove_items`, a reload, another client's change), before the STATE that
/// shows the change. Lengths in points (one point is one
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
    /// The reference point of `index`: `start`, `center` or `end`.
    public var align: String
    /// Whether a non-cyclic carousel's scrolling stops at its ends' edges.
    public var contain: Bool
    /// Items per page (group paging), ≥ 1.
    public var groupSize: Int
    /// The parameters of the `custom` style, nil for the other styles.
    public var custom: CustomStyle?

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
        align = g.align.rawValue
        contain = g.contain
        groupSize = configuration.groupSize
        if case let .custom(c) = configuration.style { custom = c } else { custom = nil }
    }

    /// The configuration's name for a style (`[carousel] style`, simulate's `style`).
    public static func name(of style: LayoutStyle) -> String { StyleName(style).rawValue }

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
        w.key("align"); w.string(align)
        w.key("contain"); w.bool(contain)
        w.key("group_size"); w.int(groupSize)
        if let custom {
            w.key("custom"); w.beginObject()
            for parameter in CustomStyleParameter.allCases {
                w.key(parameter.wireName); w.number(parameter.value(in: custom))
            }
            w.endObject()
        }
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
