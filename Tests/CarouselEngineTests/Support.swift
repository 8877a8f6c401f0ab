import CarouselEngine

/// The `linear` style with every minimum at 1: scale 1, alpha 1 and center offset `d` whatever
/// the distance, so engine tests do not depend on the style formulas.
let passthrough = LayoutStyle.linear(LinearStyle(minScaleW: 1, minScaleH: 1, minAlpha: 1))

/// Viewport 375×200, items 250×160, spacing 10: pitch 260, items narrower than the viewport.
func narrowGeometry(count: Int = 10, cyclic: Bool = false, direction: LayoutDirection = .leftToRight,
                    axis: ScrollAxis = .horizontal) -> CarouselGeometry {
    CarouselGeometry(viewport: CarouselSize(width: 375, height: 200), item: CarouselSize(width: 250, height: 160),
                     spacing: 10, axis: axis, direction: direction, count: count, cyclic: cyclic)
}

/// Viewport 375×200, items 500×160, spacing 20: pitch 520, items wider than the viewport.
func wideGeometry(count: Int = 10) -> CarouselGeometry {
    CarouselGeometry(viewport: CarouselSize(width: 375, height: 200), item: CarouselSize(width: 500, height: 160),
                     spacing: 20, count: count)
}

func makeEngine(_ geometry: CarouselGeometry = narrowGeometry(), initialIndex: Int = 0,
                paging: PagingPolicy = .default, tilt: TiltSettings = TiltSettings(),
                dragThreshold: Double = 10) -> CarouselEngine {
    CarouselEngine(configuration: CarouselConfiguration(
        geometry: geometry, initialIndex: initialIndex, style: passthrough, paging: paging,
        dragThreshold: dragThreshold, tilt: tilt))
}

/// UIScrollView's travel per (pt/s) of release velocity at rate 0.998: −1 / (1000 ln 0.998).
let travelPerVelocity0998 = 0.4994998331664548

func isClose(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(b))
}

/// The items whose untransformed frame meets the viewport (a style may return a few more).
func onScreen(_ items: [ItemAttributes], _ g: CarouselGeometry) -> [ItemAttributes] {
    items.filter {
        abs($0.center.x - g.viewport.width / 2) < (g.viewport.width + $0.size.width) / 2
            && abs($0.center.y - g.viewport.height / 2) < (g.viewport.height + $0.size.height) / 2
    }
}
