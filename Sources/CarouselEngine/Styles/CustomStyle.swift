/// One side's look in the `custom` style: the transform an item gets at one item (or at `limit`)
/// from the reference point on that side, before interpolation.
public struct CustomSide: Hashable, Sendable {
    /// Translation along the axis, across it and toward the viewer, in pitches (`p`), so the
    /// look follows `set_geometry`. `translateX` ±1 puts the card where a flat row would.
    public var translateX: Double
    public var translateY: Double
    public var translateZ: Double
    /// Rotations about the x, y and z axes, degrees (Core Animation's sense: positive about y
    /// turns the right edge away from the viewer).
    public var rotateX: Double
    public var rotateY: Double
    public var rotateZ: Double
    /// Uniform scale at one item. Default 1.
    public var scale: Double
    /// Opacity at one item, in [0, 1]. Default 1.
    public var opacity: Double

    public init(translateX: Double = 0, translateY: Double = 0, translateZ: Double = 0, rotateX: Double = 0,
                rotateY: Double = 0, rotateZ: Double = 0, scale: Double = 1, opacity: Double = 1) {
        self.translateX = translateX
        self.translateY = translateY
        self.translateZ = translateZ
        self.rotateX = rotateX
        self.rotateY = rotateY
        self.rotateZ = rotateZ
        self.scale = scale
        self.opacity = opacity
    }
}

/// Parameters of the `custom` style, a parametric look after Swiper's `creativeEffect` and
/// iCarousel's custom transform hook. Defaults: `previous` translateX −1, `next` translateX 1
/// (a flat row), `limit` 1 item, `perspective` 500 points.
///
/// With `o = d / p` (items) and `c = clamp(o, −limit, limit)`, the side is `next` for `c > 0`
/// and `previous` for `c < 0`, and `f = |c|`. As in Swiper the item's natural place is not kept:
/// every number is the side's value scaled by `f`:
/// `centerOffset = translateX · f · p`; translation `(0, translateY · f · p, translateZ · f · p)`;
/// angles `rotate · f`; `scale = 1 − (1 − side.scale) · f`; `alpha = clamp(1 − (1 − side.opacity) · f, 0, 1)`.
/// `transform = scale(s, s, 1) · rotationZ · rotationY · rotationX · translation · perspective`
/// (CSS `translate3d() rotateX() rotateY() rotateZ() scale()` read as Core Animation's "first,
/// then"), `m34 = −1 / perspective` (none when 0). `zIndex = −|d|`. For 2D clients
/// `scaleAlong = scaleCross = s / (1 − z / perspective)` (s when there is no perspective).
/// Beyond `limit` every item keeps the look at the limit, so items pile under the one there.
public struct CustomStyle: Hashable, Sendable {
    /// The look of items before the reference item (lower indices).
    public var previous: CustomSide
    /// The look of items after it (higher indices).
    public var next: CustomSide
    /// Items from the reference point at which the look stops changing (Swiper's `limitProgress`).
    public var limit: Double
    /// Eye distance, points (`m34 = −1 / perspective`); 0 = no perspective.
    public var perspective: Double

    public init(previous: CustomSide = CustomSide(translateX: -1), next: CustomSide = CustomSide(translateX: 1),
                limit: Double = 1, perspective: Double = 500) {
        self.previous = previous
        self.next = next
        self.limit = limit
        self.perspective = perspective
    }

    /// The largest `limit` the engine works with (items); larger values act as it.
    public static let maximumLimit: Double = 1000

    var effectiveLimit: Double { limit > 0 ? min(limit, Self.maximumLimit) : 0 }

    func output(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let p = StyleMath.itemPitch(g)
        let limit = effectiveLimit
        let c = StyleMath.clamp(d / p, -limit, limit)
        let side = c < 0 ? previous : next
        let f = c.magnitude
        let degrees = Double.pi / 180
        let s = 1 - (1 - side.scale) * f
        let z = side.translateZ * f * p
        var t = Transform3D.scale(s, s, 1)
        if side.rotateZ != 0 { t = t.concatenating(.rotationZ(side.rotateZ * f * degrees)) }
        if side.rotateY != 0 { t = t.concatenating(.rotationY(side.rotateY * f * degrees)) }
        if side.rotateX != 0 { t = t.concatenating(.rotationX(side.rotateX * f * degrees)) }
        t = t.concatenating(.translation(0, side.translateY * f * p, z))
        var apparent = s
        if perspective > 0 {
            t = t.concatenating(.perspective(eyeDistance: perspective))
            let w = 1 - z / perspective
            apparent = w > 1e-6 ? s / w : s * 1e6
        }
        return StyleOutput(centerOffset: side.translateX * f * p, scaleAlong: apparent, scaleCross: apparent,
                           alpha: StyleMath.clamp(1 - (1 - side.opacity) * f, 0, 1), zIndex: -d.magnitude,
                           transform: t)
    }

    /// `max(W / 2 + w / 2, (⌈limit⌉ + 1) · p)`: every item within a pitch past the limit; items
    /// further out look exactly like the one at the limit and lie under it (lower `zIndex`).
    func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        max(g.viewportAlong / 2 + g.itemAlong / 2, (effectiveLimit.rounded(.up) + 1) * StyleMath.itemPitch(g))
    }
}

extension CustomStyle {
    /// Checks every number against its `CustomStyleParameter` rule, in table order (field names
    /// as in `carouselctl simulate` scenarios).
    /// - Throws: `CarouselConfigurationError` naming the first bad field, e.g. `style.next.rotateY`.
    public func validate() throws(CarouselConfigurationError) {
        for parameter in CustomStyleParameter.allCases where !parameter.accepts(parameter.value(in: self)) {
            throw .init(field: "style." + parameter.scenarioPath, reason: parameter.requirement)
        }
    }
}
