/// A layout style: the per-item attributes as a pure function of the item's distance from the
/// viewport center (docs/STYLES.md "Common ground"). Parameters and defaults per case are documented
/// on each parameter type; formulas, sources and worked values are in `docs/STYLES.md`.
///
/// Every style works in the logical frame (horizontal, left to right, +x toward higher
/// indices); the engine maps the result to the real axis and layout direction. Every output
/// field is finite for every input (see `StyleOutput` and `LayoutStyle.distanceLimit`).
public enum LayoutStyle: Hashable, Sendable {
    /// Seed 003's "expanding" layout: items stay on the line and shrink/fade with distance.
    case linear(LinearStyle)
    /// Seed 000's "3D" zoom: a uniform scale that shrinks with distance.
    case zoom(ZoomStyle)
    /// Seed 001's TXCarouselView side cards: overlapping cards, sine-compressed positions.
    case stacked
    /// iCarousel-style cover flow: side cards turned toward the center and pushed back.
    case coverFlow(CoverFlowStyle)
    /// iCarousel-style rotary ring: cards on a horizontal ring, always facing the viewer.
    case rotary(RingStyle)
    /// iCarousel-style cylinder: cards on the outside of a turning cylinder, facing outward.
    case cylinder(RingStyle)
    /// A parametric look (Swiper's `creativeEffect`): translation, rotation, scale and opacity
    /// for the previous and the next item, interpolated by distance up to a limit.
    indirect case custom(CustomStyle)

    /// Eye distance of the 3D styles' perspective, points: their transforms carry
    /// `m34 = −1 / 500`, the value iCarousel uses.
    public static let perspectiveEyeDistance: Double = 500

    /// Distances are clamped to ±`distanceLimit` points (10¹² pt, far beyond any viewport)
    /// before any formula runs, so no product overflows and every output stays finite. An item
    /// that far away is never visible in any style.
    public static let distanceLimit: Double = 1e12

    /// The attributes of an item whose untransformed center lies `distance` points from the
    /// viewport center along the axis (`d = itemCenter − viewportCenter = (i − position) · p`,
    /// positive toward higher indices).
    ///
    /// All fields of the result are finite and `alpha` is in [0, 1] for any `distance`
    /// (non-finite ones included) and any geometry; the formulas are only meaningful for
    /// positive item and viewport lengths and a positive pitch.
    public func output(distance: Double, geometry: StyleGeometry) -> StyleOutput {
        let d = StyleMath.limitedDistance(distance)
        let raw: StyleOutput
        switch self {
        case .linear(let style): raw = style.output(distance: d, geometry: geometry)
        case .zoom(let style): raw = style.output(distance: d, geometry: geometry)
        case .stacked: raw = StackedLayout.output(distance: d, geometry: geometry)
        case .coverFlow(let style): raw = style.output(distance: d, geometry: geometry)
        case .rotary(let style): raw = style.rotaryOutput(distance: d, geometry: geometry)
        case .cylinder(let style): raw = style.cylinderOutput(distance: d, geometry: geometry)
        case .custom(let style): raw = style.output(distance: d, geometry: geometry)
        }
        return raw.finite()
    }

    /// The largest |distance| (points) at which an item of this style can still intersect the
    /// viewport; the engine enumerates only slots within it, so queries cost O(visible items).
    ///
    /// It covers every item whose transformed frame can meet the viewport and is never less
    /// than `viewportAlong / 2 + itemAlong / 2` (every item whose untransformed frame meets it,
    /// docs/ENGINE.md "Visible items"). For `rotary` and `cylinder` it is `max(ringCount / 2 · p, that)`: items
    /// beyond half a turn coincide with nearer ones on the ring and sit below them (`zIndex`).
    /// Always finite and ≥ 0.
    public func maximumVisibleDistance(geometry: StyleGeometry) -> Double {
        let bound: Double
        switch self {
        case .linear(let style): bound = style.maximumVisibleDistance(geometry: geometry)
        case .zoom(let style): bound = style.maximumVisibleDistance(geometry: geometry)
        case .stacked: bound = StackedLayout.maximumVisibleDistance(geometry: geometry)
        case .coverFlow(let style): bound = style.maximumVisibleDistance(geometry: geometry)
        case .rotary(let style), .cylinder(let style):
            bound = style.maximumVisibleDistance(geometry: geometry)
        case .custom(let style): bound = style.maximumVisibleDistance(geometry: geometry)
        }
        return StyleMath.clamp(bound, 0, LayoutStyle.distanceLimit)
    }
}
