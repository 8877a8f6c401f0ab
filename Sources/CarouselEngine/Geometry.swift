/// A width and a height in points.
public struct CarouselSize: Hashable, Sendable {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A point in viewport coordinates: points from the viewport's top-left corner, y down.
public struct CarouselPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// The scroll axis of the carousel.
public enum ScrollAxis: String, Hashable, Sendable, CaseIterable {
    case horizontal
    case vertical
}

/// The layout direction. Only a horizontal carousel is mirrored by `rightToLeft` (as UIKit's
/// semantic content attribute only flips the x axis); a vertical carousel ignores it.
public enum LayoutDirection: String, Hashable, Sendable, CaseIterable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"
}

/// Which point of an item rests on the same point of the viewport (Flickity `cellAlign`, Embla
/// `align`): the reference point of `index` and of the offset rule.
public enum ItemAlignment: String, Hashable, Sendable, CaseIterable {
    /// Item `i`'s leading edge on the viewport's leading edge at offset `i · p`.
    case start
    /// Item `i`'s center on the viewport's center at offset `i · p` (UIKit's centered paging).
    case center
    /// Item `i`'s trailing edge on the viewport's trailing edge at offset `i · p`.
    case end
}

/// The geometry of a carousel with UIKit `contentOffset` semantics (docs/ENGINE.md "Geometry").
///
/// With pitch `p = itemAlong + spacing` and a leading inset of `(viewportAlong - itemAlong) / 2`,
/// item `i` is centered exactly when `contentOffset = i * p`; the scroll range of a non-cyclic
/// carousel is `[0, (count - 1) * p]`. Offsets here are *logical*: they grow toward higher
/// indices whatever the axis and direction.
public struct CarouselGeometry: Hashable, Sendable {
    /// Viewport size in points (real axes: width is x).
    public var viewport: CarouselSize
    /// Item size in points (real axes, before any style scale).
    public var item: CarouselSize
    /// Gap between neighbouring items along the scroll axis (`minimumLineSpacing`), points.
    public var spacing: Double
    public var axis: ScrollAxis
    public var direction: LayoutDirection
    /// Number of items (≥ 0).
    public var count: Int
    /// Whether the carousel wraps around (infinite scrolling).
    public var cyclic: Bool
    /// The reference point: at offset `i · p` item `i` is aligned to the viewport's start,
    /// center or end. Default `center`.
    public var align: ItemAlignment
    /// Contained ends (Embla `containScroll: "trimSnaps"`, Flickity `contain`): a non-cyclic
    /// carousel scrolls only as far as its first and last items' outer edges meet the viewport's
    /// edges, never into blank space; snaps beyond are trimmed to those ends. Ignored when
    /// cyclic. Default `false`.
    public var contain: Bool

    public init(viewport: CarouselSize, item: CarouselSize, spacing: Double = 0,
                axis: ScrollAxis = .horizontal, direction: LayoutDirection = .leftToRight,
                count: Int, cyclic: Bool = false, align: ItemAlignment = .center, contain: Bool = false) {
        self.viewport = viewport
        self.item = item
        self.spacing = spacing
        self.axis = axis
        self.direction = direction
        self.count = count
        self.cyclic = cyclic
        self.align = align
        self.contain = contain
    }

    /// Viewport length along the scroll axis, points.
    @inlinable public var viewportAlong: Double { axis == .horizontal ? viewport.width : viewport.height }
    /// Viewport length across the scroll axis, points.
    @inlinable public var viewportCross: Double { axis == .horizontal ? viewport.height : viewport.width }
    /// Item length along the scroll axis, points.
    @inlinable public var itemAlong: Double { axis == .horizontal ? item.width : item.height }
    /// Item length across the scroll axis, points.
    @inlinable public var itemCross: Double { axis == .horizontal ? item.height : item.width }

    /// Distance between neighbouring item centers, `itemAlong + spacing`, points. Never below
    /// `minimumPitch`, so that positions stay finite even for a degenerate geometry.
    @inlinable public var pitch: Double { max(itemAlong + spacing, Self.minimumPitch) }

    /// The smallest pitch the engine works with (points); smaller pitches are raised to it.
    public static let minimumPitch = 1e-3

    /// Whether the content is mirrored on screen (horizontal right-to-left).
    @inlinable public var isMirrored: Bool { axis == .horizontal && direction == .rightToLeft }

    /// Whether wrapping is in effect (cyclic with at least one item).
    @inlinable public var wraps: Bool { cyclic && count > 0 }

    /// Where the reference item's untransformed center lies relative to the viewport's center
    /// along the axis (logical frame), points: `(w − W) / 2` for `start`, 0 for `center`,
    /// `(W − w) / 2` for `end`.
    @inlinable public var alignmentShift: Double {
        switch align {
        case .center: return 0
        case .start: return (itemAlong - viewportAlong) / 2
        case .end: return (viewportAlong - itemAlong) / 2
        }
    }

