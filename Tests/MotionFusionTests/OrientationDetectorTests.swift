#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

@Suite struct OrientationDetectorTests {
    static let deg = Double.pi / 180

    /// The unit up vector with elevation `e` above the screen plane and in-plane angle `θ`
    /// (from +y toward +x), degrees: `(cos e sin θ, cos e cos θ, sin e)`.
    static func up(elevation e: Double, theta: Double) -> Vector3 {
        Vector3(cos(e * deg) * sin(theta * deg), cos(e * deg) * cos(theta * deg), sin(e * deg))
    }

    static func estimate(_ t: Double, elevation: Double, theta: Double) -> TiltEstimate {
        TiltEstimate(timeSeconds: t, up: up(elevation: elevation, theta: theta))
    }

    @Test func edgesAndFacesFromTheUpVector() {
        // Held at 30° back (e = 30°): each edge up gives its orientation; the first estimate
        // is taken at once.
        let cases: [(Double, DeviceOrientation)] = [(0, .normal), (90, .rightUp), (180, .bottomUp), (-90, .leftUp)]
        for (theta, expected) in cases {
            var d = OrientationDetector()
            #expect(d.update(Self.estimate(0, elevation: 30, theta: theta)) == expected)
        }
        var flat = OrientationDetector()
        #expect(flat.update(TiltEstimate(timeSeconds: 0, up: Vector3(0, 0, 1))) == .faceUp)
        var down = OrientationDetector()
        #expect(down.update(TiltEstimate(timeSeconds: 0, up: Vector3(0, 0, -1))) == .faceDown)
        #expect(OrientationDetector().orientation == .undefined)
    }

    @Test func dwellTimeDelaysAChange() {
        // Default dwell 0.5 s: right-up from t = 1.0 becomes the orientation at t = 1.5, not at 1.49.
        var d = OrientationDetector()
        d.update(Self.estimate(0, elevation: 0, theta: 0))
        #expect(d.update(Self.estimate(1.0, elevation: 0, theta: 90)) == .normal)
        #expect(d.update(Self.estimate(1.49, elevation: 0, theta: 90)) == .normal)
        #expect(d.update(Self.estimate(1.5, elevation: 0, theta: 90)) == .rightUp)
    }

    @Test func aWobbleShorterThanTheDwellChangesNothing() {
        // 0.4 s at θ = 90°, back to 0° for one sample, 0.4 s at 90° again: the interruption
        // restarts the dwell, so no change (0.4 < 0.5 each time).
        var d = OrientationDetector()
        d.update(Self.estimate(0, elevation: 0, theta: 0))
        for t in stride(from: 1.0, through: 1.4, by: 0.1) { #expect(d.update(Self.estimate(t, elevation: 0, theta: 90)) == .normal) }
        #expect(d.update(Self.estimate(1.45, elevation: 0, theta: 0)) == .normal)
        for t in stride(from: 1.5, through: 1.9, by: 0.1) { #expect(d.update(Self.estimate(t, elevation: 0, theta: 90)) == .normal) }
    }

    @Test func hysteresisHoldsTheEdgeTo55Degrees() {
        // Hysteresis 10°: normal holds up to θ = 55° and gives way at 56° (nearest centre: right-up).
        let c = OrientationDetector.Configuration()
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 55), current: .normal, configuration: c) == .normal)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 56), current: .normal, configuration: c) == .rightUp)
        // Coming from left-up, θ = 10° is 100° from −90°: the nearest centre, normal.
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 10), current: .leftUp, configuration: c) == .normal)
        // Bottom-up across the ±180° seam: θ = −140° is 40° from 180°.
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: -140), current: .bottomUp, configuration: c) == .bottomUp)
        // Without a current edge (face-up left at e = 0°, or none yet), 44° is normal and 46° right-up.
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 44), current: .faceUp, configuration: c) == .normal)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 44), current: .undefined, configuration: c) == .normal)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 0, theta: 46), current: .undefined, configuration: c) == .rightUp)
    }

    @Test func faceUpEntersAt65AndLeavesBelow55() {
        // Face 65°, hysteresis 10°: from normal, e = 64° stays normal and 66° is face-up;
        // once face-up, e = 56° stays face-up and 54° returns to the nearest edge.
        let c = OrientationDetector.Configuration()
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 64, theta: 0), current: .normal, configuration: c) == .normal)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 66, theta: 0), current: .normal, configuration: c) == .faceUp)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 56, theta: 0), current: .faceUp, configuration: c) == .faceUp)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: 54, theta: 180), current: .faceUp, configuration: c) == .bottomUp)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: -66, theta: 0), current: .normal, configuration: c) == .faceDown)
        #expect(OrientationDetector.candidate(up: Self.up(elevation: -56, theta: 0), current: .faceDown, configuration: c) == .faceDown)
    }

    @Test func timeGoingBackRestartsTheDwell() {
        var d = OrientationDetector(.init(dwellSeconds: 1))
        d.update(Self.estimate(5, elevation: 0, theta: 0))
        d.update(Self.estimate(6, elevation: 0, theta: 180))
        // An estimator restart: time 0.2 < 6; the dwell counts from 0.2, so 1.1 is too early.
        #expect(d.update(Self.estimate(0.2, elevation: 0, theta: 180)) == .normal)
        #expect(d.update(Self.estimate(1.1, elevation: 0, theta: 180)) == .normal)
        #expect(d.update(Self.estimate(1.2, elevation: 0, theta: 180)) == .bottomUp)
        d.reset()
        #expect(d.orientation == .undefined)
    }

    @Test func displayRotationOfEachOrientation() {
        #expect(DeviceOrientation.normal.displayRotation == .degrees0)
        #expect(DeviceOrientation.rightUp.displayRotation == .degrees90)
        #expect(DeviceOrientation.bottomUp.displayRotation == .degrees180)
        #expect(DeviceOrientation.leftUp.displayRotation == .degrees270)
        #expect(DeviceOrientation.faceUp.displayRotation == nil)
        #expect(DeviceOrientation.allCases.map(\.rawValue)
                == ["undefined", "normal", "bottom-up", "left-up", "right-up", "face-up", "face-down"])
    }
}
