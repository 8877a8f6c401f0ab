import Testing
@testable import CarouselEngine

/// Autoplay: steps at exact deadlines counted from rest, pauses on interaction and by the user,
/// rewinds at the end of a non-cyclic carousel, and runs a week without drift. Narrow geometry:
/// pitch 260.
@Suite struct AutoplayTests {
    /// The scroll animation of one step: a critically damped spring over one pitch from rest.
    let stepDuration = SnapMotion(startTime: 0, startOffset: 0, startVelocity: 0, target: 260).duration

    func autoplayEngine(count: Int = 10, cyclic: Bool = false, initialIndex: Int = 0, interval: Double = 5,
                        resume: Double = 10, step: Int = 1) -> CarouselEngine {
        var c = CarouselConfiguration(geometry: narrowGeometry(count: count, cyclic: cyclic), initialIndex: initialIndex,
                                      style: passthrough)
        c.autoplay = AutoplaySettings(intervalSeconds: interval, resumeSeconds: resume, step: step)
        return CarouselEngine(configuration: c)
    }

    @Test func offByDefaultAndNothingHappens() {
        var e = makeEngine()
        #expect(e.autoplayState == .off)
        #expect(e.nextDeadline == nil)
        e.advance(to: 1000)
        #expect(e.state.offset == 0)
        #expect(e.takeEvents().isEmpty)
    }

    @Test func stepsAfterTheIntervalAtRestAndCountsTheNextFromLanding() {
        var e = autoplayEngine()
        #expect(e.autoplayState == .running)
        #expect(e.nextDeadline == 5)
        e.advance(to: 4.999)
        #expect(e.state.phase == .idle)
        // The daemon wakes 30 ms late: the step still started at 5.
        e.advance(to: 5.03)
        #expect(e.state.phase == .animating)
        let spring = SnapMotion(startTime: 5, startOffset: 0, startVelocity: 0, target: 260)
        #expect(e.state.offset == spring.offset(at: 5.03))
        #expect(e.nextDeadline == nil)  // moving: no deadline
        e.advance(to: 5 + stepDuration + 1e-6)
        #expect(e.state.offset == 260)
        #expect(e.state.index == 1)
        #expect(e.takeEvents() == [.cameToRest(index: 1, previous: 0)])
        #expect(e.nextDeadline == 5 + stepDuration + 5)
    }

    @Test func oneLongJumpTakesEveryStepOnTime() {
        // Steps start at 5 + k · (D + 5): by t = 5 + 3 (D + 5) + 0.001, four steps have started
        // and three have landed.
        var e = autoplayEngine()
        let period = stepDuration + 5
        e.advance(to: 5 + 3 * period + 0.001)
        #expect(e.autoplayClock.steps == 4)
        #expect(e.state.phase == .animating)
        e.advance(to: 5 + 3 * period + stepDuration + 1e-6)
        #expect(e.state.offset == 4 * 260)
    }

    @Test func nonCyclicEndRewindsToTheFirstItemAndBackwardsToTheLast() {
        var e = autoplayEngine(count: 3, initialIndex: 2)
        e.advance(to: 5)
        #expect(e.state.velocity == 0)  // the spring starts at rest
        e.advance(to: 5 + 2)            // the rewind spring over 520 pt has landed
        #expect(e.state.offset == 0)
        var back = autoplayEngine(count: 3, step: -1)
        back.advance(to: 7)
        #expect(back.state.offset == 520)
        // A step of 5 from item 0 of 3 stops at the last item first, then rewinds.
        var big = autoplayEngine(count: 3, step: 5)
        big.advance(to: 7)
        #expect(big.state.offset == 520)
        big.advance(to: 7 + 5 + 2)
        #expect(big.state.offset == 0)
    }

