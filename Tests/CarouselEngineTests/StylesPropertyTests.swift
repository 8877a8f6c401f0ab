import Testing
@testable import CarouselEngine

/// Properties every style must have: mirror symmetry, finite outputs on any input, and a
/// visibility bound that no visible item lies beyond.
@Suite struct StylesPropertyTests {
    static let geometries: [StyleGeometry] = [
        StylesFixture.geometry(viewport: 375, item: 160, spacing: 0, count: 10),
        StylesFixture.geometry(viewport: 375, item: 250, spacing: 10, count: 1_000_000),
        StylesFixture.geometry(viewport: 812, item: 600, spacing: 20, count: 3),
        StylesFixture.geometry(viewport: 320, item: 80, spacing: 40, count: 40),
    ]

    @Test(arguments: StylesFixture.allStyles)
    func mirroredDistanceMirrorsTheItem(style: LayoutStyle) {
        // d → −d reflects x: centerOffset changes sign, and the transform is conjugated by the
        // reflection diag(−1, 1, 1, 1), which flips exactly m12, m13, m14, m21, m31, m41.
        for g in Self.geometries {
            for d in [1.0, 37.5, 160, 255, 413, 800, 2222] {
                let r = style.output(distance: d, geometry: g)
                let l = style.output(distance: -d, geometry: g)
                #expect(StylesFixture.close(l.centerOffset, -r.centerOffset, 1e-9))
                #expect(StylesFixture.close(l.scaleAlong, r.scaleAlong, 1e-12))
                #expect(StylesFixture.close(l.scaleCross, r.scaleCross, 1e-12))
                #expect(l.alpha == r.alpha)
                #expect(l.zIndex == r.zIndex)
                let a = r.transform, b = l.transform
                let mirrored = Transform3D(a.m11, -a.m12, -a.m13, -a.m14, -a.m21, a.m22, a.m23, a.m24,
                                           -a.m31, a.m32, a.m33, a.m34, -a.m41, a.m42, a.m43, a.m44)
                #expect(StylesFixture.close(b, mirrored, 1e-12))
            }
        }
    }

    @Test(arguments: StylesFixture.allStyles)
    func outputsAreFiniteOnExtremeInputs(style: LayoutStyle) {
        let extremes: [StyleGeometry] = Self.geometries + [
            StylesFixture.geometry(viewport: 375, item: 200, count: 0),
            StylesFixture.geometry(viewport: 375, item: 200, count: 1),
            StylesFixture.geometry(viewport: 375, item: 200, count: 2),
            StylesFixture.geometry(viewport: 1e-6, item: 1e-300, count: 5),
            StylesFixture.geometry(viewport: 1e12, item: 1e11, spacing: 1e11, count: Int.max),
            StylesFixture.geometry(viewport: 375, item: 200, spacing: -200, count: 7),  // pitch 0
            StylesFixture.geometry(viewport: 375, item: 200, spacing: -500, count: 7),  // pitch < 0
            StylesFixture.geometry(viewport: 0, item: 0, count: 7),
        ]
        let distances: [Double] = [0, -0.0, 1e-300, 0.5, -77, 1e9, -1e9, 1e300, -1e300,
                                   .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                   .infinity, -.infinity, .nan]
        for g in extremes {
            let bound = style.maximumVisibleDistance(geometry: g)
            #expect(bound.isFinite && bound >= 0)
            for d in distances {
                #expect(StylesFixture.isFinite(style.output(distance: d, geometry: g)),
                        "\(style) d=\(d) geometry=\(g)")
            }
        }
    }

    @Test(arguments: StylesFixture.allStyles)
    func noNegativeZeros(style: LayoutStyle) {
        // The wire format forbids -0; the centered item is where the formulas produce it
        // (−|d|, −sin 0, d = −0.0).
        let g = StylesFixture.geometry(viewport: 375, item: 200, count: 20)
        for d in [0.0, -0.0] {
            let o = style.output(distance: d, geometry: g)
            let numbers = [o.centerOffset, o.scaleAlong, o.scaleCross, o.alpha, o.zIndex] + o.transform.values
            #expect(numbers.allSatisfy { $0 != 0 || $0.sign == .plus }, "\(style) d=\(d)")
        }
    }

    @Test func extremeParametersStayFinite() {
        let styles: [LayoutStyle] = [
            .linear(LinearStyle(minScaleW: -3, minScaleH: 1e300, minAlpha: -2)),
            .zoom(ZoomStyle(scaleFactor: 5, activeDistance: 0)),
            .zoom(ZoomStyle(scaleFactor: .nan, activeDistance: -.infinity)),
            .coverFlow(CoverFlowStyle(tilt: -7, spacing: -1)),
            .coverFlow(CoverFlowStyle(tilt: .infinity, spacing: 1e-300)),
            .rotary(RingStyle(spacing: 0)), .rotary(RingStyle(spacing: -1)),
            .cylinder(RingStyle(spacing: 1e300)), .cylinder(RingStyle(spacing: .nan)),
        ]
        let g = StylesFixture.geometry(viewport: 375, item: 200, count: 50)
        for style in styles {
            #expect(style.maximumVisibleDistance(geometry: g).isFinite)
            for d in [0.0, 150, -420, 1e9] {
                #expect(StylesFixture.isFinite(style.output(distance: d, geometry: g)), "\(style) d=\(d)")
            }
        }
    }

    /// Beyond `maximumVisibleDistance` an item's transformed frame (its corners through the
    /// transform, moved to its center) lies wholly outside the viewport, or it is transparent.
    @Test(arguments: [LayoutStyle.linear(LinearStyle()), .linear(LinearStyle(minScaleW: 1.6)),
                      .zoom(ZoomStyle()), .zoom(ZoomStyle(scaleFactor: -0.4)), .stacked,
                      .coverFlow(CoverFlowStyle()), .coverFlow(CoverFlowStyle(tilt: 0.3, spacing: 0.6)),
                      .coverFlow(CoverFlowStyle(spacing: 0))])
    func nothingVisibleLiesBeyondTheBound(style: LayoutStyle) {
        for g in Self.geometries {
            let bound = style.maximumVisibleDistance(geometry: g)
            let half = g.viewportAlong / 2
            #expect(bound >= half + g.itemAlong / 2)
            for k in 1...400 {
                let d = bound * (1 + Double(k) / 100)  // up to 5 × the bound, both sides
                for signed in [d, -d] {
                    let o = style.output(distance: signed, geometry: g)
                    if o.alpha == 0 { continue }
                    guard let span = StylesFixture.projectedInterval(o, g) else {
                        Issue.record("corner behind the eye at d=\(signed)")
                        continue
                    }
                    // With zero spacing coverFlow piles cards exactly on the o = 1…2 card,
                    // which lies inside the bound and covers them (lower zIndex).
                    if case .coverFlow(let c) = style, c.spacing == 0 {
                        let nearer = style.output(distance: signed < 0 ? -g.pitch * 1.5 : g.pitch * 1.5, geometry: g)
                        #expect(StylesFixture.close(o.centerOffset, nearer.centerOffset, 1e-9))
                        #expect(o.zIndex < nearer.zIndex)
                        continue
                    }
                    #expect(span.upperBound <= -half || span.lowerBound >= half,
                            "\(style) d=\(signed) span=\(span) bound=\(bound)")
                }
            }
        }
    }
}