    /// Whether the scroll range is contained (`contain`, non-cyclic, at least one item).
    @inlinable public var isContained: Bool { contain && !wraps && count > 0 }

    /// The contained scroll range. With the content `L = (n − 1) · p + w` long and `c` the offset
    /// at which the viewport's start meets item 0's leading edge (0 for `start`, `(W − w) / 2`
    /// for `center`, `W − w` for `end`): `[c, c + L − W]`; content shorter than the viewport
    /// gets one offset, `c + a · (L − W)` with `a` = 0, ½, 1 for start, center, end (the whole
    /// content aligned like one item).
    var containedRange: (lower: Double, upper: Double) {
        let W = viewportAlong, w = itemAlong
        let length = Double(max(count - 1, 0)) * pitch + w
        let c: Double, a: Double
        switch align {
        case .start: (c, a) = (0, 0)
        case .center: (c, a) = ((W - w) / 2, 0.5)
        case .end: (c, a) = (W - w, 1)
        }
        if length <= W {
            let o = c + a * (length - W)
            return (o, o)
        }
        return (c, c + length - W)
    }

    /// The smallest offset of a non-cyclic carousel: 0, or the contained range's start.
    public var minimumOffset: Double { isContained ? containedRange.lower : 0 }

    /// The largest offset of a non-cyclic carousel, `(count - 1) * p` (0 when empty), or the
    /// contained range's end.
    public var maximumOffset: Double {
        isContained ? containedRange.upper : Double(max(count - 1, 0)) * pitch
    }

    /// The length of one cycle, `count * p` (points).
    @inlinable public var cycleLength: Double { Double(count) * pitch }

    /// The geometry in a style's logical frame.
    public var styleGeometry: StyleGeometry {
        StyleGeometry(viewportAlong: viewportAlong, viewportCross: viewportCross, itemAlong: itemAlong,
                      itemCross: itemCross, spacing: pitch - itemAlong, count: count)
    }

    /// Checks sizes, spacing and count against `CarouselLimits`: every length in
    /// (0, `maximumLength`], |spacing| ≤ `maximumLength`, a pitch of at least `minimumPitch`, and a
    /// count in [0, `maximumCount`].
    /// - Throws: `CarouselConfigurationError` naming the field (`viewport.width`, `item.height`,
    ///   `spacing`, `count`); a pitch below `minimumPitch` names `spacing` when it is negative,
    ///   else the item length along the axis.
    public func validate() throws(CarouselConfigurationError) {
        let limit = CarouselLimits.maximumLength
        for (field, v) in [("viewport.width", viewport.width), ("viewport.height", viewport.height),
                           ("item.width", item.width), ("item.height", item.height)] {
            guard v > 0, v <= limit else { throw .init(field: field, reason: "must be > 0 and ≤ \(Int(limit)) points") }
        }
        guard abs(spacing) <= limit else { throw .init(field: "spacing", reason: "must lie within ±\(Int(limit)) points") }
        guard itemAlong + spacing >= Self.minimumPitch else {
            // Blame what made the pitch too small: a negative spacing, else the item itself.
            if spacing < 0 {
                throw .init(field: "spacing", reason: "must leave a pitch (item length + spacing) of at least \(Self.minimumPitch) points")
            }
            throw .init(field: axis == .horizontal ? "item.width" : "item.height",
                        reason: "must make a pitch (item length + spacing) of at least \(Self.minimumPitch) points")
        }
        guard count >= 0, count <= CarouselLimits.maximumCount else {
            throw .init(field: "count", reason: "must lie in 0…\(CarouselLimits.maximumCount)")
        }
    }

    /// The index of the item nearest `offset`: `floor(offset / p + 0.5)` (ties go to the higher
    /// index), clamped to `[0, count - 1]`, or wrapped into it when cyclic; `nil` when empty.
    public func index(atOffset offset: Double) -> Int? {
        guard count > 0 else { return nil }
        let slot = nearestSlot(offset / pitch)
        if wraps { return Cyclic.wrap(slot, count) }
        return min(max(slot, 0), count - 1)
    }

    /// `offset` clamped to the scroll range `[minimumOffset, maximumOffset]` of a non-cyclic
    /// carousel (unchanged when cyclic).
    @inlinable public func clampOffset(_ offset: Double) -> Double {
        wraps ? offset : min(max(offset, minimumOffset), maximumOffset)
    }
}

/// The nearest integer slot of a fractional position: `floor(x + 0.5)`, ties toward the higher
/// index (docs/ENGINE.md "Geometry"). Saturates instead of trapping for absurd positions.
@inlinable func nearestSlot(_ position: Double) -> Int {
    saturatingInt((position + 0.5).rounded(.down))
}

/// Converts a whole `Double` to `Int`, saturating at ±2^52 and mapping NaN to 0.
@inlinable func saturatingInt(_ value: Double) -> Int {
    guard value.isFinite else { return value.isNaN ? 0 : (value > 0 ? 1 << 52 : -(1 << 52)) }
    return Int(min(max(value, -4.5e15), 4.5e15))
}