    @Test func cyclicStepsWrapThroughTheSeam() {
        var e = autoplayEngine(count: 3, cyclic: true, initialIndex: 2)
        e.advance(to: 5 + stepDuration + 1e-6)
        // Slot 3 is item 0; the offset is normalised back into the first cycle.
        #expect(e.state.index == 0)
        #expect(e.state.offset == 0)
        #expect(e.takeEvents() == [.cameToRest(index: 0, previous: 2)])
    }

    @Test func interactionsPauseUntilResumeSecondsOfRest() {
        var e = autoplayEngine()
        e.dragBegan(location: 300, at: 2)
        #expect(e.autoplayState == .paused)
        #expect(e.takeEvents() == [.autoplayChanged(.paused)])
        e.dragEnded(location: 300, at: 2.1)  // a tap on item 0 (already centered): animates in place
        e.advance(to: 3)
        #expect(e.state.phase == .idle)
        // Rest began at 2.1 at the latest (the tap's animation lands at once): resume 10 s later.
        let deadline = e.nextDeadline ?? 0
        #expect(deadline == 12.1)
        e.advance(to: deadline)
        #expect(e.autoplayState == .running)
        #expect(e.takeEvents() == [.autoplayChanged(.running)])
        #expect(e.state.phase == .animating)
    }

    @Test func tiltOutsideTheDeadZonePausesInsideDoesNot() {
        var e = autoplayEngine()
        e.tilt(rollDegrees: 2, at: 1)      // inside the 3° dead zone
        #expect(e.autoplayState == .running)
        #expect(e.nextDeadline == 5)
        e.tilt(rollDegrees: -4, at: 2)     // outside: drives the carousel and pauses autoplay
        #expect(e.autoplayState == .paused)
        // 1 s at 3 · 260 · (4 − 3) / (25 − 3) = 35.45 pt/s, then level: a spring back to item 0.
        e.tilt(rollDegrees: 0, at: 3)
        #expect(isClose(e.state.offset, 780.0 / 22))
        let spring = SnapMotion(startTime: 3, startOffset: 780.0 / 22, startVelocity: 0, target: 0)
        e.advance(to: 4)
        #expect(e.state.phase == .idle)
        // Rest began when the spring landed; the step waits for 10 s of rest after it.
        #expect(e.nextDeadline == spring.startTime + spring.duration + 10)
        // Disabled tilt is not an interaction.
        var off = autoplayEngine()
        off.setTilt(enabled: false, at: 0)
        off.tilt(rollDegrees: 20, at: 1)
        #expect(off.autoplayState == .running)
    }

    @Test func otherInputsPause() {
        var a = autoplayEngine()
        a.scrollTo(index: 3, animated: false, at: 1)
        #expect(a.nextDeadline == 11)
        var b = autoplayEngine()
        b.tap(location: 10, at: 1)  // on no item
        #expect(b.autoplayState == .paused)
        var c = autoplayEngine()
        c.outerScroll(y: 0, at: 1)  // the baseline: no movement, no pause
        #expect(c.autoplayState == .running)
        c.outerScroll(y: 10, at: 1.1)
        #expect(c.autoplayState == .paused)
        var d = autoplayEngine()
        d.setOffset(30, at: 1)
        #expect(d.nextDeadline == 11)
        var f = autoplayEngine()
        f.fling(offset: 0, velocity: 100, at: 1)
        #expect(f.autoplayState == .paused)
    }

    @Test func theUsersPauseLastsUntilLiftedAndRestartsTheInterval() {
        var e = autoplayEngine()
        e.setAutoplay(paused: true, at: 1)
        #expect(e.autoplayState == .paused)
        #expect(e.nextDeadline == nil)
        e.advance(to: 100_000)
        #expect(e.state.offset == 0)
        e.setAutoplay(paused: false, at: 100_000)
        #expect(e.autoplayState == .running)
        #expect(e.nextDeadline == 100_005)
        #expect(e.takeEvents() == [.autoplayChanged(.paused), .autoplayChanged(.running)])
    }

