import Testing
@testable import CarouselEngine

@Test func transformConcatenationAppliesLeftFirst() {
    // Scale by 2 then translate by 10: the point (1, 0) goes to (12, 0).
    let t = Transform3D.scale(2, 2).concatenating(.translation(10, 0, 0))
    let p = t.project(x: 1, y: 0)
    #expect(p?.x == 12)
    #expect(p?.y == 0)
}
