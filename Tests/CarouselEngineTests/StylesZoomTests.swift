import Testing
@testable import CarouselEngine

/// `zoom` (seed 000): scale = 1 − 0.2 · min(|d| / 375, 1) with the viewport 375 as the
/// default active distance.
@Suite struct StylesZoomTests {
    let g = StylesFixture.geometry(viewport: 375, item: 250, spacing: 10)
    let style = LayoutStyle.zoom(ZoomStyle())

    @Test func centeredItemIsUnscaled() {
        let o = style.output(distance: 0, geometry: g)
        #expect(o.scaleAlong == 1 && o.scaleCross == 1)
        #expect(o.transform == .identity)
        #expect(o.alpha == 1)
    }

    @Test(arguments: [187.5, -187.5])
    func halfTheActiveDistanceShrinksByHalfTheFactor(d: Double) {
        let o = style.output(distance: d, geometry: g)
        #expect(o.centerOffset == d)
        #expect(StylesFixture.close(o.scaleAlong, 0.9))
        #expect(StylesFixture.close(o.scaleCross, 0.9))
        // CATransform3DMakeScale(s, s, 1): z is not scaled.
        #expect(StylesFixture.close(o.transform.m11, 0.9))
        #expect(StylesFixture.close(o.transform.m22, 0.9))
        #expect(o.transform.m33 == 1)
        #expect(o.transform.m34 == 0)
        #expect(o.zIndex == -187.5)
    }

    @Test(arguments: [375.0, 500, -2000, 1e9])
    func beyondTheActiveDistanceTheScaleHolds(d: Double) {
        let o = style.output(distance: d, geometry: g)
        #expect(StylesFixture.close(o.scaleAlong, 0.8))
        #expect(StylesFixture.close(o.scaleCross, 0.8))
    }

    @Test func explicitActiveDistance() {
        // 1 − 0.3 · 50 / 100 = 0.85
        let o = LayoutStyle.zoom(ZoomStyle(scaleFactor: 0.3, activeDistance: 100))
            .output(distance: 50, geometry: g)
        #expect(StylesFixture.close(o.scaleAlong, 0.85))
    }

    @Test func visibilityBoundIsTheUntransformedOverlap() {
        #expect(style.maximumVisibleDistance(geometry: g) == 312.5)
        // A negative factor grows items up to 1.5×: 187.5 + 125 · 1.5.
        let growing = LayoutStyle.zoom(ZoomStyle(scaleFactor: -0.5))
        #expect(growing.maximumVisibleDistance(geometry: g) == 375)
    }
}