    @Test func runtimeChangesOfEnabledAndInterval() {
        var e = makeEngine()
        e.setAutoplay(intervalSeconds: 3, at: 10)
        #expect(e.autoplayState == .running)
        #expect(e.nextDeadline == 13)
        e.setAutoplay(enabled: false, at: 11)
        #expect(e.autoplayState == .off)
        #expect(e.nextDeadline == nil)
        e.setAutoplay(enabled: true, at: 20)
        #expect(e.nextDeadline == 23)
        e.setAutoplay(intervalSeconds: 0.001, at: 21)  // below the minimum: 0.1 s
        #expect(e.nextDeadline == 21.1)
        e.setAutoplay(step: 0, at: 21)                 // ignored
        #expect(e.autoplaySettings.step == 1)
        #expect(e.takeEvents() == [.autoplayChanged(.running), .autoplayChanged(.off), .autoplayChanged(.running)])
    }

    @Test func fewerThanTwoItemsHaveNoDeadline() {
        var e = autoplayEngine(count: 1)
        #expect(e.nextDeadline == nil)
        e.setCount(0, at: 1)
        #expect(e.nextDeadline == nil)
        e.advance(to: 100)
        #expect(e.state.index == nil)
    }

    @Test func validationNamesTheField() {
        var c = CarouselConfiguration(geometry: narrowGeometry())
        c.autoplay.intervalSeconds = 0.05
        #expect(throws: CarouselConfigurationError.self) { try c.validate() }
        do { try c.validate() } catch { #expect(error.field == "autoplay.intervalS") }
        c.autoplay.intervalSeconds = 5
        c.autoplay.step = 0
        do { try c.validate() } catch { #expect(error.field == "autoplay.step") }
        c.autoplay.step = -1
        c.autoplay.resumeSeconds = -1
        do { try c.validate() } catch { #expect(error.field == "autoplay.resumeS") }
        c.autoplay.resumeSeconds = 0
        #expect(throws: Never.self) { try c.validate() }
    }

    /// A kiosk's week: interval 30 s, a cyclic 7-item carousel. The scripted daemon sleeps until
    /// `nextDeadline` (waking up to 3 ms late), renders 4 frames a second while the carousel
    /// moves, and never wakes otherwise. Steps start at exactly 30 + k · (D + 30) whatever the
    /// lateness (20,000-odd steps); the index stays in range; a single jump over the week lands
    /// on the same state.
    @Test func aSimulatedWeekHasNoDriftNoOverflowAndOneWakeUpPerStep() {
        let week = 7 * 86_400.0
        var e = autoplayEngine(count: 7, cyclic: true, interval: 30)
        let period = stepDuration + 30
        var t = 0.0
        var idleWakeUps = 0
        var lateness: UInt64 = 12_345
        var worstDrift = 0.0
        while t < week {
            if e.isMoving {
                t = min(t + 0.25, week)
            } else if let deadline = e.nextDeadline {
                if deadline > week { break }
                // Expected start of step number `steps` (0-based).
                let expected = 30 + Double(e.autoplayClock.steps) * period
                worstDrift = max(worstDrift, abs(deadline - expected))
                lateness = lateness &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                t = min(deadline + Double(lateness >> 40) / Double(1 << 24) * 0.003, week)
                idleWakeUps += 1
            } else {
                Issue.record("idle with no deadline at t = \(t)")
                break
            }
            e.advance(to: t)
            if let index = e.state.index { #expect(index >= 0 && index < 7) }
            #expect(e.state.offset >= 0 && e.state.offset < 7 * 260)
        }
        e.advance(to: week)
        let expectedSteps = Int(((week - 30) / period).rounded(.down)) + 1
        #expect(e.autoplayClock.steps == expectedSteps)
        #expect(idleWakeUps == expectedSteps)
        #expect(worstDrift < 1e-6)
        var jump = autoplayEngine(count: 7, cyclic: true, interval: 30)
        jump.advance(to: week)
        #expect(jump.autoplayClock.steps == expectedSteps)
        #expect(jump.state == e.state)
    }
}
