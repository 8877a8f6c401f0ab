/// A 4×4 homogeneous transform with Core Animation's `CATransform3D` conventions.
///
/// Points are row vectors: `[x y z 1] · M`, so the translation is in `m41`–`m43` and the
/// perspective term in `m34` (`-1/500` for the 3D styles, as iCarousel uses). `a.concatenating(b)`
/// applies `a` first, then `b` (`CATransform3DConcat(a, b)`). `values` lists the 16 numbers in
/// field order m11, m12, …, m44, which is also the column-major layout of the transposed
/// (column-vector) matrix that OpenGL and Vulkan clients expect.
public struct Transform3D: Hashable, Sendable {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    @inlinable public init(
        _ m11: Double, _ m12: Double, _ m13: Double, _ m14: Double,
        _ m21: Double, _ m22: Double, _ m23: Double, _ m24: Double,
        _ m31: Double, _ m32: Double, _ m33: Double, _ m34: Double,
        _ m41: Double, _ m42: Double, _ m43: Double, _ m44: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13; self.m14 = m14
        self.m21 = m21; self.m22 = m22; self.m23 = m23; self.m24 = m24
        self.m31 = m31; self.m32 = m32; self.m33 = m33; self.m34 = m34
        self.m41 = m41; self.m42 = m42; self.m43 = m43; self.m44 = m44
    }

    public static let identity = Transform3D(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)

    /// `CATransform3DMakeScale(sx, sy, sz)`.
    @inlinable public static func scale(_ sx: Double, _ sy: Double, _ sz: Double = 1) -> Transform3D {
        Transform3D(sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, sz, 0, 0, 0, 0, 1)
    }

    /// `CATransform3DMakeTranslation(tx, ty, tz)`, in points.
    @inlinable public static func translation(_ tx: Double, _ ty: Double, _ tz: Double) -> Transform3D {
        Transform3D(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, ty, tz, 1)
    }

    /// `CATransform3DMakeRotation(angle, 0, 1, 0)`: rotation about the y axis, `angle` in radians.
    @inlinable public static func rotationY(_ angle: Double) -> Transform3D {
        let c = cosine(angle), s = sine(angle)
        return Transform3D(c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1)
    }

    /// `CATransform3DMakeRotation(angle, 1, 0, 0)`: rotation about the x axis, `angle` in radians.
    @inlinable public static func rotationX(_ angle: Double) -> Transform3D {
        let c = cosine(angle), s = sine(angle)
        return Transform3D(1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1)
    }

    /// `CATransform3DMakeRotation(angle, 0, 0, 1)`: rotation about the z axis, `angle` in radians
    /// (x turns toward y).
    @inlinable public static func rotationZ(_ angle: Double) -> Transform3D {
        let c = cosine(angle), s = sine(angle)
        return Transform3D(c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
    }

    /// Identity with `m34 = -1 / eyeDistance` (points), Core Animation's perspective idiom.
    @inlinable public static func perspective(eyeDistance: Double) -> Transform3D {
        var t = Transform3D.identity
        t.m34 = -1 / eyeDistance
        return t
    }

    /// `self · other`: apply `self` first, then `other` (`CATransform3DConcat(self, other)`).
    @inlinable public func concatenating(_ b: Transform3D) -> Transform3D {
        let a = self
        return Transform3D(
            a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44
        )
    }

    /// Maps the point `(x, y, 0)` (relative to the transform's anchor, in points) and divides by
    /// `w`. Returns `nil` when the point falls behind the eye (`w ≤ 0`).
    @inlinable public func project(x: Double, y: Double) -> (x: Double, y: Double)? {
        let w = x * m14 + y * m24 + m44
        guard w > 1e-9 else { return nil }
        return ((x * m11 + y * m21 + m41) / w, (x * m12 + y * m22 + m42) / w)
    }

    /// The 16 numbers in `CATransform3D` field order m11, m12, …, m44.
    public var values: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }
}

