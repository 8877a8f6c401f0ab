import Testing
@testable import CarouselEngine

/// Hand-derived targets for each policy (docs/ENGINE.md "Paging"). Narrow items: pitch
/// 260 (item 250 + spacing 10 in a 375 viewport). Wide items: pitch 520 (item 500 + 20).
@Suite struct PagingTests {
    let narrow = 260.0
    let wide = 520.0

    @Test func nearestIgnoresVelocityAndBreaksTiesUpward() {
        let p = PagingPolicy.nearest
        #expect(p.targetSlot(offset: 100, velocity: 0, pitch: narrow, restingOffset: 0) == 0)
        #expect(p.targetSlot(offset: 100, velocity: 5000, pitch: narrow, restingOffset: 0) == 0)
        #expect(p.targetSlot(offset: 130, velocity: 0, pitch: narrow, restingOffset: 0) == 1)  // exactly half-way
        #expect(p.targetSlot(offset: 129.99, velocity: -5000, pitch: narrow, restingOffset: 0) == 0)
        #expect(p.targetSlot(offset: 260, velocity: 0, pitch: wide, restingOffset: 0) == 1)     // half of 520
        #expect(p.targetSlot(offset: 259, velocity: 900, pitch: wide, restingOffset: 0) == 0)
    }

    @Test func uiScrollViewRestPoint() {
        // x0 − v0 / (1000 ln 0.998): 1000 pt/s travels 499.4998 pt.
        #expect(isClose(Deceleration.restOffset(from: 0, velocity: 1000, rate: 0.998), 499.4998331664548))
        #expect(isClose(Deceleration.restOffset(from: 1000, velocity: -1000, rate: 0.998), 500.5001668335452))
        // The fast rate 0.99: −1 / (1000 ln 0.99) = 0.0995 s, so 1000 pt/s travels 99.5 pt.
        #expect(isClose(Deceleration.restOffset(from: 0, velocity: 1000, rate: 0.99), 99.49916247878902))
        // The closed form reaches the rest point.
        #expect(isClose(Deceleration.offset(after: 60, from: 0, velocity: 1000, rate: 0.998), 499.4998331664548))
        #expect(isClose(Deceleration.velocity(after: 0.001, velocity: 1000, rate: 0.998), 998))
    }

    @Test func momentumProjectsThenTakesTheNearestItem() {
        let p = PagingPolicy.momentum(decelerationRate: 0.998, maxItemsPerFling: nil)
        // Zero velocity: nearest of the release offset.
        #expect(p.targetSlot(offset: 100, velocity: 0, pitch: narrow, restingOffset: 0) == 0)
        #expect(p.targetSlot(offset: 390, velocity: 0, pitch: narrow, restingOffset: 0) == 2)  // 1.5 → 2
        // Slow: 100 pt/s travels 49.95 → 0.19 items.
        #expect(p.targetSlot(offset: 0, velocity: 100, pitch: narrow, restingOffset: 0) == 0)
        // Fast: 1000 pt/s travels 499.5 → 1.92 items (narrow) or 0.96 (wide).
        #expect(p.targetSlot(offset: 0, velocity: 1000, pitch: narrow, restingOffset: 0) == 2)
        #expect(p.targetSlot(offset: 0, velocity: 1000, pitch: wide, restingOffset: 0) == 1)
        // Backwards from item 4: 1040 − 499.5 = 540.5 → 2.08 → 2.
        #expect(p.targetSlot(offset: 1040, velocity: -1000, pitch: narrow, restingOffset: 1040) == 2)
        // Slow on wide items: 200 pt/s from 0 → 99.9 / 520 → 0.
        #expect(p.targetSlot(offset: 0, velocity: 200, pitch: wide, restingOffset: 0) == 0)
    }

    @Test func momentumHalfWayAfterProjection() {
        // Choose v so that the projection lands exactly on 1.5 pitches: v = 390 / travel.
        let p = PagingPolicy.momentum(decelerationRate: 0.998, maxItemsPerFling: nil)
        let v = 390 / travelPerVelocity0998
        let projected = Deceleration.restOffset(from: 0, velocity: v, rate: 0.998)
        let expected = projected / narrow >= 1.5 ? 2 : 1  // the tie rule applied to the exact projection
        #expect(isClose(projected, 390))
        #expect(p.targetSlot(offset: 0, velocity: v, pitch: narrow, restingOffset: 0) == expected)
    }

    @Test func maxItemsPerFlingCountsFromTheRestingItem() {
        let p = PagingPolicy.momentum(decelerationRate: 0.998, maxItemsPerFling: 1)
        // 3000 pt/s from item 0 would travel 1498.5 → 5.76 → 6; the cap gives 1.
        #expect(p.targetSlot(offset: 0, velocity: 3000, pitch: narrow, restingOffset: 0) == 1)
        // The drag already moved to 300 (rest item 0): still at most item 1.
        #expect(p.targetSlot(offset: 300, velocity: 3000, pitch: narrow, restingOffset: 0) == 1)
        #expect(p.targetSlot(offset: 1300, velocity: -3000, pitch: narrow, restingOffset: 1300) == 4)
    }

