/// A layout style: the per-item attributes as a pure function of the item's distance from the
/// viewport center (DESIGN §4, INTERFACES §1). Parameters and defaults per case are documented
/// on each parameter type.
public enum LayoutStyle: Hashable, Sendable {
    case linear(LinearStyle)
    case zoom(ZoomStyle)
    case stacked
    case coverFlow(CoverFlowStyle)
    case rotary(RingStyle)
    case cylinder(RingStyle)

    /// The attributes of an item whose untransformed center lies `distance` points from the
    /// viewport center along the axis (`d = itemCenter − viewportCenter = (i − position) · p`,
    /// positive toward higher indices).
    public func output(distance: Double, geometry: StyleGeometry) -> StyleOutput {
        // Filled in by the layout-styles work; linear passthrough until then.
        StyleOutput(centerOffset: distance, scaleAlong: 1, scaleCross: 1, alpha: 1, zIndex: 0,
                    transform: .identity)
    }

    /// The largest |distance| (points) at which an item of this style can still intersect the
    /// viewport; the engine enumerates only slots within it, so queries cost O(visible items).
    public func maximumVisibleDistance(geometry: StyleGeometry) -> Double {
        geometry.viewportAlong / 2 + geometry.itemAlong / 2
    }
}

/// Parameters of the `linear` style (seed 003). Defaults: `minScaleW` 1, `minScaleH` 0.7,
/// `minAlpha` 0.5.
public struct LinearStyle: Hashable, Sendable {
    public var minScaleW: Double
    public var minScaleH: Double
    public var minAlpha: Double
    public init(minScaleW: Double = 1, minScaleH: Double = 0.7, minAlpha: Double = 0.5) {
        self.minScaleW = minScaleW
        self.minScaleH = minScaleH
        self.minAlpha = minAlpha
    }
}

/// Parameters of the `zoom` style (seed 000). Defaults: `scaleFactor` 0.2, `activeDistance`
/// `nil` = the viewport length along the axis (points).
public struct ZoomStyle: Hashable, Sendable {
    public var scaleFactor: Double
    public var activeDistance: Double?
    public init(scaleFactor: Double = 0.2, activeDistance: Double? = nil) {
        self.scaleFactor = scaleFactor
        self.activeDistance = activeDistance
    }
}

/// Parameters of the `coverFlow` style (iCarousel-style). Defaults: `tilt` 0.9, `spacing` 0.25.
public struct CoverFlowStyle: Hashable, Sendable {
    public var tilt: Double
    public var spacing: Double
    public init(tilt: Double = 0.9, spacing: Double = 0.25) {
        self.tilt = tilt
        self.spacing = spacing
    }
}

/// Parameters of the `rotary` and `cylinder` styles (iCarousel-style rings). Default `spacing` 1
/// (item widths between neighbours on the ring).
public struct RingStyle: Hashable, Sendable {
    public var spacing: Double
    public init(spacing: Double = 1) {
        self.spacing = spacing
    }
}
