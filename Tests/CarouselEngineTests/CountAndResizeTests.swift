import Testing
@testable import CarouselEngine

@Suite struct CountAndResizeTests {
    @Test func countChangeMidAnimationKeepsAnExistingTarget() {
        var e = makeEngine()
        e.scrollTo(index: 3, animated: true, at: 0)
        e.setCount(5, at: 0.1)
        #expect(e.state.phase == .animating)
        e.advance(to: 5)
        #expect(e.state.offset == 780)
        #expect(e.state.count == 5)
    }

    @Test func countChangeMidAnimationReclampsAVanishedTarget() {
        var e = makeEngine()
        e.scrollTo(index: 7, animated: true, at: 0)
        e.advance(to: 0.2)
        #expect(e.state.offset > 1040)
        e.setCount(5, at: 0.2)
        #expect(e.state.offset <= 1040)         // never out of range
        var t = 0.2
        while t < 5 {
            t += 0.05
            e.advance(to: t)
            #expect(e.state.offset <= 1040 + 1e-9)
            #expect(e.state.offset >= 0)
        }
        #expect(e.state.offset == 1040)
        #expect(e.takeEvents() == [.cameToRest(index: 4, previous: 0)])
    }

    @Test func countChangeAtRestKeepsTheCenteredItem() {
        var e = makeEngine(initialIndex: 7)
        e.setCount(12, at: 0)
        #expect(e.state.index == 7)
        #expect(e.state.offset == 1820)
        e.setCount(8, at: 1)
        #expect(e.state.index == 7)
        e.setCount(5, at: 2)
        #expect(e.state.index == 4)
        #expect(e.state.offset == 1040)
        #expect(e.takeEvents() == [.cameToRest(index: 4, previous: 7)])
        e.setCount(0, at: 3)
        #expect(e.state.index == nil)
        #expect(e.state.offset == 0)
        #expect(e.visibleItems().isEmpty)
        e.setCount(3, at: 4)
        #expect(e.state.index == 0)
        #expect(e.takeEvents() == [.cameToRest(index: nil, previous: 4), .cameToRest(index: 0, previous: nil)])
    }

    @Test func cyclicCountChangeKeepsTheTargetItem() {
        var e = makeEngine(narrowGeometry(cyclic: true), initialIndex: 9)
        e.scrollTo(index: 1, animated: true, at: 0)   // forward through the seam
        e.advance(to: 0.1)
        e.setCount(6, at: 0.1)
        e.advance(to: 5)
        #expect(e.state.index == 1)
        #expect(e.state.offset == 260)
    }

    @Test func resizeKeepsTheFractionalPosition() {
        var e = makeEngine()
        e.setOffset(390, at: 0)
        e.resize(viewport: CarouselSize(width: 812, height: 375), item: CarouselSize(width: 500, height: 300),
                 spacing: 20, at: 0.1)
        #expect(e.state.position == 1.5)
        #expect(e.state.offset == 780)
        #expect(e.state.phase == .idle)         // not an input: no snap
        e.advance(to: 3)
        #expect(e.state.offset == 780)
        let two = e.visibleItems().first { $0.index == 2 }
        let x = two?.center.x ?? -1
        #expect(x == 666, "\(x) \(String(describing: two))")
    }

    @Test func resizeDuringAnAnimationKeepsItsTargetItem() {
        var e = makeEngine()
        e.scrollTo(index: 2, animated: true, at: 0)
        e.advance(to: 0.1)
        let before = e.state.position
        e.resize(viewport: CarouselSize(width: 812, height: 375), item: CarouselSize(width: 500, height: 300),
                 spacing: 20, at: 0.1)
        #expect(isClose(e.state.position, before))
        e.advance(to: 5)
        #expect(e.state.offset == 1040)
    }
}
