extension RingStyle {
    /// The `cylinder` style (iCarousel-style): iCarousel's chain "translate z by −r, rotate
    /// about y by θ, translate z by r" (Core Animation's nested `CATransform3DTranslate` /
    /// `CATransform3DRotate` calls, so the point meets them in reverse: `+r`, rotate, `−r`)
    /// turns the item by θ and moves its center to `(r sin θ, 0, r cos θ − r)`. We split that
    /// into `centerOffset = r sin θ` and `transform` = rotate about y by θ, move by
    /// `z = r cos θ − r`, then perspective `m34 = −1/500`; `StylesRingTests` checks the two
    /// agree. The item faces outward: past a quarter turn its back faces the viewer (clients
    /// may cull it: `transform.m33 < 0`). 2D clients: `scaleCross = 1 / (1 − z / 500)`,
    /// `scaleAlong = cos θ · scaleCross` (negative on the back half: mirrored).
    /// `zIndex = −|d|`; alpha 1.
    func cylinderOutput(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let n = ringCount(geometry: g)
        let r = cylinderRadius(geometry: g, ringCount: n)
        let theta = angle(distance: d, geometry: g, ringCount: n)
        let cosTheta = cosine(theta), sinTheta = sine(theta)
        let z = r * cosTheta - r
        let perspective = StyleMath.perspectiveFactor(depth: z)
        return StyleOutput(centerOffset: r * sinTheta, scaleAlong: cosTheta * perspective,
                           scaleCross: perspective, alpha: 1, zIndex: -d.magnitude,
                           transform: .styleItem(cosine: cosTheta, sine: sinTheta, depth: z))
    }
}
