import Testing
@testable import CarouselEngine

/// `rotary` and `cylinder` (iCarousel-style rings). docs/STYLES.md "The rings": w 200, W 375, n ≥ 12, spacing 1
/// → ringCount 12, r = 100 / tan(15°) = 373.2051. Item 200 with no gap: p = 200, o = d / 200,
/// θ = o / 12 · 2π, so θ = 90° at o = 3 (d = 600).
@Suite struct StylesRingTests {
    let g = StylesFixture.geometry(viewport: 375, item: 200, spacing: 0, count: 20)
    let ring = RingStyle()

    @Test func ringCountFollowsTheViewportAndTheItemCount() {
        // ceil(375 / 200) · π = 6.28 → at least 12
        #expect(ring.ringCount(geometry: g) == 12)
        // ceil(1000 / 200) · π = 15.708, truncated to 15 (not rounded to 16)
        #expect(ring.ringCount(geometry: StylesFixture.geometry(viewport: 1000, item: 200)) == 15)
        // ceil(2000 / 100) · π = 62.8 → at most 30
        #expect(ring.ringCount(geometry: StylesFixture.geometry(viewport: 2000, item: 100)) == 30)
        // capped at the item count, but never below 1
        #expect(ring.ringCount(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 5)) == 5)
        #expect(ring.ringCount(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 0)) == 1)
    }

    @Test func rotaryRadiusMatchesTheWorkedValue() {
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: g), 373.2051))
        // 15 places: 100 / tan(12°) = 470.4630; 30 places, w 100: 50 / tan(6°) = 475.7182
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: StylesFixture.geometry(viewport: 1000, item: 200)), 470.4630))
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: StylesFixture.geometry(viewport: 2000, item: 100)), 475.7182))
        // 5 places: 100 / tan(36°) = 137.6382; spacing 2: 200 / tan(15°) = 746.4102
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 5)), 137.6382))
        #expect(StylesFixture.close(RingStyle(spacing: 2).rotaryRadius(geometry: g), 746.4102))
        // 2 places: tan(90°) is huge, so the half chord 100 wins; 1 place: tan(180°) < 0, same.
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 2)), 100))
        #expect(StylesFixture.close(ring.rotaryRadius(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 1)), 100))
    }

    @Test func rotaryAtAQuarterTurn() {
        let o = LayoutStyle.rotary(ring).output(distance: 600, geometry: g)
        // translate (r sin 90°, 0, r cos 90° − r) = (373.2051, 0, −373.2051)
        #expect(StylesFixture.close(o.centerOffset, 373.2051))
        let expected = Transform3D(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.002, 0, 0, -373.2051, 1.746410)
        #expect(StylesFixture.close(o.transform, expected, 1e-4))
        #expect(StylesFixture.close(o.scaleAlong, 1 / 1.746410))
        #expect(StylesFixture.close(o.scaleCross, 1 / 1.746410))
        #expect(o.zIndex == -600)
    }

    @Test func rotaryCenterAndBack() {
        let front = LayoutStyle.rotary(ring).output(distance: 0, geometry: g)
        #expect(front.centerOffset == 0)
        #expect(StylesFixture.close(front.transform, .perspective(eyeDistance: 500), 1e-12))
        // Half a turn (o = 6): x = 0, z = −2r = −746.4102
        let back = LayoutStyle.rotary(ring).output(distance: -1200, geometry: g)
        #expect(StylesFixture.close(back.centerOffset, 0, 1e-9))
        #expect(StylesFixture.close(back.transform.m43, -746.4102))
    }

    @Test func cylinderAtTheFrontIsIdentityPlusPerspective() {
        let o = LayoutStyle.cylinder(ring).output(distance: 0, geometry: g)
        #expect(o.centerOffset == 0)
        #expect(o.transform == .perspective(eyeDistance: 500))
        #expect(o.scaleAlong == 1 && o.scaleCross == 1)
    }

    @Test func cylinderAtAQuarterTurnFacesSideways() {
        #expect(StylesFixture.close(ring.cylinderRadius(geometry: g), 373.2051))
        let o = LayoutStyle.cylinder(ring).output(distance: 600, geometry: g)
        #expect(StylesFixture.close(o.centerOffset, 373.2051))
        // rotation about y by +90°: m11 = cos = 0, m13 = −sin = −1, m31 = 1, m33 = 0;
        // perspective −1/500 picks up m14 = −m13/500 = 0.002 and m34 = m33 · −0.002 = 0.
        let expected = Transform3D(0, 0, -1, 0.002, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, -373.2051, 1.746410)
        #expect(StylesFixture.close(o.transform, expected, 1e-4))
        #expect(StylesFixture.close(o.scaleAlong, 0, 1e-12))
    }

    @Test func cylinderSplitAgreesWithTheICarouselChain() {
        // "translate z by −r, rotate about y by θ, translate z by r" as nested Core Animation
        // calls means the point meets +r first: Tz(r) · Ry(θ) · Tz(−r), then perspective.
        // Ours plus the move to the center must be the same matrix.
        let r = ring.cylinderRadius(geometry: g)
        for d in [-900.0, -250, 0, 130, 600, 1100] {
            let theta = d / 200 / 12 * 2 * Double.pi
            let chain = Transform3D.translation(0, 0, r)
                .concatenating(.rotationY(theta))
                .concatenating(.translation(0, 0, -r))
            let o = LayoutStyle.cylinder(ring).output(distance: d, geometry: g)
            let ours = Transform3D.rotationY(theta)
                .concatenating(.translation(o.centerOffset, 0, o.transform.m43))
            #expect(StylesFixture.close(chain, ours, 1e-9))
            #expect(StylesFixture.close(
                o.transform,
                Transform3D.rotationY(theta).concatenating(.translation(0, 0, o.transform.m43))
                    .concatenating(.perspective(eyeDistance: 500)), 1e-12))
        }
    }

    @Test func cylinderRadiusHasAFloor() {
        // 2 places: 100 / tan(90°) ≈ 6e−15 → 0.01; 1 place: negative → 0.01
        #expect(ring.cylinderRadius(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 2)) == 0.01)
        #expect(ring.cylinderRadius(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 1)) == 0.01)
    }

    @Test func visibilityBoundIsHalfTheRing() {
        #expect(LayoutStyle.rotary(ring).maximumVisibleDistance(geometry: g) == 1200)  // 6 · 200
        #expect(LayoutStyle.cylinder(ring).maximumVisibleDistance(geometry: g) == 1200)
        let five = StylesFixture.geometry(viewport: 375, item: 200, count: 5)
        #expect(LayoutStyle.rotary(ring).maximumVisibleDistance(geometry: five) == 500)
        // At a fractional position the half turn either side holds exactly one item per place.
        let bound = LayoutStyle.rotary(ring).maximumVisibleDistance(geometry: g)
        let position = 7.3
        let slots = (-50...50).filter { (Double($0) - position).magnitude * 200 <= bound }
        #expect(slots.count == 12)
    }
}

