import Testing
@testable import CarouselEngine

/// Free scroll (`PagingPolicy.free`): no snap, or a sticky snap once the glide has slowed.
/// Narrow geometry (pitch 260), rate 0.998: a 1000 pt/s release travels 1000 · 0.4994998 =
/// 499.4998 pt, and the glide's decay rate is k = (1000 − 10) / 499.4998 = 1.981983 1/s.
@Suite struct FreeScrollTests {
    let rest = 1000 * travelPerVelocity0998
    var k: Double { 990 / rest }

    @Test func stopsWhereUIScrollViewWouldWithoutSnapping() {
        var e = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 0))
        e.fling(offset: 0, velocity: 1000, at: 0)
        #expect(e.state.phase == .decelerating)
        // Closed form: x(0.5) = (1000 / k)(1 − e^(−0.5 k)) = 504.5451 · 0.628868 = 317.29.
        e.advance(to: 0.5)
        #expect(isClose(e.state.offset, 1000 / k * (1 - exponential(-0.5 * k))))
        // Lands at ln(1000 / 10) / k = 2.32351 s on 499.4998, between items 1 and 2.
        e.advance(to: 2.3236)
        #expect(e.state.phase == .idle)
        #expect(isClose(e.state.offset, 499.4998331664548))
        #expect(e.state.index == 2)  // 1.9212 items: item 2 is nearest the center
        #expect(e.takeEvents() == [.cameToRest(index: 2, previous: 0)])
    }

    @Test func aSlowDragReleaseRestsInPlace() {
        var e = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 0))
        e.dragBegan(location: 300, at: 0)
        e.dragMoved(location: 200, at: 0.5)
        e.dragEnded(location: 200, velocity: 0, at: 1)
        // Crossed at 290: 90 pt of travel, no velocity, no snap.
        #expect(e.state.phase == .idle)
        #expect(e.state.offset == 90)
    }

    @Test func nonCyclicEndsStopTheGlide() {
        var e = makeEngine(narrowGeometry(count: 3), paging: .free(decelerationRate: 0.998, stickyVelocity: 0))
        e.fling(offset: 0, velocity: 5000, at: 0)  // would travel 2497 pt; the end is 520
        e.advance(to: 5)
        #expect(e.state.offset == 520)
    }

    @Test func stickySnapsOnceSlowerThanTheThreshold() {
        var e = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 200))
        e.fling(offset: 0, velocity: 1000, at: 0)
        // The glide reaches 200 pt/s at τ = ln(1000 / 200) / k = 0.81203 s, at
        // (1000 / k)(1 − 1/5) = 403.636 pt; then a spring to item 2 (nearest the rest point 499.5).
        let tau = naturalLog(5) / k
        e.advance(to: tau - 1e-6)
        #expect(isClose(e.state.velocity, 200, 1e-4))
        e.advance(to: tau)
        #expect(isClose(e.state.offset, 1000 / k * 0.8))
        #expect(isClose(e.state.velocity, 200))
        e.advance(to: tau + 2)
        #expect(e.state.offset == 520)
        #expect(e.state.phase == .idle)
    }

    @Test func stickyIsIndependentOfTheFrameRate() {
        var a = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 200))
        var b = a
        a.fling(offset: 0, velocity: 1000, at: 0)
        b.fling(offset: 0, velocity: 1000, at: 0)
        var t = 0.0
        while t < 1.3 { t += 1.0 / 7; a.advance(to: t) }
        b.advance(to: t)
        #expect(a.state == b.state)
    }

    @Test func stickyBelowTheThresholdSnapsAtOnce() {
        var e = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 500))
        e.fling(offset: 100, velocity: 400, at: 0)  // rest point 299.8 → item 1
        e.advance(to: 3)
        #expect(e.state.offset == 260)
    }

    @Test func aTouchStopsAGlideWhereItIs() {
        var e = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 0))
        e.fling(offset: 0, velocity: 1000, at: 0)
        e.advance(to: 0.5)
        let here = e.state.offset  // 317.29: item 1 spans 5.2…255.2, item 2 265.2…515.2
        e.dragBegan(location: 260, at: 0.5)
        e.dragEnded(location: 260, at: 0.55)  // a tap in the gap between them
        #expect(e.state.phase == .idle)
        #expect(e.state.offset == here)
        // Sticky free scroll snaps instead, like the other policies.
        var s = makeEngine(paging: .free(decelerationRate: 0.998, stickyVelocity: 100))
        s.fling(offset: 0, velocity: 1000, at: 0)
        s.advance(to: 0.5)
        s.dragBegan(location: 260, at: 0.5)
        s.dragEnded(location: 260, at: 0.55)
        #expect(s.state.phase == .snapping)
    }

    @Test func validation() {
        var c = CarouselConfiguration(geometry: narrowGeometry(), paging: .free(decelerationRate: 0.998, stickyVelocity: -1))
        do { try c.validate(); Issue.record("accepted") } catch { #expect(error.field == "paging.stickyVelocity") }
        c.paging = .free(decelerationRate: 1.5, stickyVelocity: 0)
        do { try c.validate(); Issue.record("accepted") } catch { #expect(error.field == "paging.decelerationRate") }
    }
}
