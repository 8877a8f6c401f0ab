import Testing
@testable import CarouselEngine

/// `stacked` (seed 001, TXCarouselView side cards with the pitch in place of the item width).
/// The worked example of docs/STYLES.md "stacked": viewport 375, item 160, spacing 0 (p = 160), card 2 centered.
@Suite struct StylesStackedTests {
    let g = StylesFixture.geometry(viewport: 375, item: 160, spacing: 0, count: 5)
    let style = LayoutStyle.stacked
    let position = 2.0

    func item(_ i: Int) -> StyleOutput {
        style.output(distance: (Double(i) - position) * 160, geometry: g)
    }

    @Test func centeredCardIsFullSizeOnTop() {
        let o = item(2)
        #expect(o.centerOffset == 0)
        #expect(o.scaleAlong == 1 && o.scaleCross == 1)
        #expect(o.zIndex == 0)
        #expect(o.alpha == 1)
    }

    @Test func neighboursMatchTheWorkedValues() {
        // ratio 0.5: 1 − 1/6 · cos(0.5 · 0.572958) = 0.840126; sin(0.6085) · 144 = 82.3158.
        let right = item(3), left = item(1)
        #expect(StylesFixture.close(right.scaleAlong, 0.8401))
        #expect(StylesFixture.close(right.scaleAlong, 0.840126, 1e-6))
        #expect(StylesFixture.close(right.centerOffset, 82.3158))
        #expect(StylesFixture.close(left.scaleAlong, 0.840126, 1e-6))
        #expect(StylesFixture.close(left.centerOffset, -82.3158))
        #expect(right.zIndex == -160 && left.zIndex == -160)
        #expect(StylesFixture.close(right.transform.m11, 0.840126, 1e-6))
        #expect(StylesFixture.close(right.transform.m22, 0.840126, 1e-6))
    }

    @Test func twoAwayMatchTheWorkedValues() {
        // ratio 1: 1 − 1/3 · cos(0.572958) = 0.719900; sin(1.217) · 144 = 135.0812.
        let right = item(4), left = item(0)
        #expect(StylesFixture.close(right.scaleAlong, 0.7199))
        #expect(StylesFixture.close(right.scaleAlong, 0.719900, 1e-6))
        #expect(StylesFixture.close(right.centerOffset, 135.0812))
        #expect(StylesFixture.close(left.centerOffset, -135.0812))
        #expect(right.zIndex == -320)
        #expect(right.alpha == 1)
    }

    @Test func higherIndexIsOnThePlusXSideAndNearerIsOnTop() {
        #expect(item(3).centerOffset > 0 && item(1).centerOffset < 0)
        #expect(item(2).zIndex > item(3).zIndex && item(3).zIndex > item(4).zIndex)
    }

    @Test func pastThePeakCardsHoldTheirPlaceAndFadeOut() {
        // The sine peaks at d = π / 1.217 · 160 = 413.028: offset 0.9 · 160 = 144,
        // scale 1 − 1.290712 / 3 · cos(1.290712 · 0.572958) = 0.682145.
        let peak = style.output(distance: 413.0278, geometry: g)
        #expect(StylesFixture.close(peak.centerOffset, 144))
        #expect(StylesFixture.close(peak.scaleAlong, 0.682145))
        #expect(StylesFixture.close(peak.alpha, 1))
        // Three items away (o = 3): same place and scale, alpha 1 − (3 − 2.581424) = 0.581424.
        let three = style.output(distance: -480, geometry: g)
        #expect(StylesFixture.close(three.centerOffset, -144))
        #expect(StylesFixture.close(three.scaleAlong, 0.682145))
        #expect(StylesFixture.close(three.alpha, 0.581424))
        #expect(three.zIndex == -480)
        // o = 3.6 is past the one-item fade: transparent.
        #expect(style.output(distance: 576, geometry: g).alpha == 0)
        // Very far: still finite, positive scale, not back at the center.
        let far = style.output(distance: 1e9, geometry: g)
        #expect(StylesFixture.close(far.centerOffset, 144))
        #expect(StylesFixture.close(far.scaleAlong, 0.682145))
        #expect(far.alpha == 0)
    }

    @Test func positionAndScaleAreMonotonicAndScaleStaysPositive() {
        var lastOffset = -1.0, lastScale = 2.0
        for k in 0...2000 {
            let o = style.output(distance: Double(k) * 0.5, geometry: g)  // 0 … 1000 pt
            #expect(o.centerOffset >= lastOffset)
            #expect(o.scaleAlong <= lastScale)
            #expect(o.scaleAlong > 0.68)
            lastOffset = o.centerOffset
            lastScale = o.scaleAlong
        }
    }

    @Test func visibilityBoundCoversThePeakAndTheFade() {
        // (2.581424 + 1) · 160 = 573.0278 > 375/2 + 160/2 = 267.5
        #expect(StylesFixture.close(style.maximumVisibleDistance(geometry: g), 573.0278))
        // A wide viewport keeps at least the untransformed overlap: 1000 + 80.
        let wide = StylesFixture.geometry(viewport: 2000, item: 160)
        #expect(style.maximumVisibleDistance(geometry: wide) == 1080)
    }
}
