/// Parameters of the `zoom` style (seed 000's "3D" card zoom). Defaults: `scaleFactor` 0.2
/// (dimensionless), `activeDistance` `nil` = the viewport length along the axis (points).
///
/// `scale = 1 − scaleFactor · min(|d| / activeDistance, 1)`, applied uniformly as Core
/// Animation's `CATransform3DMakeScale(scale, scale, 1)` as in the seed; the item stays on the
/// line (`centerOffset = d`) and `zIndex = −|d|` (the seed uses a constant 1; ordering by
/// distance keeps the centered item on top should scaled items overlap).
public struct ZoomStyle: Hashable, Sendable {
    /// How much an item shrinks at `activeDistance` and beyond (0.2 → 80 % of its size).
    public var scaleFactor: Double
    /// Distance (points) over which the scale falls; `nil`, zero, negative or non-finite
    /// means the viewport length along the axis.
    public var activeDistance: Double?

    public init(scaleFactor: Double = 0.2, activeDistance: Double? = nil) {
        self.scaleFactor = scaleFactor
        self.activeDistance = activeDistance
    }

    /// The active distance in effect for `geometry`, points (> 0, or 0 for a degenerate
    /// zero-length viewport).
    func effectiveActiveDistance(_ g: StyleGeometry) -> Double {
        if let a = activeDistance, a.isFinite, a > 0 { return a }
        return g.viewportAlong.isFinite && g.viewportAlong > 0 ? g.viewportAlong : 0
    }

    /// `1 − scaleFactor · min(|d| / activeDistance, 1)` (seed 000; the `min` is docs/STYLES.md "zoom"'s).
    func scale(distance d: Double, geometry g: StyleGeometry) -> Double {
        let active = effectiveActiveDistance(g)
        let normalized = active > 0 ? min(d.magnitude / active, 1) : (d == 0 ? 0 : 1)
        return 1 - scaleFactor * normalized
    }

    func output(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let s = scale(distance: d, geometry: g)
        return StyleOutput(centerOffset: d, scaleAlong: s, scaleCross: s, alpha: 1,
                           zIndex: -d.magnitude, transform: .scale(s, s, 1))
    }

    /// `W / 2 + w / 2 · max(1, |1 − scaleFactor|)`: the scale moves linearly between 1 and
    /// `1 − scaleFactor`, so an item is never wider than that.
    func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        let farScale = (1 - scaleFactor).magnitude
        let growth = farScale.isFinite ? max(1, farScale) : 1
        return g.viewportAlong / 2 + g.itemAlong / 2 * growth
    }
}
