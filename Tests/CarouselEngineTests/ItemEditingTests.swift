import Testing
@testable import CarouselEngine

/// `insertItems` / `removeItems`: the current card (or its neighbour) keeps the reference
/// point. Narrow geometry, pitch 260, resting on item 3 (offset 780) unless said.
@Suite struct ItemEditingTests {
    func onItem3(count: Int = 10, cyclic: Bool = false, initialIndex: Int = 3) -> CarouselEngine {
        var e = makeEngine(narrowGeometry(count: count, cyclic: cyclic), initialIndex: initialIndex)
        _ = e.takeEvents()
        return e
    }

    @Test func insertingBeforeTheCurrentCardKeepsItInPlace() {
        var e = onItem3()
        let before = e.visibleItems().first { $0.index == 3 }?.center
        e.insertItems(at: 0, count: 2, animated: false, at: 1)
        #expect(e.state.count == 12)
        #expect(e.state.offset == 1300)  // the card is item 5 now, still centered
        #expect(e.visibleItems().first { $0.index == 5 }?.center == before)
        #expect(e.takeEvents() == [.cameToRest(index: 5, previous: 3)])
        // At the current index: the new items go before the card.
        var at = onItem3()
        at.insertItems(at: 3, count: 1, animated: true, at: 1)
        #expect(at.state.offset == 1040)
        #expect(at.state.phase == .idle)
        // After it: nothing moves.
        var after = onItem3()
        after.insertItems(at: 4, count: 3, animated: false, at: 1)
        #expect(after.state.offset == 780)
        #expect(after.takeEvents().isEmpty)
    }

    @Test func removingBeforeTheCurrentCardKeepsItInPlace() {
        var e = onItem3()
        e.removeItems(at: 1, count: 2, animated: false, at: 1)
        #expect(e.state.count == 8)
        #expect(e.state.offset == 260)
        #expect(e.takeEvents() == [.cameToRest(index: 1, previous: 3)])
    }

    @Test func removingTheCurrentCardHandsOverToTheNextOne() {
        // Items 3 and 4 go; old item 5 (shown at 187.5 + 2 · 260 = 707.5) becomes item 3.
        var jump = onItem3()
        jump.removeItems(at: 3, count: 2, animated: false, at: 1)
        #expect(jump.state.offset == 780)
        #expect(jump.state.phase == .idle)
        var slide = onItem3()
        slide.removeItems(at: 3, count: 2, animated: true, at: 1)
        // The neighbour is still where it was: new item 3 at offset 260 is 2 pitches right of
        // the center, 187.5 + 520 = 707.5 …
        #expect(slide.state.offset == 260)
        #expect(slide.state.phase == .animating)  // … and slides in
        slide.advance(to: 3)
        #expect(slide.state.offset == 780)
        #expect(slide.state.index == 3)
    }

    @Test func removingTheLastCardHandsOverToThePreviousOne() {
        var e = onItem3(initialIndex: 9)
        e.removeItems(at: 9, count: 5, animated: true, at: 1)  // only one item there to remove
        #expect(e.state.count == 9)
        #expect(e.state.offset == 2340)  // item 8 shown where it was, one pitch left of the center
        e.advance(to: 3)
        #expect(e.state.offset == 2080)
        #expect(e.takeEvents() == [.cameToRest(index: 8, previous: 9)])
    }

    @Test func aMotionKeepsItsTargetCard() {
        var e = onItem3(initialIndex: 0)
        e.scrollTo(index: 5, animated: true, at: 0)
        e.advance(to: 0.1)
        let offset = e.state.offset
        e.insertItems(at: 0, count: 1, animated: false, at: 0.1)
        #expect(e.state.offset == offset + 260)
        e.advance(to: 3)
        #expect(e.state.index == 6)
    }

    @Test func cyclicRemovalOfTheLastItemHandsOverAcrossTheSeam() {
        // 5 items, on item 4; it goes: item 0 (after the seam) takes the center.
        var e = onItem3(count: 5, cyclic: true, initialIndex: 4)
        e.removeItems(at: 4, count: 1, animated: false, at: 1)
        #expect(e.state.count == 4)
        #expect(e.state.index == 0)
        #expect(e.state.offset == 0)
        // Inserting 2 before item 4 of 5 on a cyclic carousel: the card becomes item 6.
        var c = onItem3(count: 5, cyclic: true, initialIndex: 4)
        c.insertItems(at: 1, count: 2, animated: false, at: 1)
        #expect(c.state.index == 6)
        #expect(c.state.offset == 6 * 260)
    }

    @Test func emptyingAndRefilling() {
        var e = onItem3()
        e.removeItems(at: 0, count: 100, animated: true, at: 1)
        #expect(e.state.count == 0)
        #expect(e.state.index == nil)
        e.insertItems(at: 5, count: 2, animated: false, at: 2)
        #expect(e.state.count == 2)
        #expect(e.state.index == 0)
        e.removeItems(at: 7, count: 1, animated: false, at: 3)  // out of range: nothing
        e.insertItems(at: 0, count: -1, animated: false, at: 3)
        #expect(e.state.count == 2)
    }
}