    @Test func singleMovesExactlyOneAboveTheThreshold() {
        let p = PagingPolicy.single(velocityThreshold: 500)
        #expect(p.targetSlot(offset: 100, velocity: 0, pitch: narrow, restingOffset: 0) == 0)
        #expect(p.targetSlot(offset: 130, velocity: 0, pitch: narrow, restingOffset: 0) == 1)     // half-way tie
        #expect(p.targetSlot(offset: 100, velocity: 400, pitch: narrow, restingOffset: 0) == 0)   // slow
        #expect(p.targetSlot(offset: 100, velocity: 500, pitch: narrow, restingOffset: 0) == 0)   // at T: not above
        #expect(p.targetSlot(offset: 100, velocity: 600, pitch: narrow, restingOffset: 0) == 1)   // floor(0.38) + 1
        #expect(p.targetSlot(offset: 100, velocity: -600, pitch: narrow, restingOffset: 0) == 0)  // ceil(0.38) − 1
        // Fast release exactly on an item still moves one.
        #expect(p.targetSlot(offset: 260, velocity: 600, pitch: narrow, restingOffset: 260) == 2)
        #expect(p.targetSlot(offset: 260, velocity: -600, pitch: narrow, restingOffset: 260) == 0)
        // Wide items.
        #expect(p.targetSlot(offset: 100, velocity: 600, pitch: wide, restingOffset: 0) == 1)
        #expect(p.targetSlot(offset: 300, velocity: 0, pitch: wide, restingOffset: 0) == 1)       // 0.58 → 1
        #expect(p.targetSlot(offset: 1000, velocity: 5000, pitch: wide, restingOffset: 1040) == 2) // floor(1.92) + 1
    }

    @Test func distanceComparesWithTheLastRestingOffset() {
        let p = PagingPolicy.distance(fraction: 0.125)
        // Resting on item 1 (260); an eighth of a pitch is 32.5.
        #expect(p.targetSlot(offset: 292.5, velocity: 0, pitch: narrow, restingOffset: 260) == 1)  // not more than
        #expect(p.targetSlot(offset: 293, velocity: 0, pitch: narrow, restingOffset: 260) == 2)
        #expect(p.targetSlot(offset: 227.5, velocity: 0, pitch: narrow, restingOffset: 260) == 1)
        #expect(p.targetSlot(offset: 227, velocity: 0, pitch: narrow, restingOffset: 260) == 0)
        // Velocity plays no part.
        #expect(p.targetSlot(offset: 260, velocity: 5000, pitch: narrow, restingOffset: 260) == 1)
        #expect(p.targetSlot(offset: 270, velocity: -9000, pitch: narrow, restingOffset: 260) == 1)
        // A long move goes to floor(position) + 1.
        #expect(p.targetSlot(offset: 900, velocity: 0, pitch: narrow, restingOffset: 260) == 4)
        // Wide: 65 pt threshold from 520.
        #expect(p.targetSlot(offset: 585, velocity: 0, pitch: wide, restingOffset: 520) == 1)
        #expect(p.targetSlot(offset: 586, velocity: 0, pitch: wide, restingOffset: 520) == 2)
        #expect(p.targetSlot(offset: 454, velocity: 0, pitch: wide, restingOffset: 520) == 0)
    }

    @Test func engineClampsTargetsAtTheEnds() {
        var e = makeEngine()
        e.fling(offset: 0, velocity: -1000, at: 0)     // would be slot −2
        e.advance(to: 5)
        #expect(e.state.offset == 0)
        #expect(e.state.phase == .idle)
        e.fling(offset: 2340, velocity: 3000, at: 5)   // would be slot 15
        e.advance(to: 10)
        #expect(e.state.offset == 2340)
        #expect(e.state.index == 9)
    }

    @Test func engineUsesEachPolicy() {
        var single = makeEngine(paging: .single(velocityThreshold: 500))
        single.fling(offset: 100, velocity: 600, at: 0)
        single.advance(to: 5)
        #expect(single.state.offset == 260)

        var distance = makeEngine(initialIndex: 1, paging: .distance(fraction: 0.125))
        distance.fling(offset: 227, velocity: 0, at: 0)
        distance.advance(to: 5)
        #expect(distance.state.offset == 0)

        var nearest = makeEngine(paging: .nearest)
        nearest.fling(offset: 130, velocity: -4000, at: 0)
        nearest.advance(to: 5)
        #expect(nearest.state.offset == 260)

        var capped = makeEngine(paging: .momentum(decelerationRate: 0.998, maxItemsPerFling: 1))
        capped.fling(offset: 0, velocity: 3000, at: 0)
        capped.advance(to: 5)
        #expect(capped.state.offset == 260)
    }
}
