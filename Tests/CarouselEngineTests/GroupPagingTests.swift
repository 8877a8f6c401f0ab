import Testing
@testable import CarouselEngine

/// Group paging (`groupSize`): every rule moves by whole groups and rests on a group's first
/// item. Narrow geometry, pitch 260; groups of 3 are 780 pt long.
@Suite struct GroupPagingTests {
    func grouped(_ paging: PagingPolicy = .default, count: Int = 10, cyclic: Bool = false,
                 group: Int = 3) -> CarouselEngine {
        CarouselEngine(configuration: CarouselConfiguration(
            geometry: narrowGeometry(count: count, cyclic: cyclic), style: passthrough, paging: paging,
            groupSize: group))
    }

    @Test func snapsAreTheGroupsFirstItems() {
        let grid = SnapGrid(geometry: narrowGeometry(count: 10), groupSize: 3)
        #expect((0...3).map { grid.offset(ofSnap: $0) } == [0, 780, 1560, 2340])  // items 0, 3, 6, 9
        #expect(grid.lastSnap == 3)
        #expect(grid.offset(ofSnap: 7) == 2340)
        #expect(grid.nearestSnap(389) == 0)
        #expect(grid.nearestSnap(390) == 1)  // half a group: ties go up
        #expect(grid.snap(containingSlot: 5) == 1)
        #expect(grid.coordinate(1170) == 1.5)
    }

    @Test func everyPolicyMovesByGroups() {
        // nearest: 500 / 780 = 0.64 → group 1 (item 3).
        var a = grouped(.nearest)
        a.fling(offset: 500, velocity: 0, at: 0)
        a.advance(to: 3)
        #expect(a.state.offset == 780)
        #expect(a.state.index == 3)
        // momentum: 1000 pt/s from 0 projects to 499.5 → 0.64 groups → group 1.
        var b = grouped()
        b.fling(offset: 0, velocity: 1000, at: 0)
        b.advance(to: 3)
        #expect(b.state.index == 3)
        // single: 600 pt/s > 500 from 100 → ⌊100 / 780⌋ + 1 = group 1.
        var c = grouped(.single(velocityThreshold: 500))
        c.fling(offset: 100, velocity: 600, at: 0)
        c.advance(to: 3)
        #expect(c.state.index == 3)
        // distance: 100 pt > 0.125 · 780 = 97.5 → the next group; 90 pt → back.
        var d = grouped(.distance(fraction: 0.125))
        d.fling(offset: 100, velocity: 0, at: 0)
        d.advance(to: 3)
        #expect(d.state.index == 3)
        var f = grouped(.distance(fraction: 0.125))
        f.fling(offset: 90, velocity: 0, at: 0)
        f.advance(to: 3)
        #expect(f.state.index == 0)
        // momentum with maxItemsPerFling 1 counts groups: a hard fling goes one group.
        var g = grouped(.momentum(decelerationRate: 0.998, maxItemsPerFling: 1))
        g.fling(offset: 0, velocity: 5000, at: 0)
        g.advance(to: 3)
        #expect(g.state.index == 3)
    }

    @Test func scrollToAndTapGoToTheGroupsFirstItem() {
        var e = grouped()
        e.scrollTo(index: 5, animated: false, at: 0)
        #expect(e.state.offset == 780)
        e.scrollTo(index: 9, animated: false, at: 0)
        #expect(e.state.offset == 2340)
        var t = grouped()
        t.tap(location: 350, at: 0)  // item 1 (322.5…572.5): its group starts at item 0, already there
        t.advance(to: 2)
        #expect(t.state.offset == 0)
    }

    @Test func cyclicGroupsThatDoNotDivideTheCountHaveAShortLastGroup() {
        // 10 items in groups of 3: snaps 0, 3, 6, 9 per cycle, then 10 (item 0 again).
        let grid = SnapGrid(geometry: narrowGeometry(count: 10, cyclic: true), groupSize: 3)
        #expect(!grid.uniform)
        #expect((0...5).map { grid.slot(ofSnap: $0) } == [0, 3, 6, 9, 10, 13])
        #expect(grid.slot(ofSnap: -1) == -1)  // item 9 of the previous cycle
        #expect(grid.coordinate(9.5 * 260) == 3.5)
        #expect(grid.coordinate(7 * 260) == 2 + 1.0 / 3)
        #expect(grid.nearestSnap(9.5 * 260) == 4)
        // single, fast, from slot 9.2: ⌊3.2⌋ + 1 = snap 4 = slot 10, i.e. item 0 of the next cycle.
        var e = grouped(.single(velocityThreshold: 500), cyclic: true)
        e.fling(offset: 9.2 * 260, velocity: 600, at: 0)
        e.advance(to: 3)
        #expect(e.state.index == 0)
        #expect(e.state.offset == 0)
    }

    @Test func cyclicGroupsThatDivideTheCountAreEven() {
        let grid = SnapGrid(geometry: narrowGeometry(count: 12, cyclic: true), groupSize: 3)
        #expect(grid.uniform)
        #expect(grid.slot(ofSnap: 5) == 15)
        #expect(grid.snap(containingSlot: -1) == -1)
    }

    @Test func autoplayStepsByGroups() {
        var c = CarouselConfiguration(geometry: narrowGeometry(count: 10), style: passthrough, groupSize: 3)
        c.autoplay.intervalSeconds = 1
        var e = CarouselEngine(configuration: c)
        e.advance(to: 2)  // the first step (at 1 s, a spring over 780 pt) has landed
        #expect(e.state.offset == 780)
        #expect(e.state.index == 3)
    }

    @Test func oneIsTodaysPagingAndBadSizesAreRejected() {
        let grid = SnapGrid(geometry: narrowGeometry(count: 10), groupSize: 1)
        #expect(grid.coordinate(300) == 300.0 / 260)
        var c = CarouselConfiguration(geometry: narrowGeometry(), groupSize: 0)
        do { try c.validate(); Issue.record("accepted") } catch { #expect(error.field == "groupSize") }
        c.groupSize = 10_000  // larger than the count: one group
        #expect(throws: Never.self) { try c.validate() }
        #expect(SnapGrid(geometry: narrowGeometry(count: 10), groupSize: 10_000).lastSnap == 0)
    }
}
