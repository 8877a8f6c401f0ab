extension Transform3D {
    /// The transform of a 3D-style item about its displayed center: rotate about y by `angle`
    /// (radians), then move along z by `depth` (points, negative = away from the viewer), then
    /// apply the perspective `m34 = −1 / LayoutStyle.perspectiveEyeDistance`. In Core Animation
    /// terms `CATransform3DConcat(CATransform3DConcat(rotationY, translation), perspective)`.
    ///
    /// Written out in closed form because it runs for every visible item of every frame;
    /// `StylesTransformTests` checks it equals the product
    /// `rotationY(angle) · translation(0, 0, depth) · perspective(eyeDistance:)`.
    static func styleItem(rotationY angle: Double, depth z: Double) -> Transform3D {
        styleItem(cosine: cosine(angle), sine: sine(angle), depth: z)
    }

    /// `styleItem(rotationY:depth:)` from the angle's cosine and sine, for callers that
    /// already have them (saves two libm calls per item).
    static func styleItem(cosine c: Double, sine s: Double, depth z: Double) -> Transform3D {
        let k = -1 / LayoutStyle.perspectiveEyeDistance
        return Transform3D(
            c, 0, -s, -s * k,
            0, 1, 0, 0,
            s, 0, c, c * k,
            0, 0, z, 1 + z * k)
    }

    /// A pure depth move with perspective: `translation(0, 0, depth) · perspective`, the
    /// `styleItem` transform without rotation (exactly: no cos/sin rounding at angle 0).
    static func styleItem(depth z: Double) -> Transform3D {
        let k = -1 / LayoutStyle.perspectiveEyeDistance
        return Transform3D(
            1, 0, 0, 0,
            0, 1, 0, 0,
            0, 0, 1, k,
            0, 0, z, 1 + z * k)
    }
}
