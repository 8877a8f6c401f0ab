import Testing
@testable import CarouselEngine

@Suite struct GeometryTests {
    @Test func itemIsCenteredAtMultiplesOfThePitch() {
        let g = narrowGeometry()
        #expect(g.pitch == 260)
        #expect(g.maximumOffset == 9 * 260)
        #expect(g.index(atOffset: 0) == 0)
        #expect(g.index(atOffset: 2340) == 9)
        // Ties go to the higher index: floor(x + 0.5).
        #expect(g.index(atOffset: 130) == 1)
        #expect(g.index(atOffset: 129.999) == 0)
        // Beyond the ends the index clamps.
        #expect(g.index(atOffset: -500) == 0)
        #expect(g.index(atOffset: 99_999) == 9)
    }

    @Test func emptyCarouselHasNoIndex() {
        let g = narrowGeometry(count: 0)
        #expect(g.index(atOffset: 0) == nil)
        var e = makeEngine(g)
        #expect(e.state.index == nil)
        #expect(e.state.offset == 0)
        #expect(e.visibleItems().isEmpty)
        // Inputs on an empty carousel are harmless.
        e.dragBegan(location: 100, at: 0)
        e.dragMoved(location: 10, at: 0.05)
        e.dragEnded(location: 0, at: 0.1)
        e.fling(offset: 100, velocity: 900, at: 0.2)
        e.tilt(rollDegrees: -20, at: 0.3)
        e.scrollTo(index: 3, animated: true, at: 0.4)
        e.tap(location: 187.5, at: 0.5)
        e.advance(to: 2)
        #expect(e.state.offset == 0)
        #expect(e.state.index == nil)
        #expect(e.state.phase == .idle)
    }

    @Test func firstAndLastItemCanBeCentered() {
        var e = makeEngine(initialIndex: 9)
        #expect(e.state.offset == 2340)
        #expect(e.state.position == 9)
        let centered = e.visibleItems().first { $0.index == 9 }
        #expect(centered?.center == CarouselPoint(x: 187.5, y: 100))
        e.setOffset(5000, at: 0)
        #expect(e.state.offset == 2340)
        e.setOffset(-5, at: 0)
        #expect(e.state.offset == 0)
    }

    @Test func visibleItemsAreCenteredAtTheirDistance() {
        var e = makeEngine()
        e.setOffset(390, at: 0)  // position 1.5
        let items = e.visibleItems()
        #expect(items.map(\.slot) == items.map(\.slot).sorted())
        let one = items.first { $0.index == 1 }
        let two = items.first { $0.index == 2 }
        #expect(one?.center.x == 187.5 - 130)
        #expect(two?.center.x == 187.5 + 130)
        #expect(one?.center.y == 100)
        #expect(one?.size == CarouselSize(width: 250, height: 160))
        #expect(one?.instance == 0)
        #expect(e.state.position == 1.5)
        #expect(e.state.index == 2)
    }

    @Test func rightToLeftMirrorsTheLayout() {
        let e = makeEngine(narrowGeometry(direction: .rightToLeft))
        let one = e.visibleItems().first { $0.index == 1 }
        // In RTL higher indices lie to the left: 187.5 − 260.
        #expect(one?.center.x == -72.5)
    }

    @Test func verticalAxisUsesY() {
        let g = CarouselGeometry(viewport: CarouselSize(width: 200, height: 600), item: CarouselSize(width: 160, height: 250),
                                 spacing: 10, axis: .vertical, count: 5)
        var e = makeEngine(g)
        #expect(g.pitch == 260)
        e.setOffset(260, at: 0)
        let two = e.visibleItems().first { $0.index == 2 }
        #expect(two?.center == CarouselPoint(x: 100, y: 300 + 260))
    }

    @Test func mirroringConjugatesTheTransform() {
        let r = Transform3D.rotationY(0.3)
        let m = LayoutMapping.mirroredX(r)
        let expected = Transform3D.rotationY(-0.3)
        for (a, b) in zip(m.values, expected.values) { #expect(isClose(a, b)) }
        #expect(LayoutMapping.mirroredX(.translation(5, 7, 9)) == .translation(-5, 7, 9))
        #expect(LayoutMapping.mirroredX(.scale(2, 3)) == .scale(2, 3))
    }

    @Test func verticalSwapConjugatesTheTransform() {
        let m = LayoutMapping.swappedXY(.rotationY(0.3))
        let expected = Transform3D.rotationX(-0.3)
        for (a, b) in zip(m.values, expected.values) { #expect(isClose(a, b)) }
        #expect(LayoutMapping.swappedXY(.translation(5, 7, 9)) == .translation(7, 5, 9))
        #expect(LayoutMapping.swappedXY(.scale(2, 3)) == .scale(3, 2))
    }

    @Test func styleOutputIsMappedToTheRealAxis() {
        let output = StyleOutput(centerOffset: 40, scaleAlong: 0.5, scaleCross: 0.8, alpha: 0.7, zIndex: -3,
                                 transform: .scale(0.5, 0.8))
        let rtl = LayoutMapping.attributes(of: output, index: 1, instance: 0, slot: 1,
                                           geometry: narrowGeometry(direction: .rightToLeft))
        #expect(rtl.center == CarouselPoint(x: 187.5 - 40, y: 100))
        #expect(rtl.scaleX == 0.5 && rtl.scaleY == 0.8)
        let vertical = LayoutMapping.attributes(of: output, index: 1, instance: 0, slot: 1,
                                                geometry: narrowGeometry(axis: .vertical))
        #expect(vertical.center == CarouselPoint(x: 187.5, y: 100 + 40))
        #expect(vertical.scaleX == 0.8 && vertical.scaleY == 0.5)
        #expect(vertical.transform == .scale(0.8, 0.5))
        #expect(vertical.alpha == 0.7 && vertical.zIndex == -3)
    }

    @Test func visibleQueryCostDoesNotGrowWithCount() {
        var small = makeEngine(narrowGeometry(count: 11), initialIndex: 5)
        var huge = makeEngine(narrowGeometry(count: 1_000_000), initialIndex: 500_000)
        small.setOffset(5 * 260 + 17, at: 0)
        huge.setOffset(500_000 * 260 + 17, at: 0)
        let a = small.visibleItems(), b = huge.visibleItems()
        #expect(a.count == b.count)
        #expect(a.count < 10)
        #expect(a.map(\.center) == b.map(\.center))
        #expect(b.map(\.index) == a.map { $0.index + 499_995 })
    }
}
