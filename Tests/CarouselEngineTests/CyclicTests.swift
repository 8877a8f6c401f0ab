import Testing
@testable import CarouselEngine

@Suite struct CyclicTests {
    /// (index, center) pairs: what a client draws, regardless of instance numbering.
    func drawn(_ e: CarouselEngine) -> [String] {
        e.visibleItems().map { "\($0.index)@\($0.center.x)" }
    }

    @Test func layoutRepeatsEveryCycle() {
        var a = makeEngine(narrowGeometry(cyclic: true))
        var b = makeEngine(narrowGeometry(cyclic: true))
        var c = makeEngine(narrowGeometry(cyclic: true))
        a.setOffset(100, at: 0)
        b.setOffset(100 + 3 * 2600, at: 0)
        c.setOffset(100 - 2 * 2600, at: 0)
        #expect(drawn(a) == drawn(b))
        #expect(drawn(a) == drawn(c))
        #expect(b.state.offset == 100)
        #expect(c.state.offset == 100)
    }

    @Test func dragAcrossTheSeamHasNoJump() {
        var e = makeEngine(narrowGeometry(cyclic: true))
        e.dragBegan(location: 100, at: 0)
        e.dragMoved(location: 110, at: 0.01)    // crossing point: content starts here
        var previousCenter = e.visibleItems().first { $0.index == 0 }?.center.x
        for k in 1...30 {
            e.dragMoved(location: 110 + 10 * Double(k), at: 0.01 + 0.01 * Double(k))
            let center = e.visibleItems().first { $0.index == 0 && $0.center.x > -200 && $0.center.x < 600 }?.center.x
            if let previousCenter, let center { #expect(isClose(center - previousCenter, 10)) }
            previousCenter = center
        }
        // 300 pt toward lower indices: offset −300 normalised to 2600 − 300.
        #expect(e.state.offset == 2300)
        #expect(isClose(e.state.position, 2300.0 / 260))
        #expect(e.state.index == 9)             // 8.85 → 9
        let nine = e.visibleItems().first { $0.index == 9 }
        #expect(nine?.center.x == 187.5 + 40)
        #expect(nine?.instance == 0)
    }

    @Test func momentumCarriesAcrossTheSeam() {
        var e = makeEngine(narrowGeometry(cyclic: true), initialIndex: 9)
        e.fling(offset: 2340, velocity: 1000, at: 0)    // 2339.5 + 499.5 → slot 10.92 → 11 = item 1
        e.advance(to: 10)
        #expect(e.state.offset == 260)
        #expect(e.state.index == 1)
    }

    @Test func scrollToTakesTheShortestWay() {
        var e = makeEngine(narrowGeometry(cyclic: true), initialIndex: 9)
        e.scrollTo(index: 1, animated: true, at: 0)
        e.advance(to: 0.05)
        #expect(e.state.velocity > 0)           // forward through the seam, not back 8 items
        var sawSeam = false
        var t = 0.05
        while t < 3 {
            t += 0.02
            e.advance(to: t)
            let p = e.state.position
            #expect(p >= 9 || p <= 1 + 1e-9)
            if p < 1 { sawSeam = true }
        }
        #expect(sawSeam)
        #expect(e.state.offset == 260)

        var back = makeEngine(narrowGeometry(cyclic: true), initialIndex: 1)
        back.scrollTo(index: 8, animated: true, at: 0)
        back.advance(to: 0.05)
        #expect(back.state.velocity < 0)        // 1 → 0 → 9 → 8 (3 items back, not 7 forward)
        back.advance(to: 5)
        #expect(back.state.offset == 2080)
    }

    @Test func shortestWayTieGoesForward() {
        var e = makeEngine(narrowGeometry(count: 4, cyclic: true), initialIndex: 1)
        e.scrollTo(index: 3, animated: true, at: 0)
        e.advance(to: 0.05)
        #expect(e.state.velocity > 0)
        e.advance(to: 5)
        #expect(e.state.offset == 780)
    }

    @Test func oneItemFillsTheViewWithCopies() {
        var e = makeEngine(narrowGeometry(count: 1, cyclic: true))
        let items = onScreen(e.visibleItems(), e.geometry)
        #expect(items.map(\.index) == [0, 0, 0])
        #expect(items.map(\.instance) == [-1, 0, 1])
        #expect(items.map(\.center.x) == [-72.5, 187.5, 447.5])
        e.dragBegan(location: 300, at: 0)
        e.dragMoved(location: -10, at: 0.1)     // crossed at 290: +300 → 300 − 260 = 40
        #expect(e.state.offset == 40)
        #expect(e.state.index == 0)
        e.dragEnded(location: -10, velocity: -2000, at: 0.2)
        e.advance(to: 10)
        #expect(e.state.offset == 0)
        #expect(e.state.index == 0)
        for item in e.visibleItems() {
            #expect(item.center.x.isFinite)
        }
        e.scrollTo(index: 0, animated: true, at: 10)
        #expect(e.state.phase == .idle)
    }

    @Test func twoItemsAlternate() {
        var e = makeEngine(narrowGeometry(count: 2, cyclic: true))
        let items = onScreen(e.visibleItems(), e.geometry)
        #expect(items.map(\.index) == [1, 0, 1])
        #expect(items.map(\.instance) == [-1, 0, 0])
        #expect(items.map(\.center.x) == [-72.5, 187.5, 447.5])
        e.scrollTo(index: 1, animated: true, at: 0)
        e.advance(to: 0.05)
        #expect(e.state.velocity > 0)           // a tie (one item either way) goes forward
        e.advance(to: 5)
        #expect(e.state.offset == 260)
        e.fling(offset: 260, velocity: 1000, at: 5)   // 759.5 → slot 2.92 → 3 → item 1 again
        e.advance(to: 15)
        #expect(e.state.offset == 260)
        #expect(e.state.index == 1)
        e.dragBegan(location: 100, at: 15)
        e.dragMoved(location: 240, at: 15.1)    // −130 → position 0.5 exactly → item 1 (tie upward)
        #expect(e.state.offset == 130)
        #expect(e.state.index == 1)
    }
}
