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
    /// Every number made finite (NaN → 0, ±∞ and huge values → ±10¹⁵), `−0` made `+0` (the
    /// wire format forbids `-0`) and `alpha` put in [0, 1]: the last line of defence behind the
    /// styles' own guards, so a client or a JSON encoder never sees NaN, infinity or `-0`.
    func finite() -> StyleOutput {
        let t = transform
        let b = Self.bounded
        return StyleOutput(
            centerOffset: b(centerOffset), scaleAlong: b(scaleAlong), scaleCross: b(scaleCross),
            alpha: StyleMath.clamp(alpha, 0, 1) + 0, zIndex: b(zIndex),
            transform: Transform3D(b(t.m11), b(t.m12), b(t.m13), b(t.m14),
                                   b(t.m21), b(t.m22), b(t.m23), b(t.m24),
                                   b(t.m31), b(t.m32), b(t.m33), b(t.m34),
                                   b(t.m41), b(t.m42), b(t.m43), b(t.m44)))
    }

    /// NaN → 0, clamped to ±10¹⁵, and `x + 0` turns `−0` into `+0` (IEEE 754 round-to-nearest).
    private static func bounded(_ x: Double) -> Double {
        x.isNaN ? 0 : StyleMath.clamp(x, -1e15, 1e15) + 0
    }
}
