import Testing
@testable import CarouselEngine

@Suite struct ProgrammaticTests {
    @Test func setOffsetPlacesAtOnceWithoutSnapping() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: 1000, at: 0)
        e.setOffset(640, at: 0.2)               // position 2.46: between items
        #expect(e.state.phase == .idle)
        #expect(e.state.velocity == 0)
        e.advance(to: 10)
        #expect(e.state.offset == 640)
        #expect(e.takeEvents() == [.cameToRest(index: 2, previous: 0)])
        // Item 2 is centered at 187.5 + 520 − 640 = 67.5 (…192.5), item 3 at 327.5 (202.5…).
        e.tap(location: 197, at: 10)            // the gap: nothing happens, still no snap
        e.advance(to: 20)
        #expect(e.state.offset == 640)
        e.tap(location: 300, at: 20)
        e.advance(to: 30)
        #expect(e.state.offset == 780)
    }

    @Test func scrollToWithoutAnimationRestsAtOnce() {
        var e = makeEngine()
        e.scrollTo(index: 4, animated: false, at: 0)
        #expect(e.state.offset == 1040)
        #expect(e.state.phase == .idle)
        e.scrollTo(index: 99, animated: false, at: 1)   // clamped to the last item
        #expect(e.state.offset == 2340)
        #expect(e.takeEvents() == [.cameToRest(index: 4, previous: 0), .cameToRest(index: 9, previous: 4)])
    }

    @Test func reconfigureKeepsThePosition() {
        var e = makeEngine(initialIndex: 3)
        var c = e.configuration
        c.geometry = wideGeometry(count: 6)
        c.paging = .nearest
        c.tilt.maxItemsPerSecond = 1
        e.reconfigure(c, at: 0)
        #expect(e.state.offset == 3 * 520)
        #expect(e.state.count == 6)
        #expect(e.configuration.paging == .nearest)
        #expect(e.tiltSettings.maxItemsPerSecond == 1)
        c.geometry.cyclic = true
        e.reconfigure(c, at: 1)
        #expect(e.state.index == 3)
        #expect(e.geometry.cyclic)
    }

    @Test func isMovingTellsWhenFramesAreNeeded() {
        var e = makeEngine()
        #expect(!e.isMoving)
        e.scrollTo(index: 1, animated: true, at: 0)
        #expect(e.isMoving)
        e.advance(to: 5)
        #expect(!e.isMoving)
        e.tilt(rollDegrees: 0, at: 5)           // scrollTo disarmed tilt: re-arm in the dead zone
        e.tilt(rollDegrees: -10, at: 5)
        #expect(e.isMoving)
        e.outerScroll(y: 0, at: 6)
        #expect(e.isMoving)                     // a baseline sample does not stop tilt
    }
}
