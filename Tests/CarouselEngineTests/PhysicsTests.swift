import Testing
@testable import CarouselEngine
#if canImport(Glibc)
import Glibc
#endif

@Suite struct PhysicsTests {
    /// A fling with momentum 0.998 from 0 at 1000 pt/s, pitch 260: rest point 499.5 → item 2.
    /// The decay rate is chosen to cover D = 520 pt by the time the speed is down to 10 pt/s:
    /// k = (1000 − 10) / 520 = 1.903846 1/s (UIScrollView's −1000 ln 0.998 = 2.002), so
    /// x(τ) = (1000 / k)(1 − e^(−kτ)), v(τ) = 1000 e^(−kτ), landing at τ = ln(100) / k = 2.4189 s.
    @Test func flingLandsExactlyOnTheMomentumTarget() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: 1000, at: 0)
        #expect(e.state.phase == .decelerating)
        #expect(isClose(e.state.velocity, 1000))   // the release velocity is kept
        e.advance(to: 0.5)
        #expect(isClose(e.state.offset, 322.50609818081466))
        #expect(isClose(e.state.velocity, 385.998005386526))
        // Just before the end: 0.0008 pt short, at the stop speed.
        e.advance(to: 2.4188)
        #expect(isClose(e.state.offset, 519.9992272490832, 1e-7))
        #expect(e.state.phase == .decelerating)
        #expect(abs(e.state.velocity - 10) < 0.01)
        e.advance(to: 2.419)
        #expect(e.state.offset == 520)
        #expect(e.state.velocity == 0)
        #expect(e.state.phase == .idle)
        #expect(e.takeEvents() == [.cameToRest(index: 2, previous: 0)])
    }

    /// UIKit's fast rate 0.99 (−1000 ln 0.99 = 10.05 1/s): from 200 at 1000 pt/s the projection
    /// is 299.5 → item 1 at 260; D = 60, k = 990 / 60 = 16.5, landing at ln(100) / 16.5 = 0.2791 s.
    @Test func fastRateSettlesQuickly() {
        var e = makeEngine(paging: .momentum(decelerationRate: 0.99, maxItemsPerFling: nil))
        e.fling(offset: 200, velocity: 1000, at: 0)
        e.advance(to: 0.1)
        #expect(isClose(e.state.offset, 200 + 1000 / 16.5 * (1 - exp(-1.65))))
        e.advance(to: 0.279)
        #expect(e.state.phase == .decelerating)
        e.advance(to: 0.2792)
        #expect(e.state.offset == 260)
        #expect(e.state.phase == .idle)
    }

    /// A release too weak to coast to its target (k < 1 1/s) springs there instead, keeping its
    /// velocity: 50 pt/s toward an item 200 pt away would need k = 0.2.
    @Test func weakReleaseTowardTheTargetIsASpring() {
        let m = Motion.release(startTime: 0, offset: 60, velocity: 50, target: 260)
        guard case .spring = m else { Issue.record("expected a spring, got \(m)"); return }
        #expect(m.velocity(at: 0) == 50)
        // Strong release onto a near target: k capped at 40, start speed 40 · 20 + 10 = 810.
        let strong = Motion.release(startTime: 0, offset: 240, velocity: 5000, target: 260)
        guard case let .deceleration(d) = strong else { Issue.record("expected a deceleration"); return }
        #expect(d.rate == 40)
        #expect(d.startSpeed == 810)
        #expect(isClose(d.duration, log(81) / 40))
    }

    @Test func decelerationDoesNotDependOnTheAdvanceStep() {
        func run(step: Double) -> [Double] {
            var e = makeEngine()
            e.fling(offset: 0, velocity: 1000, at: 0)
            var samples: [Double] = []
            var t = 0.0
            for checkpoint in [0.37, 1.1, 2.9, 8.0] {
                while t + step < checkpoint {
                    t += step
                    e.advance(to: t)
                }
                e.advance(to: checkpoint)
                t = checkpoint
                samples.append(e.state.offset)
            }
            return samples
        }
        let coarse = run(step: 1.0 / 7), fine = run(step: 1.0 / 240), once = run(step: 100)
        #expect(coarse == fine)
        #expect(fine == once)
        #expect(once.last == 520)
    }

    @Test func snapAnimationIsACriticallyDampedSpring() {
        var e = makeEngine()
        e.scrollTo(index: 2, animated: true, at: 0)
        #expect(e.state.phase == .animating)
        e.advance(to: 0.1)
        // 520 + (A + B τ) e^(−ω τ), A = −520, B = ω A, ω = 14.
        #expect(isClose(e.state.offset, 212.24698900087515))
        e.advance(to: 5)
        #expect(e.state.offset == 520)
        #expect(e.state.phase == .idle)
    }

    @Test func springLandingTimeIsIndependentOfSteps() {
        var a = makeEngine(), b = makeEngine()
        a.scrollTo(index: 7, animated: true, at: 0)
        b.scrollTo(index: 7, animated: true, at: 0)
        var t = 0.0
        while t + 1.0 / 90 < 0.8 { t += 1.0 / 90; a.advance(to: t) }
        a.advance(to: 0.8)
        b.advance(to: 0.8)
        #expect(a.state.offset == b.state.offset)
        #expect(a.state.phase == b.state.phase)
    }

    @Test func rubberBandFormula() {
        // (1 − 1 / (x · 0.55 / d + 1)) · d with x = 100, d = 375.
        #expect(isClose(RubberBand.displacement(100, dimension: 375), 47.96511627906977))
        #expect(RubberBand.displacement(0, dimension: 375) == 0)
        #expect(RubberBand.displacement(1e12, dimension: 375) < 375)
        let raw = RubberBand.raw(offset: RubberBand.offset(raw: 2500, maximum: 2340, dimension: 375),
                                 maximum: 2340, dimension: 375)
        #expect(isClose(raw, 2500))
    }

    @Test func velocityEstimateUsesTheLastTenthOfASecond() {
        var tracker = DragTracker(location: 300, time: 0, threshold: 10)
        for k in 1...20 { tracker.move(to: 300 - 5 * Double(k), at: 0.01 * Double(k)) }
        // −5 pt every 10 ms.
        #expect(isClose(tracker.estimatedVelocity(), -500, 1e-6))
        // After a 0.3 s pause the window holds one sample: the last two samples give the speed.
        tracker.move(to: 200, at: 0.5)
        #expect(isClose(tracker.estimatedVelocity(), 0))
    }
}

