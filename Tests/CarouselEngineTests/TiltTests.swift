import Testing
@testable import CarouselEngine

@Suite struct TiltTests {
    /// Speed for roll −12°: 3 items/s · 260 · (12 − 3) / (25 − 3) = 319.0909 pt/s.
    let speed12 = 3 * 260 * 9.0 / 22

    func offsetAfterOneSecond(rateHz: Double, direction: LayoutDirection = .leftToRight, start: Int = 0) -> Double {
        var e = makeEngine(narrowGeometry(direction: direction), initialIndex: start)
        let samples = Int(rateHz)
        for k in 0..<samples { e.tilt(rollDegrees: -12, at: Double(k) / rateHz) }
        e.advance(to: 1)
        #expect(e.state.phase == .tilting)
        return e.state.offset
    }

    @Test func speedIsIndependentOfTheSampleRate() {
        let slow = offsetAfterOneSecond(rateHz: 30)
        let fast = offsetAfterOneSecond(rateHz: 240)
        #expect(isClose(slow, speed12))
        #expect(isClose(fast, speed12))
    }

    @Test func rightToLeftFlipsTheDirection() {
        let offset = offsetAfterOneSecond(rateHz: 60, direction: .rightToLeft, start: 5)
        #expect(isClose(offset, 1300 - speed12))
    }

    @Test func rollBeyondTheMaximumSaturates() {
        var e = makeEngine()
        e.tilt(rollDegrees: -40, at: 0)
        e.advance(to: 0.5)
        #expect(isClose(e.state.offset, 390))   // 3 · 260 pt/s for 0.5 s
        #expect(isClose(e.state.velocity, 780))
    }

    @Test func deadZoneDoesNothingAndEndingSnaps() {
        var e = makeEngine()
        e.tilt(rollDegrees: 2.9, at: 0)
        e.advance(to: 1)
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .idle)
        e.tilt(rollDegrees: -12, at: 1)
        e.advance(to: 2)
        #expect(isClose(e.state.offset, speed12))
        e.tilt(rollDegrees: 1, at: 2)       // back in the dead zone: snap to 1.23 → item 1
        #expect(e.state.phase == .snapping)
        e.advance(to: 5)
        #expect(e.state.offset == 260)
    }

    @Test func stopsAtTheEndsOfANonCyclicCarousel() {
        var e = makeEngine(initialIndex: 9)
        e.tilt(rollDegrees: -25, at: 0)
        e.advance(to: 2)
        #expect(e.state.offset == 2340)
        #expect(e.state.velocity == 0)
    }

    @Test func positionModeDisplacesAndSpringsBack() {
        var e = makeEngine(initialIndex: 2, tilt: TiltSettings(mode: .position))
        e.tilt(rollDegrees: 12.5, at: 0)        // 12.5 / 25 · 0.5 · 260 = 65 toward lower indices
        #expect(e.state.offset == 455)
        e.tilt(rollDegrees: -30, at: 0.1)       // clamped to −1: +130
        #expect(e.state.offset == 650)
        e.advance(to: 0.5)
        #expect(e.state.offset == 650)          // position mode does not integrate
        e.tilt(rollDegrees: 0, at: 0.5)
        e.advance(to: 5)
        #expect(e.state.offset == 520)
    }

    /// docs/ENGINE.md "Tilt" gives the position-mode displacement without a dead zone: it is continuous
    /// in the roll (before, 3.01° jumped from 0 to 3.01 / 25 · 130 = 15.65 pt); the dead zone only
    /// re-arms tilt after a higher input.
    @Test func positionModeHasNoJumpAtTheDeadZoneEdge() {
        var e = makeEngine(initialIndex: 2, tilt: TiltSettings(mode: .position))
        e.tilt(rollDegrees: -2.99, at: 0)       // inside the 3° dead zone: 2.99 / 25 · 130 = 15.548
        #expect(isClose(e.state.offset, 520 + 15.548))
        #expect(e.state.phase == .tilting)
        e.tilt(rollDegrees: -3.01, at: 0.1)
        #expect(isClose(e.state.offset, 520 + 15.652))
        e.tilt(rollDegrees: 0, at: 0.2)         // level: springs back to item 2
        #expect(e.state.phase == .snapping)
        e.advance(to: 3)
        #expect(e.state.offset == 520)
        // After a higher input, tilt waits for the dead zone before it drives again.
        e.scrollTo(index: 1, animated: false, at: 3)
        e.tilt(rollDegrees: -10, at: 3.1)
        #expect(e.state.offset == 260)
        e.tilt(rollDegrees: -2, at: 3.2)        // back in the dead zone: re-armed, displaces 10.4
        #expect(isClose(e.state.offset, 270.4))
    }

    @Test func runtimeSettingsChangeTakesEffect() {
        var e = makeEngine()
        e.tilt(rollDegrees: -12, at: 0)
        e.setTilt(maxItemsPerSecond: 6, at: 0)
        e.advance(to: 1)
        #expect(isClose(e.state.offset, 2 * speed12))
        e.setTilt(enabled: false, at: 1)
        #expect(e.state.phase == .snapping)
        e.tilt(rollDegrees: -12, at: 1.1)
        e.advance(to: 5)
        #expect(e.state.offset == 520)           // 638.2 → 2.45 → item 2, and tilt stays off
        #expect(e.tiltSettings.maxItemsPerSecond == 6)
    }
}

@Suite struct OuterScrollTests {
    @Test func firstSampleOnlySetsTheBaseline() {
        var e = makeEngine()
        e.outerScroll(y: 500, at: 0)
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .idle)
        e.outerScroll(y: 550, at: 0.1)          // Δoffset = 0.8 · 50
        #expect(e.state.offset == 40)
        #expect(e.state.phase == .outer_scrolling)
        #expect(isClose(e.state.velocity, 400))
        e.outerScroll(y: 600, at: 0.2)
        #expect(e.state.offset == 80)
        e.outerScrollEnded(at: 0.3)
        #expect(e.state.phase == .snapping)
        e.advance(to: 3)
        #expect(e.state.offset == 0)            // 80 / 260 = 0.31 → item 0
        // A new scroll starts from a new baseline: no jump by 0.8 · 400.
        e.outerScroll(y: 1000, at: 3)
        #expect(e.state.offset == 0)
        e.outerScroll(y: 1200, at: 3.1)
        #expect(e.state.offset == 160)
        e.outerScrollEnded(at: 3.2)
        e.advance(to: 6)
        #expect(e.state.offset == 260)          // 0.62 → item 1
    }

    @Test func clampsAtTheEnds() {
        var e = makeEngine()
        e.outerScroll(y: 0, at: 0)
        e.outerScroll(y: -300, at: 0.1)
        #expect(e.state.offset == 0)
    }
}
