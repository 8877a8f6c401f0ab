extension RingStyle {
    /// The `rotary` style (iCarousel-style): the item sits on the ring at `(r sin θ, 0,
    /// r cos θ − r)` and keeps facing the viewer. `centerOffset = r sin θ`; `transform` = move
    /// by `z = r cos θ − r` (≤ 0, the back of the ring is further away), then perspective
    /// `m34 = −1/500`; `scaleAlong = scaleCross = 1 / (1 − z / 500)` for 2D clients;
    /// `zIndex = −|d|` (within half a turn, depth falls as |d| grows); alpha 1.
    func rotaryOutput(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let n = ringCount(geometry: g)
        let r = rotaryRadius(geometry: g, ringCount: n)
        let theta = angle(distance: d, geometry: g, ringCount: n)
        let z = r * cosine(theta) - r
        let perspective = StyleMath.perspectiveFactor(depth: z)
        return StyleOutput(centerOffset: r * sine(theta), scaleAlong: perspective,
                           scaleCross: perspective, alpha: 1, zIndex: -d.magnitude,
                           transform: .styleItem(depth: z))
    }
}