/// Absurd runtime inputs (the daemon's socket commands are not validated like scenarios) are
/// clamped into `CarouselLimits` instead of producing NaN or a motion that never ends.
@Suite struct InputClampingTests {
    /// Before: a fling at 1e308 made the spring's coefficients infinite, the offset NaN (printed
    /// as 0) and the phase `decelerating` for the 10 s safety bound.
    @Test func flingFarBeyondTheEndLandsOnTheLastItem() {
        var e = makeEngine(narrowGeometry(count: 5))
        e.fling(offset: 1e308, velocity: 1e308, at: 0)
        // Taken one viewport (375) beyond the end 1040: the spring starts at 1415 moving outward
        // at 10^6 pt/s, turns round and lands.
        #expect(e.state.offset == 1040 + 375)
        e.advance(to: 0.5)
        #expect(e.state.offset.isFinite && e.state.offset > 1040)
        e.advance(to: 3)
        #expect(e.state.offset == 1040)
        #expect(e.state.phase == .idle)
    }

    /// Cyclic: the offset is clamped to ±1e15 points before normalisation, so the phase stays
    /// exact instead of turning into garbage instances (`instance` 900719925474099 before).
    @Test func cyclicFlingAtAHugeOffsetKeepsItsPhase() {
        var e = makeEngine(narrowGeometry(count: 5, cyclic: true), paging: .nearest)
        e.fling(offset: 1e308, velocity: 0, at: 0)
        // 1e15 mod 1300 = 1000 (1e15 = 1300 · 769230769230 + 1000): item 4 at 1040 is nearest.
        #expect(e.state.offset == 1000)
        e.advance(to: 3)
        #expect(e.state.offset == 1040)
        #expect(e.state.index == 4)
    }

    /// Found by fuzzing `simulate`: a cyclic fling at an offset several cycles away measured
    /// `maxItemsPerFling` from a resting item many cycles off and travelled thousands of points
    /// for 5.7 s. 4000 in a cycle of 5 · 260 = 1300 is phase 100, nearest item 0.
    @Test func cyclicFlingUsesTheNearestCopyOfItsOffset() {
        var e = makeEngine(narrowGeometry(count: 5, cyclic: true),
                           paging: .momentum(decelerationRate: 0.998, maxItemsPerFling: 1))
        e.fling(offset: 4000, velocity: 0, at: 0)
        #expect(e.state.offset == 100)
        e.advance(to: 2)
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .idle)
        // −3000 pt/s from phase 100 projects 100 − 1498.5 → slot −5.4; the cap of one item from
        // item 0 gives slot −1, i.e. item 4 at 1040 after normalisation.
        var f = makeEngine(narrowGeometry(count: 5, cyclic: true),
                           paging: .momentum(decelerationRate: 0.998, maxItemsPerFling: 1))
        f.fling(offset: -2500, velocity: -3000, at: 0)
        #expect(f.state.offset == 100)
        f.advance(to: 3)
        #expect(f.state.offset == 1040)
        #expect(f.state.index == 4)
    }

    @Test func hugeVelocitiesAreClampedToTheSpeedLimit() {
        var e = makeEngine(narrowGeometry(count: 5_000_000), paging: .momentum(decelerationRate: 0.998, maxItemsPerFling: nil))
        e.fling(offset: 0, velocity: .greatestFiniteMagnitude, at: 0)
        #expect(isClose(e.state.velocity, CarouselLimits.maximumSpeed))
        var o = makeEngine()
        o.setOffset(-1e300, at: 0)
        #expect(o.state.offset == 0)
        o.outerScroll(y: -1e300, at: 0)
        o.outerScroll(y: 1e300, at: 0.1)
        #expect(o.state.offset == 2340)   // clamped to the end, (10 − 1) · 260
    }
}
