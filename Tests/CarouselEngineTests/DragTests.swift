import Testing
@testable import CarouselEngine

@Suite struct DragTests {
    @Test func contentFollowsTheFingerFromTheCrossingPoint() {
        var e = makeEngine()
        e.dragBegan(location: 300, at: 0)
        #expect(e.state.phase == .dragging)
        e.dragMoved(location: 295, at: 0.01)    // 5 pt: under the 10 pt threshold
        #expect(e.state.offset == 0)
        e.dragMoved(location: 250, at: 0.05)    // crossed at 290: content moves 40, not 50
        #expect(e.state.offset == 40)
        e.dragMoved(location: 200, at: 0.1)
        #expect(e.state.offset == 90)
    }

    @Test func releaseVelocityIsEstimatedWhenTheEventHasNone() {
        var e = makeEngine()
        e.dragBegan(location: 300, at: 0)
        for k in 1...20 { e.dragMoved(location: 300 - 5 * Double(k), at: 0.01 * Double(k)) }
        #expect(e.state.offset == 90)
        e.dragEnded(location: 200, at: 0.2)
        // Finger −500 pt/s → content +500; rest 90 + 249.75 = 339.75 → 1.31 → item 1.
        #expect(isClose(e.state.velocity, 500, 1e-6))
        e.advance(to: 10)
        #expect(e.state.offset == 260)
    }

    @Test func tapJitterUnderTheThresholdDoesNotMove() {
        var e = makeEngine()
        e.dragBegan(location: 200, at: 0)
        e.dragMoved(location: 205, at: 0.02)
        e.dragMoved(location: 197, at: 0.04)
        e.dragEnded(location: 203, velocity: 800, at: 0.06)
        // A tap on the centered item: nothing moves, no snap, no event.
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .idle)
        e.advance(to: 2)
        #expect(e.state.offset == 0)
        #expect(e.takeEvents().isEmpty)
    }

    @Test func tapJitterOnASideItemCentersIt() {
        var e = makeEngine()
        // Item 1 spans 322.5…572.5; the jitter starts at 340.
        e.dragBegan(location: 340, at: 0)
        e.dragMoved(location: 346, at: 0.02)
        e.dragEnded(location: 344, at: 0.04)
        #expect(e.state.phase == .animating)
        e.advance(to: 3)
        #expect(e.state.offset == 260)
        #expect(e.takeEvents() == [.cameToRest(index: 1, previous: 0)])
    }

    @Test func rubberBandBeyondTheStart() {
        var e = makeEngine()
        e.dragBegan(location: 100, at: 0)
        e.dragMoved(location: 210, at: 0.1)     // crossed at 110: raw −100
        #expect(isClose(e.state.offset, -47.96511627906977))
        e.dragEnded(location: 210, velocity: 0, at: 0.2)
        e.advance(to: 5)
        #expect(e.state.offset == 0)
    }

    @Test func rubberBandBeyondTheEnd() {
        var e = makeEngine(initialIndex: 9)
        e.dragBegan(location: 300, at: 0)
        e.dragMoved(location: 190, at: 0.1)     // crossed at 290: raw 2340 + 100
        #expect(isClose(e.state.offset, 2340 + 47.96511627906977))
        e.dragEnded(location: 190, velocity: -2000, at: 0.2)
        e.advance(to: 5)
        #expect(e.state.offset == 2340)
    }

    @Test func rightToLeftDragMovesContentWithTheFinger() {
        var e = makeEngine(narrowGeometry(direction: .rightToLeft))
        e.dragBegan(location: 100, at: 0)
        e.dragMoved(location: 200, at: 0.1)     // crossed at 110: +90
        #expect(e.state.offset == 90)
        e.dragEnded(location: 200, velocity: 1000, at: 0.2)
        // Finger +1000 → content +1000 in RTL: 90 + 499.5 = 589.5 → 2.27 → item 2.
        e.advance(to: 10)
        #expect(e.state.offset == 520)
    }

    @Test func catchingAMovingCarouselAndTappingNothingSnaps() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: 1000, at: 0)
        e.advance(to: 0.2)
        let caught = e.state.offset
        e.dragBegan(location: 151, at: 0.2)      // offset 166.0: the gap between items 0 and 1 is 146.5…156.5
        e.advance(to: 0.5)
        #expect(e.state.offset == caught)       // held by the finger
        e.dragEnded(location: 151, at: 0.5)
        e.advance(to: 5)
        #expect(e.state.offset == (caught / 260 + 0.5).rounded(.down) * 260)
    }
}

@Suite struct AxisAndDirectionInputTests {
    @Test func verticalDragMovesContentAgainstTheFinger() {
        let g = CarouselGeometry(viewport: CarouselSize(width: 200, height: 600), item: CarouselSize(width: 160, height: 250),
                                 spacing: 10, axis: .vertical, direction: .rightToLeft, count: 5)
        var e = makeEngine(g)
        e.dragBegan(location: 400, at: 0)
        e.dragMoved(location: 300, at: 0.1)     // finger up 100, crossed at 390: content +90
        #expect(e.state.offset == 90)
    }

    @Test func rightToLeftTapHitsTheMirroredItem() {
        var e = makeEngine(narrowGeometry(direction: .rightToLeft), initialIndex: 1)
        // Item 0 lies to the right in RTL: center 187.5 + 260 = 447.5, spanning 322.5…572.5.
        e.tap(location: 340, at: 0)
        e.advance(to: 3)
        #expect(e.state.offset == 0)
        // Item 1 is now to the left: center −72.5, spanning −197.5…52.5.
        e.tap(location: 40, at: 3)
        e.advance(to: 6)
        #expect(e.state.offset == 260)
    }

    @Test func verticalTapUsesTheYCoordinate() {
        let g = CarouselGeometry(viewport: CarouselSize(width: 200, height: 600), item: CarouselSize(width: 160, height: 250),
                                 spacing: 10, axis: .vertical, count: 5)
        var e = makeEngine(g)
        // Item 1 is centered at y = 300 + 260, spanning 435…685; x across: 20…180.
        e.tap(location: 450, cross: 30, at: 0)
        e.advance(to: 3)
        #expect(e.state.offset == 260)
        e.tap(location: 300, cross: 190, at: 3)  // beside the cards
        #expect(e.state.phase == .idle)
    }
}
