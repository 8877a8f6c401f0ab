#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// Hand-derived roll/pitch (docs/FUSION.md "1. Conventions": u = (−sin roll, cos roll·sin pitch, cos roll·cos pitch)).
@Suite struct TiltGeometryTests {
    let deg = Double.pi / 180

    @Test func knownVectors() {
        // Flat, face up.
        var e = TiltEstimate(timeSeconds: 0, up: Vector3(0, 0, 9.81))
        #expect(e.roll == 0 && e.pitch == 0)
        // Right edge down by 30°: u = (−sin 30°, 0, cos 30°) = (−0.5, 0, 0.866…) → roll +30°.
        e = TiltEstimate(timeSeconds: 0, up: Vector3(-0.5, 0, 0.75.squareRoot()))
        #expect(abs(e.rollDegrees - 30) < 1e-12 && abs(e.pitchDegrees) < 1e-12)
        // Top edge raised 45°: u = (0, sin 45°, cos 45°) → pitch +45°.
        e = TiltEstimate(timeSeconds: 0, up: Vector3(0, 1, 1))
        #expect(abs(e.pitchDegrees - 45) < 1e-12 && e.roll == 0)
        // Standing upright (y up): pitch +90°.
        e = TiltEstimate(timeSeconds: 0, up: Vector3(0, 9.8, 0))
        #expect(abs(e.pitchDegrees - 90) < 1e-12)
        // Face down: pitch 180° (the half-open range (−180°, 180°]), roll 0.
        e = TiltEstimate(timeSeconds: 0, up: Vector3(0, -0.0, -1))
        #expect(e.pitchDegrees == 180 && e.roll == 0)
        // Left edge down (x axis up): roll −90°.
        e = TiltEstimate(timeSeconds: 0, up: Vector3(1, 0, 0))
        #expect(abs(e.rollDegrees + 90) < 1e-12)
        // roll 20°, pitch −35°: build u by hand and read the angles back.
        let r = 20 * deg, p = -35 * deg
        let u = Vector3(-sin(r), cos(r) * sin(p), cos(r) * cos(p))
        e = TiltEstimate(timeSeconds: 0, up: u * 9.80665)
        #expect(abs(e.rollDegrees - 20) < 1e-12 && abs(e.pitchDegrees + 35) < 1e-12)
        #expect(TiltEstimate(timeSeconds: 0, roll: r, pitch: p).up == u)
    }

    @Test func quaternionFromUpMatchesUp() {
        for u in [Vector3(0, 0, 1), Vector3(0.3, -0.4, 0.5), Vector3(0, 0, -1), Vector3(-1, 2, -3)] {
            let n = u.normalized!
            let q = Quaternion(up: n)
            let back = q.upInSensorFrame
            #expect((back - n).length < 1e-12, "\(u)")
            #expect((q.rotate(n) - Vector3(0, 0, 1)).length < 1e-12)
        }
    }
}
