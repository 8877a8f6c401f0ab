/// Small numeric helpers shared by the layout styles (kept in a namespace so they cannot clash
/// with helpers elsewhere in the engine).
enum StyleMath {
    /// `x` limited to `[lo, hi]`; NaN gives `lo`.
    static func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double {
        x >= lo ? (x <= hi ? x : hi) : lo
    }

    /// The distance clamped to ±`LayoutStyle.distanceLimit`; NaN counts as infinitely far.
    static func limitedDistance(_ d: Double) -> Double {
        let limit = LayoutStyle.distanceLimit
        if d.magnitude <= limit { return d }
        return d < 0 ? -limit : limit
    }

    /// The pitch used to turn points into items (`o = d / p`): the geometry's pitch when it is
    /// a usable positive number, else a tiny positive stand-in so no division yields NaN.
    static func itemPitch(_ g: StyleGeometry) -> Double {
        let p = g.pitch
        return p.isFinite && p > minimumLength ? p : minimumLength
    }

    /// A length guaranteed positive and finite: `x` when it is, else `minimumLength`.
    static func positiveLength(_ x: Double) -> Double {
        x.isFinite && x > minimumLength ? x : minimumLength
    }

    /// Lengths below this (points) are treated as this, only to keep divisions finite.
    static let minimumLength: Double = 1e-9

    /// `−1` for negative distances, `+1` otherwise (the styles are mirror-symmetric in `d`).
    static func side(_ d: Double) -> Double { d < 0 ? -1 : 1 }

    /// The apparent 2D scale that perspective gives a flat item facing the viewer at depth
    /// `z` (points, negative = away): `1 / (1 − z / eye)` with `eye` the eye distance. Depths at
    /// or in front of the eye (never produced by the styles) give the largest finite factor.
    static func perspectiveFactor(depth z: Double) -> Double {
        let w = 1 - z / LayoutStyle.perspectiveEyeDistance
        return w > 1e-6 ? 1 / w : 1e6
    }
}

extension StyleOutput {
    /// Every number made finite (NaN → 0, ±∞ and huge values → ±10¹⁵) and `alpha` put in
    /// [0, 1]: the last line of defence behind the styles' own guards, so a client or a JSON
    /// encoder never sees NaN or infinity.
    func finite() -> StyleOutput {
        var o = self
        o.centerOffset = Self.bounded(o.centerOffset)
        o.scaleAlong = Self.bounded(o.scaleAlong)
        o.scaleCross = Self.bounded(o.scaleCross)
        o.alpha = StyleMath.clamp(o.alpha, 0, 1)
        o.zIndex = Self.bounded(o.zIndex)
        let t = o.transform
        if !(t.m11.isFinite && t.m12.isFinite && t.m13.isFinite && t.m14.isFinite
            && t.m21.isFinite && t.m22.isFinite && t.m23.isFinite && t.m24.isFinite
            && t.m31.isFinite && t.m32.isFinite && t.m33.isFinite && t.m34.isFinite
            && t.m41.isFinite && t.m42.isFinite && t.m43.isFinite && t.m44.isFinite) {
            let v = t.values.map(Self.bounded)
            o.transform = Transform3D(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                                      v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15])
        }
        return o
    }

    private static func bounded(_ x: Double) -> Double {
        if x.isNaN { return 0 }
        return StyleMath.clamp(x, -1e15, 1e15)
    }
}
