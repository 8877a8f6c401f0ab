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

/// The logical-frame → real-frame mappings the engine applies to style transforms.
@Suite struct StylesFrameMappingTests {
    @Test func reflectingXMirrorsTheStyles() {
        let g = StylesFixture.geometry(viewport: 375, item: 200, count: 20)
        for style in StylesFixture.allStyles {
            for d in [90.0, 200, 640] {
                let right = style.output(distance: d, geometry: g).transform
                let left = style.output(distance: -d, geometry: g).transform
                #expect(StylesFixture.close(right.reflectingX(), left, 1e-12))
            }
        }
        // A reflection is its own inverse.
        let t = Transform3D.styleItem(rotationY: 0.4, depth: -30)
        #expect(t.reflectingX().reflectingX() == t)
    }

    @Test func swappingXYTurnsAboutXTheOtherWay() {
        let a = 0.7
        #expect(StylesFixture.close(Transform3D.rotationY(a).swappingXY(), .rotationX(-a), 1e-15))
        #expect(Transform3D.translation(3, 5, -7).swappingXY() == .translation(5, 3, -7))
        #expect(Transform3D.scale(0.9, 0.7, 1).swappingXY() == .scale(0.7, 0.9, 1))
        #expect(Transform3D.perspective(eyeDistance: 500).swappingXY() == .perspective(eyeDistance: 500))
        // A vertical cover-flow card below the center (+y) turns its bottom edge toward the
        // viewer, as the horizontal one turns its right edge: the point (0, 100, 0) gets z > 0.
        let card = Transform3D.styleItem(rotationY: StylesFixture.degrees(-81), depth: -100).swappingXY()
        let bottom = Transform3D.translation(0, 100, 0).concatenating(card)
        #expect(bottom.m43 > -100 + 98)  // −100 + 100 · sin 81° = −1.23 before perspective
    }
}
