import Testing
@testable import CarouselEngine
#if canImport(Glibc)
import Glibc
#endif

@Suite struct PhysicsTests {
    /// A fling with momentum 0.998 from 0 at 1000 pt/s, pitch 260: rest point 499.5 → item 2.
    @Test func flingLandsExactlyOnTheMomentumTarget() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: 1000, at: 0)
        #expect(e.state.phase == .decelerating)
        #expect(isClose(e.state.velocity, 1000))   // the release velocity is kept
        e.advance(to: 0.5)
        // x(τ) = 520 − 520 e^(−k τ) with k = 1000 / 520.
        #expect(isClose(e.state.offset, 520 - 520 * exp(-(1000.0 / 520) * 0.5)))
        e.advance(to: 20)
        #expect(e.state.offset == 520)
        #expect(e.state.velocity == 0)
        #expect(e.state.phase == .idle)
        #expect(e.takeEvents() == [.cameToRest(index: 2, previous: 0)])
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
