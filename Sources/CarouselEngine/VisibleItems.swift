/// The visible-item query: O(visible items), independent of the item count.
extension CarouselEngine {
    /// Upper bound on the slots one query enumerates, a guard against degenerate geometries
    /// (a pitch far smaller than the viewport) making one frame unbounded.
    public static let maximumVisibleSlots = 4096

    /// The attributes of every item whose (transformed) frame can intersect the viewport, sorted
    /// by unwrapped slot. Only slots within the style's `maximumVisibleDistance` of the reference
    /// point are enumerated, plus |`alignmentShift`| on the side the picture moved away from
    /// (`reachBelow`/`reachAbove`). Styles see the distance from the reference point,
    /// `d = (i − position) · p`; with `start`/`end` alignment the whole styled picture is then
    /// moved by `alignmentShift`, so the reference item looks as a centered item does, only at
    /// the viewport's start or end.
    public func visibleItems() -> [ItemAttributes] {
        let g = geometry
        guard g.count > 0 else { return [] }
        let p = g.pitch
        let shown = displayedOffset
        let styleGeometry = g.styleGeometry
        let shift = g.alignmentShift
        let reach = configuration.style.maximumVisibleDistance(geometry: styleGeometry)
        guard reach.isFinite, reach >= 0 else { return [] }
        let (below, above) = CarouselConfiguration.reaches(reach, shift: shift)
        var first = saturatingInt(((shown - below) / p).rounded(.up))
        var last = saturatingInt(((shown + above) / p).rounded(.down))
        if !g.wraps {
            first = max(first, 0)
            last = min(last, g.count - 1)
        }
        guard first <= last else { return [] }
        if last - first >= Self.maximumVisibleSlots {
            // Keep the slots nearest the center.
            let middle = nearestSlot(shown / p)
            first = max(first, middle - Self.maximumVisibleSlots / 2)
            last = min(last, first + Self.maximumVisibleSlots - 1)
        }
        var items: [ItemAttributes] = []
        items.reserveCapacity(last - first + 1)
        for slot in first...last {
            let distance = Double(slot) * p - shown
            var output = configuration.style.output(distance: distance, geometry: styleGeometry)
            if shift != 0 { output.centerOffset += shift }
            let index = g.wraps ? Cyclic.wrap(slot, g.count) : slot
            let instance = g.wraps ? Cyclic.instance(slot, g.count) : 0
            items.append(LayoutMapping.attributes(of: output, index: index, instance: instance, slot: slot,
                                                  geometry: g))
        }
        return items
    }
}

extension CarouselConfiguration {
    /// The most items one `visibleItems()` query can return with this configuration: the slots
    /// within the style's reach either side of the reference point, the alignment's shift added
    /// on one side (`⌊(2 · reach + |shift|) / p⌋ + 1`), at most the
    /// item count when not wrapping, and at most `CarouselEngine.maximumVisibleSlots`. Lets a
    /// caller bound its output before running (e.g. `carouselctl simulate`).
    public var maximumVisibleItemCount: Int {
        let g = geometry
        guard g.count > 0 else { return 0 }
        let reach = style.maximumVisibleDistance(geometry: g.styleGeometry)
        guard reach.isFinite, reach >= 0 else { return 0 }
        let (below, above) = Self.reaches(reach, shift: g.alignmentShift)
        let slots = ((below + above) / g.pitch).rounded(.down) + 1
        var bound = Double(CarouselEngine.maximumVisibleSlots)
        if !g.wraps { bound = min(bound, Double(g.count)) }
        return Int(min(slots, bound))
    }

    /// How far below and above the reference point (points of `d`) an item can still reach the
    /// viewport, for a style whose reach is `reach` when centered and a picture moved by `shift`
    /// (`alignmentShift`). An item at `d` is drawn at `s(d) + shift`, so on the side the picture
    /// moved away from (`d > 0` for a negative shift, the `start` alignment) it can reach the
    /// viewport from up to `|shift|` further (the style's `s(d)` grows at most as fast as `d`
    /// there, as every style's reach assumes); on the other side the window it must meet is
    /// narrower than when centered, so the centered reach bounds it.
    static func reaches(_ reach: Double, shift: Double) -> (below: Double, above: Double) {
        (reach + max(shift, 0), reach + max(-shift, 0))
    }
}

/// Maps a style's logical-frame output (horizontal, LTR) to the real axis and direction.
public enum LayoutMapping {
    /// The attributes in real viewport coordinates.
    ///
    /// - RTL (horizontal only): mirror x, i.e. the center goes to `viewportCenter − centerOffset`
    ///   and the transform is `reflectingX()` (conjugated by `diag(−1, 1, 1, 1)`).
    /// - Vertical: swap x and y, i.e. the center goes to `(viewportCenterX, viewportCenterY +
    ///   centerOffset)`, the transform is `swappingXY()` and the scales swap.
    public static func attributes(of output: StyleOutput, index: Int, instance: Int, slot: Int,
                                  geometry g: CarouselGeometry) -> ItemAttributes {
        var transform = output.transform
        var center: CarouselPoint
        var scaleX = output.scaleAlong, scaleY = output.scaleCross
        switch g.axis {
        case .horizontal:
            if g.isMirrored {
                transform = transform.reflectingX()
                center = CarouselPoint(x: g.viewport.width / 2 - output.centerOffset, y: g.viewport.height / 2)
            } else {
                center = CarouselPoint(x: g.viewport.width / 2 + output.centerOffset, y: g.viewport.height / 2)
            }
        case .vertical:
            transform = transform.swappingXY()
            center = CarouselPoint(x: g.viewport.width / 2, y: g.viewport.height / 2 + output.centerOffset)
            swap(&scaleX, &scaleY)
        }
        return ItemAttributes(index: index, instance: instance, slot: slot, center: center, size: g.item,
                              scaleX: scaleX, scaleY: scaleY, alpha: output.alpha, zIndex: output.zIndex,
                              transform: transform)
    }
}
