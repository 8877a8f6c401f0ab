@testable import CarouselEngine

/// Helpers for the layout-style tests (namespaced so they cannot clash with other suites).
enum StylesFixture {
    /// A horizontal geometry; `cross` lengths do not matter to the styles' along-axis maths.
    static func geometry(viewport: Double, item: Double, spacing: Double = 0, count: Int = 100,
                         viewportCross: Double = 200, itemCross: Double = 160) -> StyleGeometry {
        StyleGeometry(viewportAlong: viewport, viewportCross: viewportCross, itemAlong: item,
                      itemCross: itemCross, spacing: spacing, count: count)
    }

    /// |a − b| ≤ tolerance.
    static func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-4) -> Bool {
        (a - b).magnitude <= tolerance
    }

    static func close(_ a: Transform3D, _ b: Transform3D, _ tolerance: Double = 1e-9) -> Bool {
        zip(a.values, b.values).allSatisfy { close($0, $1, tolerance) }
    }

    static func degrees(_ x: Double) -> Double { x * Double.pi / 180 }

    /// Every number of the output is finite and alpha is in [0, 1].
    static func isFinite(_ o: StyleOutput) -> Bool {
        o.centerOffset.isFinite && o.scaleAlong.isFinite && o.scaleCross.isFinite
            && o.zIndex.isFinite && o.alpha >= 0 && o.alpha <= 1
            && o.transform.values.allSatisfy(\.isFinite)
    }

    /// The along-axis interval covered by the item's transformed frame, in viewport-center
    /// coordinates: the four corners of the item (`itemAlong × itemCross`) through `transform`
    /// about the displayed center, then moved by `centerOffset`. `nil` if a corner is behind
    /// the eye.
    static func projectedInterval(_ o: StyleOutput, _ g: StyleGeometry) -> ClosedRange<Double>? {
        var lo = Double.infinity, hi = -Double.infinity
        for sx in [-0.5, 0.5] {
            for sy in [-0.5, 0.5] {
                guard let p = o.transform.project(x: sx * g.itemAlong, y: sy * g.itemCross) else {
                    return nil
                }
                lo = min(lo, p.x + o.centerOffset)
                hi = max(hi, p.x + o.centerOffset)
            }
        }
        return lo...hi
    }

    static let allStyles: [LayoutStyle] = [
        .linear(LinearStyle()), .zoom(ZoomStyle()), .stacked, .coverFlow(CoverFlowStyle()),
        .rotary(RingStyle()), .cylinder(RingStyle()),
    ]
}
