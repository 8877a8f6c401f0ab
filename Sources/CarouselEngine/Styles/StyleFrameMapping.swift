/// Mapping a style's transform from its logical frame (horizontal, left to right) to the
/// carousel's real axis and layout direction. Both are conjugations by a reflection, so they
/// move the whole picture (positions, turns, depth) consistently: a turn keeps facing the
/// center, a ring keeps turning the right way as seen on screen.
extension Transform3D {
    /// The transform mirrored left↔right: `F · self · F` with `F = diag(−1, 1, 1, 1)`, which
    /// negates exactly `m12, m13, m14, m21, m31, m41`. Use it for right-to-left layouts
    /// together with `centerOffset → −centerOffset`; a style's output at `−d` is its output at
    /// `d` reflected this way.
    public func reflectingX() -> Transform3D {
        Transform3D(m11, -m12, -m13, -m14,
                    -m21, m22, m23, m24,
                    -m31, m32, m33, m34,
                    -m41, m42, m43, m44)
    }

    /// The transform with the x and y axes exchanged: `P · self · P` with `P` the permutation
    /// x↔y. Use it for vertical carousels, where the style's "along" becomes y: a turn about y
    /// by `a` becomes a turn about x by `−a` (`rotationX(−a)`), a move `(tx, ty, tz)` becomes
    /// `(ty, tx, tz)`, `scale(sa, sc, sz)` becomes `scale(sc, sa, sz)`; perspective is unchanged.
    public func swappingXY() -> Transform3D {
        Transform3D(m22, m21, m23, m24,
                    m12, m11, m13, m14,
                    m32, m31, m33, m34,
                    m42, m41, m43, m44)
    }
}
