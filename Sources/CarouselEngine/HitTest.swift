/// Tap hit-testing on transformed item frames (seed 000's tap-to-center).
public enum HitTest {
    /// The item drawn on top at `point` (viewport coordinates). Items are tried by descending
    /// `zIndex`; equal `zIndex` values (a style that does not order its items) are broken by
    /// distance from `viewportCenter`, nearest on top (as in the stacked seed), then by list
    /// order. An item is hit when the point lies inside the quadrilateral obtained by projecting
    /// its rectangle's corners (`±width/2, ±height/2`) through its transform about its center;
    /// items with a corner behind the eye or with alpha 0 are skipped.
    public static func topmostItem(at point: CarouselPoint, in items: [ItemAttributes],
                                   viewportCenter: CarouselPoint? = nil) -> ItemAttributes? {
        func distance(_ item: ItemAttributes) -> Double {
            guard let c = viewportCenter else { return 0 }
            let dx = item.center.x - c.x, dy = item.center.y - c.y
            return dx * dx + dy * dy
        }
        let order = items.indices.sorted { a, b in
            if items[a].zIndex != items[b].zIndex { return items[a].zIndex > items[b].zIndex }
            let da = distance(items[a]), db = distance(items[b])
            if da != db { return da < db }
            return a < b
        }
        for i in order where contains(items[i], point) {
            return items[i]
        }
        return nil
    }

    /// Whether `point` lies inside the item's transformed frame.
    public static func contains(_ item: ItemAttributes, _ point: CarouselPoint) -> Bool {
        guard item.alpha > 0 else { return false }
        let hw = item.size.width / 2, hh = item.size.height / 2
        var corners: [(x: Double, y: Double)] = []
        for (x, y) in [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)] {
            guard let q = item.transform.project(x: x, y: y) else { return false }
            corners.append((item.center.x + q.x, item.center.y + q.y))
        }
        return polygonContains(corners, point)
    }

    /// Even–odd rule; points on an edge count as inside for the left/top edges only.
    static func polygonContains(_ polygon: [(x: Double, y: Double)], _ p: CarouselPoint) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y) {
                let xCross = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x
                if p.x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
