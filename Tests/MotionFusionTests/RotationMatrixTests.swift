#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `RotationMatrix(rotationVector:)` (Rodrigues' formula, series below 0.01 rad) against the
/// quaternion rotation `Quaternion(rotationVector:).rotate(_:)`, and against rotations worked
/// out by hand.
@Suite struct RotationMatrixTests {
    @Test func quarterTurnsByHand() {
        // +90° about z takes x to y and y to −x; about x it takes y to z.
        let z = RotationMatrix(rotationVector: Vector3(0, 0, Double.pi / 2))
        let x = RotationMatrix(rotationVector: Vector3(Double.pi / 2, 0, 0))
        for (got, expected) in [(z.apply(Vector3(1, 0, 0)), Vector3(0, 1, 0)), (z.apply(Vector3(0, 1, 0)), Vector3(-1, 0, 0)),
                                (x.apply(Vector3(0, 1, 0)), Vector3(0, 0, 1)), (x.apply(Vector3(0, 0, 2)), Vector3(0, -2, 0))] {
            #expect((got - expected).length < 1e-15, "\(got) vs \(expected)")
        }
        // A small turn (series branch): 0.001 rad about z moves x to (cos, sin, 0).
        let small = RotationMatrix(rotationVector: Vector3(0, 0, 0.001)).apply(Vector3(1, 0, 0))
        #expect((small - Vector3(cos(0.001), sin(0.001), 0)).length < 1e-16)
    }

    @Test func equalsTheQuaternionRotation() {
        // Angles from 1e-9 to 3.1 rad on both branches (the series ends at 0.01 rad), axes
        // in every octant.
        var worst = 0.0
        let v = Vector3(0.3, -9.7, 1.4)
        for angle in [1e-9, 1e-5, 0.003, 0.0099, 0.0101, 0.05, 0.7, 2.0, 3.1] {
            for axis in [Vector3(1, 2, 3), Vector3(-0.5, 0.1, -2), Vector3(0, 0, 1), Vector3(3, -1, 0.2)] {
                let r = axis * (angle / axis.length)
                let byMatrix = RotationMatrix(rotationVector: r).apply(v)
                let byQuaternion = Quaternion(rotationVector: r).rotate(v)
                worst = max(worst, (byMatrix - byQuaternion).length / v.length)
            }
        }
        #expect(worst < 1e-15)
    }
}
