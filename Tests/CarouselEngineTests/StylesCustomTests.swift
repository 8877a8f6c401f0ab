import Testing
@testable import CarouselEngine

/// The `custom` style against hand-computed values (docs/STYLES.md "custom"). Geometry: W 375,
/// w 250, spacing 10, p 260. The look: next = translateX 1, translateZ −0.5, rotateY −45°,
/// scale 0.8, opacity 0.5; previous the mirror image (translateX −1, rotateY 45°); limit 1;
/// perspective 500.
@Suite struct StylesCustomTests {
    let geometry = StyleGeometry(viewportAlong: 375, viewportCross: 200, itemAlong: 250, itemCross: 160,
                                 spacing: 10, count: 10)
    let style = CustomStyle(
        previous: CustomSide(translateX: -1, translateZ: -0.5, rotateY: 45, scale: 0.8, opacity: 0.5),
        next: CustomSide(translateX: 1, translateZ: -0.5, rotateY: -45, scale: 0.8, opacity: 0.5),
        limit: 1, perspective: 500)

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    @Test func theCenteredItemIsUntouchedApartFromPerspective() {
        let o = LayoutStyle.custom(style).output(distance: 0, geometry: geometry)
        #expect(o.centerOffset == 0)
        #expect(o.scaleAlong == 1)
        #expect(o.alpha == 1)
        #expect(o.transform == Transform3D.perspective(eyeDistance: 500))
    }

    @Test func halfWayToTheNextPlace() {
        // d = 130, o = 0.5: f = 0.5 → x = 130, z = −65, turn −22.5°, scale 0.9, alpha 0.75.
        let o = LayoutStyle.custom(style).output(distance: 130, geometry: geometry)
        #expect(o.centerOffset == 130)
        #expect(close(o.alpha, 0.75))
        #expect(close(o.scaleAlong, 0.9 / 1.13))  // 0.79646: scale over 1 − z / 500
        #expect(o.zIndex == -130)
        // scale(0.9) · rotY(−22.5°) · translate(0, 0, −65) · perspective(500), by hand:
        let t = o.transform
        #expect(close(t.m11, 0.831491579260158))      // 0.9 cos 22.5°
        #expect(close(t.m13, 0.3444150891285808))     // 0.9 sin 22.5°
        #expect(close(t.m14, -0.0006888301782571616)) // m13 · (−1/500)
        #expect(close(t.m22, 0.9))
        #expect(close(t.m31, -0.3826834323650898))    // sin(−22.5°)
        #expect(close(t.m33, 0.9238795325112867))
        #expect(close(t.m34, -0.0018477590650225735))
        #expect(close(t.m43, -65))
        #expect(close(t.m44, 1.13))                   // 1 + 65 / 500
        #expect(t.m12 == 0 && t.m21 == 0 && t.m41 == 0 && t.m42 == 0)
    }

    @Test func beyondTheLimitItemsKeepTheLookAtTheLimit() {
        // d = −520, o = −2 → c = −1: the previous side in full, x = −260, z = −130, turn 45°.
        let o = LayoutStyle.custom(style).output(distance: -520, geometry: geometry)
        let atLimit = LayoutStyle.custom(style).output(distance: -260, geometry: geometry)
        #expect(o.centerOffset == -260)
        #expect(close(o.alpha, 0.5))
        #expect(close(o.scaleAlong, 0.8 / 1.26))
        #expect(close(o.transform.m11, 0.5656854249492381))  // 0.8 cos 45°
        #expect(close(o.transform.m31, 0.7071067811865475))
        #expect(o.zIndex == -520)
        #expect(o.transform == atLimit.transform)
        #expect(atLimit.zIndex > o.zIndex)  // the pile lies under the item at the limit
    }

    @Test func rotationZAndTranslateYAndNoPerspective() {
        // Only a quarter turn about z and half a pitch down at one item; no perspective.
        let spin = CustomStyle(previous: CustomSide(), next: CustomSide(translateY: 0.5, rotateZ: 90),
                               limit: 2, perspective: 0)
        let o = LayoutStyle.custom(spin).output(distance: 260, geometry: geometry)
        #expect(o.centerOffset == 0)
        #expect(close(o.transform.m11, 0) && close(o.transform.m12, 1))  // x turns toward y
        #expect(close(o.transform.m21, -1))
        #expect(close(o.transform.m42, 130))
        #expect(o.transform.m34 == 0)
        #expect(o.scaleAlong == 1)
        // limit 2: the item two away gets twice the values (a half turn, one pitch down).
        let two = LayoutStyle.custom(spin).output(distance: 520, geometry: geometry)
        #expect(close(two.transform.m11, -1))
        #expect(close(two.transform.m42, 260))
    }

    @Test func visibilityCoversOnePitchPastTheLimit() {
        #expect(LayoutStyle.custom(style).maximumVisibleDistance(geometry: geometry) == 520)
        let wide = CustomStyle(limit: 0.2)
        #expect(LayoutStyle.custom(wide).maximumVisibleDistance(geometry: geometry) == 520)  // ⌈0.2⌉ + 1 = 2 pitches
        let tiny = StyleGeometry(viewportAlong: 2000, viewportCross: 200, itemAlong: 100, itemCross: 100,
                                 spacing: 0, count: 10)
        #expect(LayoutStyle.custom(style).maximumVisibleDistance(geometry: tiny) == 1050)  // W/2 + w/2
    }

    @Test func setStyleChangesOnlyTheLook() {
        var e = makeEngine()
        e.setOffset(130, at: 0)
        e.setStyle(.custom(style), at: 1)
        #expect(e.state.offset == 130)
        #expect(e.state.time == 1)
        // Item 1 is 130 pt right of the center: half-way to the next place (see above).
        let item1 = e.visibleItems().first { $0.index == 1 }
        #expect(item1?.center.x == 187.5 + 130)
        #expect(item1.map { close($0.alpha, 0.75) } == true)
    }

    @Test func outputsAreFiniteWithoutNegativeZeros() {
        for d in [-1e300, -1e9, -0.0, 1e-300, 1e9, .infinity, -.infinity, .nan] {
            let o = LayoutStyle.custom(style).output(distance: d, geometry: geometry)
            let numbers = [o.centerOffset, o.scaleAlong, o.scaleCross, o.alpha, o.zIndex] + o.transform.values
            #expect(numbers.allSatisfy { $0.isFinite && !($0 == 0 && $0.sign == .minus) })
        }
    }

    @Test func validationNamesTheField() {
        var bad = style
        bad.next.opacity = 1.5
        do { try bad.validate(); Issue.record("accepted") } catch { #expect(error.field == "style.next.opacity") }
        bad = style
        bad.limit = 0
        do { try bad.validate(); Issue.record("accepted") } catch { #expect(error.field == "style.limit") }
        bad = style
        bad.perspective = 0.5
        var c = CarouselConfiguration(geometry: narrowGeometry(), style: .custom(bad))
        do { try c.validate(); Issue.record("accepted") } catch { #expect(error.field == "style.perspective") }
        c.style = .custom(style)
        #expect(throws: Never.self) { try c.validate() }
    }
}
