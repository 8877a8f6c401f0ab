import Testing
@testable import CarouselEngine

/// The `Transform3D` facts the styles rely on (Core Animation conventions: row vectors,
/// `a.concatenating(b)` applies `a` first).
@Suite struct StylesTransformTests {
    @Test func rotationAboutYMatchesCATransform3DMakeRotation() {
        // CATransform3DMakeRotation(a, 0, 1, 0): m11 = cos, m13 = −sin, m31 = sin, m33 = cos.
        let t = Transform3D.rotationY(StylesFixture.degrees(30))
        #expect(StylesFixture.close(t.m11, 0.866025))
        #expect(StylesFixture.close(t.m13, -0.5))
        #expect(StylesFixture.close(t.m31, 0.5))
        #expect(StylesFixture.close(t.m33, 0.866025))
        // The point (1, 0, 0) as a row vector goes to (cos, 0, −sin): a positive angle sends
        // the right edge away from the viewer (z toward the viewer is positive).
        let q = Transform3D.translation(1, 0, 0).concatenating(t)
        #expect(StylesFixture.close(q.m41, 0.866025) && StylesFixture.close(q.m43, -0.5))
    }

    @Test func concatenationOrderMatters() {
        // Translate then rotate 90° moves the translation; rotate then translate does not.
        let quarter = Transform3D.rotationY(Double.pi / 2)
        let moveThenTurn = Transform3D.translation(0, 0, 10).concatenating(quarter)
        let turnThenMove = quarter.concatenating(.translation(0, 0, 10))
        #expect(StylesFixture.close(moveThenTurn.m41, 10, 1e-12))  // (0,0,10) → (10,0,0)
        #expect(StylesFixture.close(moveThenTurn.m43, 0, 1e-12))
        #expect(StylesFixture.close(turnThenMove.m41, 0, 1e-12))
        #expect(StylesFixture.close(turnThenMove.m43, 10, 1e-12))
    }

    @Test func depthThenPerspectiveShrinksByTheEyeDistance() {
        // z = −250 with m34 = −1/500: w = 1 + 250/500 = 1.5, so (30, 0) projects to (20, 0).
        let t = Transform3D.translation(0, 0, -250).concatenating(.perspective(eyeDistance: 500))
        #expect(StylesFixture.close(t.m44, 1.5, 1e-12))
        let p = t.project(x: 30, y: 0)
        #expect(p.map { StylesFixture.close($0.x, 20, 1e-12) } == true)
    }

    @Test func closedFormItemTransformEqualsTheProduct() {
        for angle in [-1.4, -0.3, 0, 0.7, 2.5, 3.1] {
            for depth in [-400.0, -37.5, 0, 12] {
                let product = Transform3D.rotationY(angle)
                    .concatenating(.translation(0, 0, depth))
                    .concatenating(.perspective(eyeDistance: 500))
                #expect(StylesFixture.close(Transform3D.styleItem(rotationY: angle, depth: depth),
                                            product, 1e-12))
            }
        }
        let depthOnly = Transform3D.translation(0, 0, -80).concatenating(.perspective(eyeDistance: 500))
        #expect(Transform3D.styleItem(depth: -80) == depthOnly)
    }
}
