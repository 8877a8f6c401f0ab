import Testing
@testable import CarouselEngine

/// Alignment (`align`) and contained ends (`contain`). Narrow geometry: viewport 375, item 250,
/// spacing 10, pitch 260; 10 items are `L = 9 · 260 + 250 = 2590` points of content.
@Suite struct AlignmentTests {
    func aligned(_ align: ItemAlignment, contain: Bool = false, count: Int = 10, group: Int = 1,
                 paging: PagingPolicy = .default, direction: LayoutDirection = .leftToRight) -> CarouselEngine {
        var g = narrowGeometry(count: count, direction: direction)
        g.align = align
        g.contain = contain
        return CarouselEngine(configuration: CarouselConfiguration(geometry: g, style: passthrough, paging: paging,
                                                                   groupSize: group))
    }

    @Test func theReferenceItemSitsAtTheViewportsStartCenterOrEnd() {
        // Offset 0: item 0's leading edge at 0 (center 125), its center at 187.5, its trailing edge at 375.
        let centers = [ItemAlignment.start, .center, .end].map { aligned($0).visibleItems().first?.center.x }
        #expect(centers == [125, 187.5, 250])
        // Offset i · p puts item i there: item 3 at the start.
        var e = aligned(.start)
        e.setOffset(780, at: 0)
        let item3 = e.visibleItems().first { $0.index == 3 }
        #expect(item3?.center.x == 125)
        #expect(e.state.index == 3)
        // Right to left mirrors it: item 0's right edge on the viewport's right edge.
        #expect(aligned(.start, direction: .rightToLeft).visibleItems().first?.center.x == 250)
    }

    @Test func anAlignedPictureAddsItsShiftOnOneSideOnly() {
        // Viewport 800, items 250 + 10 (p = 260), 20 cyclic items, passthrough linear style:
        // reach W/2 + w/2 = 525. Start: shift (250 − 800) / 2 = −275, item i drawn at
        // 125 + 260 (i − 5) at position 5, so items 5…8 meet the viewport (item 8 from 780).
        // Enumerated: ⌈(1300 − 525) / 260⌉ = 3 … ⌊(1300 + 525 + 275) / 260⌋ = 8 (the centered
        // reach on the side the picture moved towards, where the window is narrower); with the
        // shift on both sides it was 2 … 8. End mirrors it: 2 … 7 (items 2…5 meet the viewport).
        func engine(_ align: ItemAlignment) -> CarouselEngine {
            var g = CarouselGeometry(viewport: CarouselSize(width: 800, height: 200), item: CarouselSize(width: 250, height: 160),
                                     spacing: 10, count: 20, cyclic: true)
            g.align = align
            var e = CarouselEngine(configuration: CarouselConfiguration(geometry: g, style: passthrough))
            e.setOffset(1300, at: 0)
            return e
        }
        let start = engine(.start).visibleItems()
        #expect(start.map(\.slot) == Array(3...8))
        #expect(start.filter { $0.center.x + 125 > 0 && $0.center.x - 125 < 800 }.map(\.slot) == Array(5...8))
        #expect(engine(.end).visibleItems().map(\.slot) == Array(2...7))
        // The bound: ⌊(525 + 800) / 260⌋ + 1 = 6 slots (7 before).
        #expect(engine(.start).configuration.maximumVisibleItemCount == 6)
        #expect(engine(.end).configuration.maximumVisibleItemCount == 6)
        #expect(engine(.center).configuration.maximumVisibleItemCount == 5)
    }

    @Test func stylesMeasureFromTheReferencePoint() {
        var g = narrowGeometry()
        g.align = .start
        let e = CarouselEngine(configuration: CarouselConfiguration(geometry: g))  // default linear style
        let items = e.visibleItems()
        // Item 0 is the reference: scale 1 although it is 62.5 pt left of the center; item 1 at
        // d = 260: baseScale 1 − 260 / 625 = 0.584, cross scale 0.7 + 0.584 · 0.3 = 0.8752.
        #expect(items.map(\.index) == [0, 1])
        #expect(items[0].scaleY == 1)
        #expect(isClose(items[1].scaleY, 0.7 + (1 - 260.0 / 625) * 0.3))
        #expect(items[1].center.x == 385)
    }

