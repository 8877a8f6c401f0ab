import Testing
@testable import CarouselEngine

/// `coverFlow` (iCarousel-style), defaults tilt 0.9, spacing 0.25; item 200 with no gap, so
/// p = w = 200 and o = d / 200. docs/STYLES.md "coverFlow": o = 1 gives x = 140, z = −100, −81°.
@Suite struct StylesCoverFlowTests {
    let g = StylesFixture.geometry(viewport: 375, item: 200, spacing: 0)
    let style = LayoutStyle.coverFlow(CoverFlowStyle())

    @Test func centeredItemHasOnlyThePerspective() {
        let o = style.output(distance: 0, geometry: g)
        #expect(o.centerOffset == 0)
        #expect(StylesFixture.close(o.transform, .perspective(eyeDistance: 500)))
        #expect(o.scaleAlong == 1 && o.scaleCross == 1)
        #expect(o.zIndex == 0)
    }

    @Test func oneItemAwayMatchesTheWorkedValues() {
        let o = style.output(distance: 200, geometry: g)
        // x = (1 · 0.5 · 0.9 + 1 · 0.25) · 200 = 140
        #expect(StylesFixture.close(o.centerOffset, 140, 1e-9))
        let t = o.transform
        // rotation about y by −81°: m11 = cos(−81°) = 0.156434, m13 = −sin(−81°) = 0.987688
        #expect(StylesFixture.close(t.m11, 0.156434))
        #expect(StylesFixture.close(t.m13, 0.987688))
        #expect(StylesFixture.close(t.m31, -0.987688))
        #expect(StylesFixture.close(t.m33, 0.156434))
        // then the depth −100 (row 4), then the perspective −1/500 in column 4
        #expect(StylesFixture.close(t.m43, -100, 1e-9))
        #expect(StylesFixture.close(t.m34, 0.156434 * -0.002, 1e-7))
        #expect(StylesFixture.close(t.m14, -0.987688 * 0.002, 1e-7))
        #expect(StylesFixture.close(t.m44, 1.2, 1e-12))  // 1 − (−100) / 500
        // 2D: perspective 1 / 1.2 across, foreshortened by cos 81° along
        #expect(StylesFixture.close(o.scaleCross, 1 / 1.2))
        #expect(StylesFixture.close(o.scaleAlong, 0.156434 / 1.2))
        #expect(o.zIndex == -200)
    }

    @Test func theTransformIsRotateThenDepthThenPerspective() {
        let o = style.output(distance: 200, geometry: g)
        let expected = Transform3D.rotationY(StylesFixture.degrees(-81))
            .concatenating(.translation(0, 0, -100))
            .concatenating(.perspective(eyeDistance: 500))
        #expect(StylesFixture.close(o.transform, expected, 1e-9))
    }

    @Test func halfAnItemAway() {
        // c = 0.5: x = (0.225 + 0.125) · 200 = 70, z = −50, angle −40.5°
        let o = style.output(distance: 100, geometry: g)
        #expect(StylesFixture.close(o.centerOffset, 70, 1e-9))
        #expect(StylesFixture.close(o.transform.m43, -50, 1e-9))
        #expect(StylesFixture.close(o.transform.m11, 0.760406))  // cos 40.5°
        #expect(StylesFixture.close(o.transform.m13, 0.649448))  // sin 40.5°
    }

    @Test func beyondOneItemOnlySpacingMovesTheCard() {
        // o = 2: x = (0.45 + 0.5) · 200 = 190; turn and depth as at o = 1.
        let one = style.output(distance: 200, geometry: g)
        let two = style.output(distance: 400, geometry: g)
        #expect(StylesFixture.close(two.centerOffset, 190, 1e-9))
        #expect(StylesFixture.close(two.transform, one.transform, 1e-12))
        #expect(two.zIndex < one.zIndex)
    }

    @Test func leftSideMirrorsTheRight() {
        let o = style.output(distance: -200, geometry: g)
        #expect(StylesFixture.close(o.centerOffset, -140, 1e-9))
        #expect(StylesFixture.close(o.transform.m13, -0.987688))  // +81°
        #expect(StylesFixture.close(o.transform.m43, -100, 1e-9))
    }

    @Test func visibilityBound() {
        // Off screen once x − w/2 > W/2: o > (187.5 + 100 − 90) / 50 = 3.95 → 3.95 · 200 = 790.
        #expect(StylesFixture.close(style.maximumVisibleDistance(geometry: g), 790, 1e-9))
        // Zero spacing: the o = 1 … 2 card covers the rest; at least the untransformed 287.5.
        let flat = LayoutStyle.coverFlow(CoverFlowStyle(spacing: 0))
        #expect(flat.maximumVisibleDistance(geometry: g) == 400)
        let wide = StylesFixture.geometry(viewport: 2000, item: 200)
        #expect(flat.maximumVisibleDistance(geometry: wide) == 1100)
    }
}