/// docs/ENGINE.md "Visible items" for the rings: at least every item whose untransformed frame meets the viewport,
/// even when half a turn is shorter than `W/2 + w/2`.
@Suite struct StylesRingVisibilityTests {
    /// W 2000, w 100, 5 items: ceil(2000/100)·π caps at 30 places, then at 5 items → half a turn
    /// = 2.5 · 100 = 250 pt, less than W/2 + w/2 = 1000 + 50 = 1050 pt.
    @Test(arguments: [LayoutStyle.rotary(RingStyle()), .cylinder(RingStyle())])
    func smallRingInAWideViewportStillReachesTheViewportEdges(style: LayoutStyle) {
        let g = StylesFixture.geometry(viewport: 2000, item: 100, spacing: 0, count: 5)
        #expect(RingStyle().ringCount(geometry: g) == 5)
        #expect(style.maximumVisibleDistance(geometry: g) == 1050)
        // Twelve places (W 375, w 200): half a turn (1200) still wins over 287.5.
        #expect(style.maximumVisibleDistance(geometry: StylesFixture.geometry(viewport: 375, item: 200, count: 20)) == 1200)
    }

    /// Cyclic, 5 items of 100 in a 2000-point viewport, resting on item 0: untransformed centers
    /// lie at slot · 100 from the center, and the frames meeting the viewport are the slots with
    /// |slot · 100| < 1050, i.e. −10 … 10: 21 instances, sorted by slot, zIndex = −|d| (the
    /// centered one on top, each wrapped instance below every nearer one).
    @Test(arguments: [LayoutStyle.rotary(RingStyle()), .cylinder(RingStyle())])
    func everyInstanceMeetingTheViewportIsListedBelowNearerOnes(style: LayoutStyle) {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 2000, height: 200),
                                        item: CarouselSize(width: 100, height: 160), spacing: 0, count: 5, cyclic: true)
        let engine = CarouselEngine(configuration: CarouselConfiguration(geometry: geometry, style: style))
        let items = engine.visibleItems()
        #expect(items.map(\.slot) == Array(-10...10))
        #expect(items.map(\.index) == (-10...10).map { (($0 % 5) + 5) % 5 })
        for item in items { #expect(item.zIndex == -Double(abs(item.slot)) * 100) }
        // Non-cyclic: all 5 items (half a turn alone listed only slots 0…2).
        let flat = CarouselGeometry(viewport: CarouselSize(width: 2000, height: 200),
                                    item: CarouselSize(width: 100, height: 160), spacing: 0, count: 5)
        #expect(CarouselEngine(configuration: CarouselConfiguration(geometry: flat, style: style))
            .visibleItems().map(\.index) == [0, 1, 2, 3, 4])
    }
}
