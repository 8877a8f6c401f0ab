import Testing
@testable import CarouselEngine

/// `linear` (seed 003): viewport 375, item 250 (the example scenario), defaults
/// minScaleW 1, minScaleH 0.7, minAlpha 0.5, so W + w = 625.
@Suite struct StylesLinearTests {
    let g = StylesFixture.geometry(viewport: 375, item: 250, spacing: 10)
    let style = LayoutStyle.linear(LinearStyle())

    @Test func centeredItemIsFullSizeOpaqueAndOnTop() {
        let o = style.output(distance: 0, geometry: g)
        #expect(o.centerOffset == 0)
        #expect(o.scaleAlong == 1)
        #expect(o.scaleCross == 1)
        #expect(o.alpha == 1)
        #expect(o.zIndex == 0)
        #expect(o.transform == .identity)
    }

    @Test(arguments: [312.5, -312.5])
    func halfWayBaseScaleInterpolatesHalfWay(d: Double) {
        // baseScale = 1 − 312.5 / 625 = 0.5 → height 0.7 + 0.5·0.3 = 0.85, alpha 0.75.
        let o = style.output(distance: d, geometry: g)
        #expect(o.centerOffset == d)
        #expect(StylesFixture.close(o.scaleAlong, 1))
        #expect(StylesFixture.close(o.scaleCross, 0.85))
        #expect(StylesFixture.close(o.alpha, 0.75))
        #expect(o.zIndex == -312.5)
        #expect(o.transform == .scale(o.scaleAlong, o.scaleCross, 1))
    }

    @Test(arguments: [625.0, 700, -1000, 1e9])
    func beyondTheSpanTheMinimumsHold(d: Double) {
        // 1 − |d| / 625 ≤ 0 is clamped to 0: the minimums themselves.
        let o = style.output(distance: d, geometry: g)
        #expect(o.centerOffset == d)
        #expect(o.scaleAlong == 1)
        #expect(StylesFixture.close(o.scaleCross, 0.7))
        #expect(StylesFixture.close(o.alpha, 0.5))
    }

    @Test func widthScaleInterpolatesLikeHeight() {
        // minScaleW 0.8 at d = 156.25: baseScale 0.75 → 0.8 + 0.75·0.2 = 0.95.
        let o = LayoutStyle.linear(LinearStyle(minScaleW: 0.8)).output(distance: 156.25, geometry: g)
        #expect(StylesFixture.close(o.scaleAlong, 0.95))
        #expect(StylesFixture.close(o.scaleCross, 0.925))  // 0.7 + 0.75·0.3
        #expect(StylesFixture.close(o.alpha, 0.875))  // 0.5 + 0.75·0.5
        #expect(StylesFixture.close(o.transform.m11, 0.95))
        #expect(StylesFixture.close(o.transform.m22, 0.925))
        #expect(o.transform.m33 == 1)
    }

    @Test func visibilityBoundIsTheUntransformedOverlap() {
        #expect(style.maximumVisibleDistance(geometry: g) == 312.5)  // 375/2 + 250/2
        // Items that grow away from the center need a wider bound: minScaleW 2 → 187.5 + 250.
        let growing = LayoutStyle.linear(LinearStyle(minScaleW: 2))
        #expect(growing.maximumVisibleDistance(geometry: g) == 437.5)
    }
}
