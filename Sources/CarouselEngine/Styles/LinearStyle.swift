/// Parameters of the `linear` style (seed 003, the "expanding" flow layout). Defaults:
/// `minScaleW` 1, `minScaleH` 0.7, `minAlpha` 0.5 (dimensionless).
///
/// With `d` the item's distance from the viewport center (points), `W` the viewport length and
/// `w` the item length along the axis:
/// `baseScale = clamp(1 − |d| / (W + w), 0, 1)`, and each of the scales along (`minScaleW`),
/// across (`minScaleH`) and alpha (`minAlpha`) is `min + baseScale · (1 − min)`: the minimum
/// when `baseScale` is 0, 1 when the item is centered. The item stays on the line
/// (`centerOffset = d`); `zIndex = −|d|` so the centered item is on top where items overlap.
public struct LinearStyle: Hashable, Sendable {
    /// Scale along the axis when `baseScale` is 0 (the seed's `minScaleW`).
    public var minScaleW: Double
    /// Scale across the axis when `baseScale` is 0 (the seed's `minScaleH`).
    public var minScaleH: Double
    /// Opacity when `baseScale` is 0, in [0, 1] (the seed's `minAlpha`).
    public var minAlpha: Double

    public init(minScaleW: Double = 1, minScaleH: Double = 0.7, minAlpha: Double = 0.5) {
        self.minScaleW = minScaleW
        self.minScaleH = minScaleH
        self.minAlpha = minAlpha
    }

    /// `baseScale = clamp(1 − |d| / (W + w), 0, 1)` (seed 003; the clamp is docs/STYLES.md "linear"'s).
    func baseScale(distance d: Double, geometry g: StyleGeometry) -> Double {
        let span = g.viewportAlong + g.itemAlong
        guard span.isFinite, span > 0 else { return d == 0 ? 1 : 0 }
        return StyleMath.clamp(1 - d.magnitude / span, 0, 1)
    }

    func output(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let base = baseScale(distance: d, geometry: g)
        let along = minScaleW + base * (1 - minScaleW)
        let cross = minScaleH + base * (1 - minScaleH)
        // The seed writes `abs(alpha)`; the upper clamp keeps a `minAlpha` above 1 legal.
        let alpha = min(1, (minAlpha + base * (1 - minAlpha)).magnitude)
        return StyleOutput(centerOffset: d, scaleAlong: along, scaleCross: cross, alpha: alpha,
                           zIndex: -d.magnitude, transform: .scale(along, cross, 1))
    }

    /// `W / 2 + w / 2 · max(1, |minScaleW|)`: the item never leaves its slot's center and its
    /// along-scale lies between `minScaleW` and 1.
    func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        let growth = minScaleW.isFinite ? max(1, minScaleW.magnitude) : 1
        return g.viewportAlong / 2 + g.itemAlong / 2 * growth
    }
}
