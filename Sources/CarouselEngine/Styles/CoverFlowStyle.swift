/// Parameters of the `coverFlow` style (iCarousel-style cover flow). Defaults: `tilt` 0.9,
/// `spacing` 0.25 (both dimensionless).
///
/// With `o = d / p` (items), `c = clamp(o, −1, 1)` and `w` the item length along the axis:
/// `x = (c · 0.5 · tilt + o · spacing) · w` is the `centerOffset`, the depth is
/// `z = −|c| · w / 2` and the item turns about y by `−c · π/2 · tilt` (the right-hand cards'
/// outer edges come toward the viewer, facing the center). `transform` = rotate, then move
/// by `z`, then perspective `m34 = −1/500`; `zIndex = −|d|`. For 2D clients
/// `scaleCross = 1 / (1 − z / 500)` (perspective at the item's depth) and
/// `scaleAlong = cos(angle) · scaleCross` (foreshortening).
public struct CoverFlowStyle: Hashable, Sendable {
    /// How far side cards turn (1 = a quarter turn) and how far they move out, in half-widths.
    public var tilt: Double
    /// Distance between the side cards, in item lengths; negative values act as 0.
    public var spacing: Double

    public init(tilt: Double = 0.9, spacing: Double = 0.25) {
        self.tilt = tilt
        self.spacing = spacing
    }

    /// The largest number of side cards (beyond the first on each side) the visibility bound
    /// counts: with a tiny `spacing` the pile would otherwise list thousands of slivers.
    public static let maximumPileItems: Double = 1000

    var effectiveSpacing: Double { spacing > 0 ? spacing : 0 }

    func output(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let w = g.itemAlong
        let o = d / StyleMath.itemPitch(g)
        let c = StyleMath.clamp(o, -1, 1)
        let x = (c * 0.5 * tilt + o * effectiveSpacing) * w
        let z = -c.magnitude * w / 2
        let angle = -c * (Double.pi / 2) * tilt
        let cosAngle = cosine(angle), sinAngle = sine(angle)
        let perspective = StyleMath.perspectiveFactor(depth: z)
        return StyleOutput(centerOffset: x, scaleAlong: cosAngle * perspective,
                           scaleCross: perspective, alpha: 1, zIndex: -d.magnitude,
                           transform: .styleItem(cosine: cosAngle, sine: sinAngle, depth: z))
    }

    /// Beyond one item the cards keep their turn and depth (`c = ±1`) and move out by
    /// `spacing · w` per item. There a card's projected half-length is at most `w / 2` (its
    /// corners stay behind its center plane's depth 0, so perspective only shrinks them), so a
    /// card with `x − w / 2 > W / 2` is off screen: `o > (W/2 + w/2 − 0.5 · tilt · w) / (spacing · w)`.
    /// The bound is that many items (at least 1, at most 1 + `maximumPileItems`; 2 with zero
    /// spacing, where each nearer card covers the further ones exactly) times `p`, and never
    /// less than `W / 2 + w / 2`.
    func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        let W = g.viewportAlong, w = g.itemAlong
        let step = effectiveSpacing * w
        var items: Double
        if step > 0 {
            items = (W / 2 + w / 2 - 0.5 * tilt * w) / step
            items = StyleMath.clamp(items, 1, 1 + CoverFlowStyle.maximumPileItems)
        } else {
            items = 2
        }
        return max(W / 2 + w / 2, items * StyleMath.itemPitch(g))
    }
}
