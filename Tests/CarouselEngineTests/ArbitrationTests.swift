import Testing
@testable import CarouselEngine

@Suite struct ArbitrationTests {
    let speed12 = 3 * 260 * 9.0 / 22

    @Test func tiltIsArmedAtStartUp() {
        var e = makeEngine()
        #expect(e.isTiltArmed)
        e.tilt(rollDegrees: -12, at: 0)
        #expect(e.state.phase == .tilting)
    }

    @Test func dragSuspendsTiltUntilTheDeadZone() {
        var e = makeEngine()
        e.tilt(rollDegrees: -12, at: 0)
        e.advance(to: 0.5)
        let tilted = e.state.offset
        #expect(isClose(tilted, speed12 / 2))
        e.dragBegan(location: 200, at: 0.5)
        #expect(!e.isTiltArmed)
        e.tilt(rollDegrees: -12, at: 0.6)
        #expect(e.state.phase == .dragging)
        #expect(e.state.offset == tilted)
        e.dragMoved(location: 150, at: 0.7)     // crossed at 190: +40
        #expect(e.state.offset == tilted + 40)
        e.dragEnded(location: 150, velocity: 0, at: 0.8)
        e.advance(to: 4)
        #expect(e.state.offset == 260)          // 199.5 → 0.77 → item 1
        // Still tilted: tilt stays disarmed.
        e.tilt(rollDegrees: -12, at: 4)
        e.advance(to: 5)
        #expect(e.state.offset == 260)
        #expect(e.state.phase == .idle)
        // Back in the dead zone, then tilted again: tilt resumes.
        e.tilt(rollDegrees: 0, at: 5)
        #expect(e.isTiltArmed)
        e.tilt(rollDegrees: -12, at: 5.1)
        e.advance(to: 6.1)
        #expect(isClose(e.state.offset, 260 + speed12))
    }

    @Test func deadZoneDuringAHigherInputDoesNotRearm() {
        var e = makeEngine()
        e.dragBegan(location: 200, at: 0)
        e.tilt(rollDegrees: 0, at: 0.1)
        #expect(!e.isTiltArmed)
        e.dragEnded(location: 200, at: 0.2)
        e.tilt(rollDegrees: 0, at: 0.3)
        #expect(e.isTiltArmed)
    }

    @Test func scrollToIsIgnoredWhileAFingerIsDown() {
        var e = makeEngine()
        e.dragBegan(location: 200, at: 0)
        e.scrollTo(index: 5, animated: false, at: 0.1)
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .dragging)
    }

    @Test func scrollToRedirectsADeceleration() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: 1000, at: 0)
        e.scrollTo(index: 6, animated: true, at: 0.1)
        #expect(e.state.phase == .animating)
        e.advance(to: 5)
        #expect(e.state.offset == 1560)
    }

    @Test func outerScrollWaitsForScrollToAndKeepsItsBaseline() {
        var e = makeEngine()
        e.outerScroll(y: 0, at: 0)
        e.scrollTo(index: 3, animated: true, at: 0)
        var reference = makeEngine()
        reference.scrollTo(index: 3, animated: true, at: 0)
        e.outerScroll(y: 100, at: 0.1)
        reference.advance(to: 0.1)
        #expect(e.state.phase == .animating)
        #expect(e.state.offset == reference.state.offset)
        e.advance(to: 3)
        #expect(e.state.offset == 780)
        e.outerScroll(y: 150, at: 3.1)          // Δ from the moved baseline: 0.8 · 50
        #expect(e.state.offset == 820)
        #expect(e.state.phase == .outer_scrolling)
    }

    @Test func outerScrollSuspendsTilt() {
        var e = makeEngine()
        e.tilt(rollDegrees: -12, at: 0)
        e.outerScroll(y: 0, at: 0.5)
        #expect(e.state.phase == .tilting)      // the baseline sample does not take over
        e.outerScroll(y: 10, at: 0.6)
        #expect(e.state.phase == .outer_scrolling)
        #expect(!e.isTiltArmed)
        let offset = e.state.offset
        e.tilt(rollDegrees: -12, at: 0.7)
        e.advance(to: 1)
        #expect(e.state.offset == offset)
    }

    @Test func dragInterruptsOuterScroll() {
        var e = makeEngine()
        e.outerScroll(y: 0, at: 0)
        e.outerScroll(y: 100, at: 0.1)
        #expect(e.state.offset == 80)
        e.dragBegan(location: 200, at: 0.2)
        e.outerScroll(y: 200, at: 0.3)
        #expect(e.state.offset == 80)
        #expect(e.state.phase == .dragging)
    }

    @Test func tiltCannotInterruptAnOuterScrollSnap() {
        var e = makeEngine()
        e.tilt(rollDegrees: 0, at: 0)
        e.outerScroll(y: 0, at: 0)
        e.outerScroll(y: 100, at: 0.1)
        e.outerScrollEnded(at: 0.2)
        e.tilt(rollDegrees: 0, at: 0.25)        // dead zone while the snap runs: does not re-arm
        e.tilt(rollDegrees: -20, at: 0.3)
        #expect(e.state.phase == .snapping)
        e.advance(to: 3)
        #expect(e.state.offset == 0)
    }
}
