/// Parameters of the `rotary` and `cylinder` styles (iCarousel-style rings). Default `spacing`
/// 1 (item lengths between neighbours on the ring; negative values act as 0).
///
/// Both place item `o = d / p` (items) at the angle `θ = o / ringCount · 2π` on a ring of
/// `ringCount` places seen from outside, the centered item at the front; see `ringCount`,
/// `rotaryRadius`, `cylinderRadius` and `docs/STYLES.md`.
public struct RingStyle: Hashable, Sendable {
    /// Item lengths between neighbouring places on the ring.
    public var spacing: Double

    public init(spacing: Double = 1) {
        self.spacing = spacing
    }

    /// The largest ring (iCarousel's `MAX_VISIBLE_ITEMS`).
    public static let maximumRingCount = 30
    /// The smallest ring when there are enough items (iCarousel's "aesthetic" 12).
    public static let minimumRingCount = 12

    var effectiveSpacing: Double { spacing > 0 ? spacing : 0 }

    /// Number of places on the ring: `min(30, max(12, ceil(W / (spacing · w)) · π))`, the
    /// product truncated toward zero to an integer (iCarousel keeps the count in an integer,
    /// and W 375, w 200 must give 12 for DESIGN's r = 373.2), then capped at the item count
    /// and at least 1 (so zero items still give a finite ring). Examples: W 375, w 200 → 12;
    /// W 1000, w 200 → ⌊5π⌋ = 15; W 2000, w 100 → 30.
    public func ringCount(geometry g: StyleGeometry) -> Int {
        let perViewport = g.viewportAlong / (effectiveSpacing * g.itemAlong)
        let places: Double
        if perViewport.isNaN {
            places = Double(RingStyle.minimumRingCount)
        } else {
            // ±∞ survives `rounded(.up) * π` and is then clamped.
            places = StyleMath.clamp(perViewport.rounded(.up) * Double.pi,
                                     Double(RingStyle.minimumRingCount),
                                     Double(RingStyle.maximumRingCount))
        }
        return max(1, min(Int(places), g.count))
    }

    /// Half the item's along-length times the spacing, `w · spacing / 2`: the half-chord
    /// between neighbouring places (points).
    func halfChord(_ g: StyleGeometry) -> Double {
        let h = g.itemAlong * effectiveSpacing / 2
        return h.isFinite ? h : 0
    }

    /// `r = max(w · spacing / 2, w · spacing / 2 / tan(π / ringCount))`, points (rotary).
    /// W 375, w 200, spacing 1, ≥ 12 items: 100 / tan(15°) = 373.205.
    public func rotaryRadius(geometry g: StyleGeometry) -> Double {
        rotaryRadius(geometry: g, ringCount: ringCount(geometry: g))
    }

    func rotaryRadius(geometry g: StyleGeometry, ringCount n: Int) -> Double {
        let h = halfChord(g)
        return max(h, h / tangent(Double.pi / Double(n)))
    }

    /// `r = max(0.01, w · spacing / 2 / tan(π / ringCount))`, points (cylinder).
    public func cylinderRadius(geometry g: StyleGeometry) -> Double {
        cylinderRadius(geometry: g, ringCount: ringCount(geometry: g))
    }

    func cylinderRadius(geometry g: StyleGeometry, ringCount n: Int) -> Double {
        max(0.01, halfChord(g) / tangent(Double.pi / Double(n)))
    }

    /// The angle of the item `d` points from the center, `θ = (d / p) / ringCount · 2π`,
    /// radians, positive toward higher indices.
    public func angle(distance d: Double, geometry g: StyleGeometry) -> Double {
        angle(distance: d, geometry: g, ringCount: ringCount(geometry: g))
    }

    func angle(distance d: Double, geometry g: StyleGeometry, ringCount n: Int) -> Double {
        d / StyleMath.itemPitch(g) / Double(n) * (2 * Double.pi)
    }

    /// `max(ringCount / 2 · p, W / 2 + w / 2)`: the half turn either side of the front, and
    /// never less than the reach of every item whose untransformed frame meets the viewport
    /// (docs/ENGINE.md "Visible items"). On a small ring (few items, a wide viewport) the second term wins and
    /// some items lie more than half a turn round: they then share a place with a nearer item,
    /// and `zIndex = −|d|` keeps the nearer one on top (a client that draws by zIndex shows
    /// the same picture as with half a turn).
    func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        let halfTurn = Double(ringCount(geometry: g)) / 2 * StyleMath.itemPitch(g)
        return max(halfTurn, g.viewportAlong / 2 + g.itemAlong / 2)
    }
}
