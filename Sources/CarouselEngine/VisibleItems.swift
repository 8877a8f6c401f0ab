/// The visible-item query: O(visible items), independent of the item count.
extension CarouselEngine {
    /// Upper bound on the slots one query enumerates, a guard against degenerate geometries
    /// (a pitch far smaller than the viewport) making one frame unbounded.
    public static let maximumVisibleSlots = 4096

    /// The attributes of every item whose (transformed) frame can intersect the viewport, sorted
    /// by unwrapped slot. Only slots within the style's `maximumVisibleDistance` of the viewport
    /// center are enumerated.
    public func visibleItems() -> [ItemAttributes] {
        let g = geometry
        guard g.count > 0 else { return [] }
        let p = g.pitch
        let shown = displayedOffset
        let styleGeometry = g.styleGeometry
        let reach = configuration.style.maximumVisibleDistance(geometry: styleGeometry)
        guard reach.isFinite, reach >= 0 else { return [] }
        var first = saturatingInt(((shown - reach) / p).rounded(.up))
        var last = saturatingInt(((shown + reach) / p).rounded(.down))
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
            let output = configuration.style.output(distance: distance, geometry: styleGeometry)
            let index = g.wraps ? Cyclic.wrap(slot, g.count) : slot
            let instance = g.wraps ? Cyclic.instance(slot, g.count) : 0
            items.append(LayoutMapping.attributes(of: output, index: index, instance: instance, slot: slot,
                                                  geometry: g))
        }
        return items
    }
}

/// Maps a style's logical-frame output (horizontal, LTR) to the real axis and direction.
public enum LayoutMapping {
    /// The attributes in real viewport coordinates.
    ///
    /// - RTL (horizontal only): mirror x, i.e. the center goes to `viewportCenter − centerOffset`
    ///   and the transform is conjugated by `diag(−1, 1, 1, 1)`.
    /// - Vertical: swap x and y, i.e. the center goes to `(viewportCenterX, viewportCenterY +
    ///   centerOffset)`, the transform is conjugated by the x/y permutation and the scales swap.
    public static func attributes(of output: StyleOutput, index: Int, instance: Int, slot: Int,
                                  geometry g: CarouselGeometry) -> ItemAttributes {
        var transform = output.transform
        var center: CarouselPoint
        var scaleX = output.scaleAlong, scaleY = output.scaleCross
        switch g.axis {
        case .horizontal:
            if g.isMirrored {
                transform = mirroredX(transform)
                center = CarouselPoint(x: g.viewport.width / 2 - output.centerOffset, y: g.viewport.height / 2)
            } else {
                center = CarouselPoint(x: g.viewport.width / 2 + output.centerOffset, y: g.viewport.height / 2)
            }
        case .vertical:
            transform = swappedXY(transform)
            center = CarouselPoint(x: g.viewport.width / 2, y: g.viewport.height / 2 + output.centerOffset)
            swap(&scaleX, &scaleY)
        }
        return ItemAttributes(index: index, instance: instance, slot: slot, center: center, size: g.item,
                              scaleX: scaleX, scaleY: scaleY, alpha: output.alpha, zIndex: output.zIndex,
                              transform: transform)
    }

    /// `S · M · S` with `S = diag(−1, 1, 1, 1)`: negates the entries with exactly one index 1.
    public static func mirroredX(_ m: Transform3D) -> Transform3D {
        Transform3D(m.m11, -m.m12, -m.m13, -m.m14,
                    -m.m21, m.m22, m.m23, m.m24,
                    -m.m31, m.m32, m.m33, m.m34,
                    -m.m41, m.m42, m.m43, m.m44)
    }

    /// `P · M · P` with `P` the permutation swapping x and y: `m'ij = m(π i)(π j)`.
    public static func swappedXY(_ m: Transform3D) -> Transform3D {
        Transform3D(m.m22, m.m21, m.m23, m.m24,
                    m.m12, m.m11, m.m13, m.m14,
                    m.m32, m.m31, m.m33, m.m34,
                    m.m42, m.m41, m.m43, m.m44)
    }
}
