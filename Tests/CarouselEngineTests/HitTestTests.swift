import Testing
@testable import CarouselEngine

@Suite struct HitTestTests {
    func card(_ index: Int, x: Double, z: Double, transform: Transform3D = .identity) -> ItemAttributes {
        ItemAttributes(index: index, instance: 0, slot: index, center: CarouselPoint(x: x, y: 100),
                       size: CarouselSize(width: 200, height: 100), scaleX: 1, scaleY: 1, alpha: 1, zIndex: z,
                       transform: transform)
    }

    @Test func topmostZIndexWins() {
        // Cards 0 (x 100…300) and 1 (x 200…400) overlap on 200…300.
        let items = [card(0, x: 200, z: -1), card(1, x: 300, z: 0)]
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 250, y: 100), in: items)?.index == 1)
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 150, y: 100), in: items)?.index == 0)
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 450, y: 100), in: items) == nil)
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 250, y: 151), in: items) == nil)
    }

    @Test func usesTheTransformedFrame() {
        // Scaled to half: x 250…350, y 75…125 around the center 300.
        let items = [card(0, x: 300, z: 0, transform: .scale(0.5, 0.5))]
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 340, y: 100), in: items)?.index == 0)
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 380, y: 100), in: items) == nil)
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 300, y: 130), in: items) == nil)
        // Rotated a quarter turn about y: the card is seen edge-on, nothing to hit beside the center line.
        let edgeOn = [card(0, x: 300, z: 0, transform: .rotationY(.pi / 2))]
        #expect(HitTest.topmostItem(at: CarouselPoint(x: 340, y: 100), in: edgeOn) == nil)
    }

    @Test func equalZIndexPrefersTheCardNearestTheCenter() {
        let items = [card(0, x: 100, z: 0), card(1, x: 200, z: 0), card(2, x: 300, z: 0)]
        let hit = HitTest.topmostItem(at: CarouselPoint(x: 180, y: 100), in: items,
                                      viewportCenter: CarouselPoint(x: 200, y: 100))
        #expect(hit?.index == 1)
    }

    /// Overlapping cards in the engine: item 300 wide, pitch 100 (spacing −200), viewport 400.
    /// Centered on item 5, item k is centered at 200 + (k − 5) · 100, so x = 30 lies on items 2
    /// (−250…50), 3 (−150…150) and 4 (−50…250); item 4 is the one nearest the center on top.
    @Test func tapCentersTheTopmostOverlappingCard() {
        let g = CarouselGeometry(viewport: CarouselSize(width: 400, height: 200), item: CarouselSize(width: 300, height: 100),
                                 spacing: -200, count: 10)
        var e = makeEngine(g, initialIndex: 5)
        e.tap(location: 30, at: 0)
        #expect(e.state.phase == .animating)
        e.advance(to: 3)
        #expect(e.state.offset == 400)
        #expect(e.state.index == 4)
        // Outside every card (cross axis beyond the 100 pt height): nothing happens.
        e.tap(location: 200, cross: 190, at: 3)
        #expect(e.state.phase == .idle)
        #expect(e.state.offset == 400)
    }

    @Test func tapOnNothingDoesNothing() {
        var e = makeEngine()
        e.tap(location: 317, at: 0)             // the gap between items 0 (…312.5) and 1 (322.5…)
        #expect(e.state.phase == .idle)
        e.advance(to: 1)
        #expect(e.state.offset == 0)
    }
}