    @Test func containedStartNeverScrollsPastTheLastItem() {
        // Range [0, L − W] = [0, 2215]; snaps 0, 260, …, 2080 and the end 2215.
        let grid = SnapGrid(geometry: { var g = narrowGeometry(); g.align = .start; g.contain = true; return g }(),
                            groupSize: 1)
        #expect(grid.lastSnap == 9)
        #expect(grid.offset(ofSnap: 8) == 2080)
        #expect(grid.offset(ofSnap: 9) == 2215)
        var e = aligned(.start, contain: true)
        e.fling(offset: 2000, velocity: 5000, at: 0)
        e.advance(to: 5)
        #expect(e.state.offset == 2215)
        // The last item's trailing edge on the viewport's end: 125 + (9 · 260 − 2215) + 125 = 375.
        let last = e.visibleItems().first { $0.index == 9 }
        #expect(last.map { $0.center.x + 125 } == 375)
        // The item whose aligned position is nearest: 2215 / 260 = 8.52 → 9.
        #expect(e.state.index == 9)
        e.scrollTo(index: 9, animated: false, at: 5)
        #expect(e.state.offset == 2215)
        // A drag past the end rubber-bands from 2215 and springs back there.
        e.dragBegan(location: 300, at: 6)
        e.dragMoved(location: 100, at: 6.1)
        #expect(e.state.offset > 2215 && e.state.offset < 2215 + 190)
        e.dragEnded(location: 100, velocity: 0, at: 6.2)
        e.advance(to: 8)
        #expect(e.state.offset == 2215)
    }

    @Test func containedCenterAndEnd() {
        // center: [(W − w) / 2, that + 2215] = [62.5, 2277.5]; end: [W − w, …] = [125, 2340].
        var c = aligned(.center, contain: true)
        #expect(c.state.offset == 62.5)  // initial item 0, clamped into the range
        #expect(c.visibleItems().first?.center.x == 125)  // item 0's leading edge at 0
        c.scrollTo(index: 9, animated: false, at: 0)
        #expect(c.state.offset == 2277.5)
        let e = aligned(.end, contain: true)
        #expect(e.state.offset == 125)
        #expect(e.geometry.maximumOffset == 2340)
    }

    @Test func contentShorterThanTheViewportHasOneRestingOffset() {
        // Items 100 wide, spacing 10, 3 of them: L = 320 < 375.
        for (align, expected) in [(ItemAlignment.start, 0.0), (.center, 110), (.end, 220)] {
            var g = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                     item: CarouselSize(width: 100, height: 100), spacing: 10, count: 3)
            g.align = align
            g.contain = true
            #expect(g.minimumOffset == expected)
            #expect(g.maximumOffset == expected)
            var e = CarouselEngine(configuration: CarouselConfiguration(geometry: g, style: passthrough))
            e.fling(offset: expected, velocity: 3000, at: 0)
            e.advance(to: 3)
            #expect(e.state.offset == expected)
        }
    }

    @Test func groupsAndContainTogether() {
        // Groups of 4 start at 0, 1040, 2080; inside (0, 2215): 1040 and 2080; then the end.
        var g = narrowGeometry()
        g.align = .start
        g.contain = true
        let grid = SnapGrid(geometry: g, groupSize: 4)
        #expect((0...grid.lastSnap).map { grid.offset(ofSnap: $0) } == [0, 1040, 2080, 2215])
        #expect(grid.snap(containingSlot: 9) == 2)  // items 8 and 9 are the group at 2080
        #expect(grid.coordinate(2147.5) == 2.5)
    }

    @Test func cyclicIgnoresContain() {
        var g = narrowGeometry(cyclic: true)
        g.contain = true
        #expect(!g.isContained)
        #expect(g.minimumOffset == 0)
    }
}
