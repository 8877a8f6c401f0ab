#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

@Suite struct TiltInputMapperTests {
    static let deg = Double.pi / 180

    static func estimate(roll: Double, pitch: Double, t: Double = 0) -> TiltEstimate {
        TiltEstimate(timeSeconds: t, roll: roll * deg, pitch: pitch * deg)
    }

    @Test func levelNeutralPassesAnglesThrough() {
        var m = TiltInputMapper()
        let input = m.map(Self.estimate(roll: -10, pitch: 5))
        #expect(abs(input.rollDegrees + 10) < 1e-9 && abs(input.pitchDegrees - 5) < 1e-9)
        #expect(input.driveDegrees == input.rollDegrees)  // auto + horizontal → roll
        var vertical = TiltInputMapper(scrollsVertically: true)
        #expect(abs(vertical.map(Self.estimate(roll: -10, pitch: 5)).driveDegrees - 5) < 1e-9)
        var forcedPitch = TiltInputMapper(axis: .pitch)
        #expect(abs(forcedPitch.map(Self.estimate(roll: -10, pitch: 5)).driveDegrees - 5) < 1e-9)
    }

    @Test func displayRotationSignRules() {
        // Device pitched +10° (top edge up): u = (0, sin 10°, cos 10°).
        // 90°: picture right = device −y → display roll = atan2(−u·right, …) = atan2(sin 10°, cos 10°) = +10°.
        // 270°: picture right = device +y → −10°. Device roll +10°: 180° → −10°.
        let pitched = Self.estimate(roll: 0, pitch: 10)
        let rolled = Self.estimate(roll: 10, pitch: 0)
        var m90 = TiltInputMapper(displayRotation: .degrees90)
        var m180 = TiltInputMapper(displayRotation: .degrees180)
        var m270 = TiltInputMapper(displayRotation: .degrees270)
        #expect(abs(m90.map(pitched).driveDegrees - 10) < 1e-9)
        #expect(abs(m270.map(pitched).driveDegrees + 10) < 1e-9)
        #expect(abs(m180.map(rolled).driveDegrees + 10) < 1e-9)
        // 90°: picture up = device +x, u_x = −sin 10° → display pitch = atan2(−sin 10°, cos 10°) = −10°.
        #expect(abs(m90.map(rolled).pitchDegrees + 10) < 1e-9)
    }

    /// Tilting towards the right edge of the picture as the viewer sees it scrolls the same way
    /// in all four rotations: the device held so the picture is upright (its up edge is the
    /// device edge `DeviceOrientation` names), then the picture's right edge lowered by 10°
    /// from lying flat. Picture right for rotation r is `(cos r, −sin r, 0)`; lowering it by 10°
    /// gives `u = cos 10° · z − sin 10° · right`, whose display roll is +10° (right edge down),
    /// and the engine's drive angle is that roll.
    @Test(arguments: [(DisplayRotation.degrees0, 1.0, 0.0), (.degrees90, 0.0, -1.0), (.degrees180, -1.0, 0.0),
                      (.degrees270, 0.0, 1.0)])
    func rightEdgeDownScrollsTheSameWayInEveryRotation(rotation: DisplayRotation, rightX: Double, rightY: Double) {
        let s = sin(10 * Self.deg), c = cos(10 * Self.deg)
        let up = Vector3(-s * rightX, -s * rightY, c)
        var mapper = TiltInputMapper(displayRotation: rotation)
        let input = mapper.map(TiltEstimate(timeSeconds: 0, up: up))
        #expect(abs(input.rollDegrees - 10) < 1e-9)
        #expect(abs(input.pitchDegrees) < 1e-9)
        #expect(abs(input.driveDegrees - 10) < 1e-9)
        // The same picture-right direction from the orientation that shows the picture upright.
        let held = DeviceOrientation.allCases.first { $0.displayRotation == rotation }
        #expect(held.map { TiltInputMapperTests.pictureRight(of: $0) } == Vector3(rightX, rightY, 0))
    }

    /// The picture's right edge, in the device frame, when the device is held in `o`: the up
    /// edge turned a quarter clockwise as the viewer sees it (x right, y up: (a, b) → (b, −a)).
    static func pictureRight(of o: DeviceOrientation) -> Vector3 {
        switch o {
        case .normal: Vector3(1, 0, 0)      // up +y
        case .rightUp: Vector3(0, -1, 0)    // up +x
        case .bottomUp: Vector3(-1, 0, 0)   // up −y
        case .leftUp: Vector3(0, 1, 0)      // up −x
        default: .zero
        }
    }

    @Test func neutralIsRemovedOnVectors() {
        // Neutral pitch 40°; estimate roll 10°, pitch 40°: u = (−sin 10°, cos 10° sin 40°, cos 10° cos 40°).
        // Rotating by −40° about x gives (−sin 10°, 0, cos 10°): relative roll exactly 10°, pitch 0.
        var m = TiltInputMapper(neutralPitch: 40 * Self.deg)
        let input = m.map(Self.estimate(roll: 10, pitch: 40))
        #expect(abs(input.rollDegrees - 10) < 1e-9 && abs(input.pitchDegrees) < 1e-9)
        #expect(abs(m.neutralPitch - 40 * Self.deg) < 1e-12)
    }

    @Test func recenterMakesCurrentAttitudeNeutral() {
        var m = TiltInputMapper()
        let e = Self.estimate(roll: 7, pitch: 123)
        m.recenter(on: e)
        let input = m.map(e)
        #expect(abs(input.rollDegrees) < 1e-9 && abs(input.pitchDegrees) < 1e-9)
    }

    @Test func slowNeutralTracking() {
        // τ = 1 s, constant roll 10°. Outputs are computed before tracking moves the neutral:
        // t = 0 and t = 1 give 10°. Then u₀ ← normalize(u₀ + (u − u₀)·k), k = 1 − e^(−1),
        // whose angle from level is atan(k sin 10° / (1 − k + k cos 10°)) = 6.3244°.
        var m = TiltInputMapper(neutralTrackingSeconds: 1)
        #expect(abs(m.map(Self.estimate(roll: 10, pitch: 0, t: 0)).rollDegrees - 10) < 1e-9)
        #expect(abs(m.map(Self.estimate(roll: 10, pitch: 0, t: 1)).rollDegrees - 10) < 1e-9)
        let k = 1 - exp(-1.0)
        let moved = atan(k * sin(10 * Self.deg) / (1 - k + k * cos(10 * Self.deg))) / Self.deg
        #expect(abs(moved - 6.3244) < 1e-4)
        #expect(abs(m.map(Self.estimate(roll: 10, pitch: 0, t: 2)).rollDegrees - (10 - moved)) < 1e-9)
    }
}
