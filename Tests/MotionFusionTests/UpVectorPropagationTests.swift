#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `FusionFilter` propagates the up vector directly (Rodrigues) instead of integrating a
/// quaternion `q ← q ⊗ exp(½ r)` and reading `q.upInSensorFrame`. The two must agree to rounding.
@Suite struct UpVectorPropagationTests {
    /// Rotation vectors (radians) of a hand-made sequence: small steps on the series branch
    /// (|r| < 0.01), steps just around the 0.01 rad switch, and large ones (up to almost π)
    /// on the exact branch, about every axis and mixed axes, with sign changes.
    static let steps: [Vector3] = {
        var steps: [Vector3] = []
        for k in 0..<400 {
            let t = Double(k) * 0.05
            steps.append(Vector3(0.004 * sin(1.3 * t), -0.006 * cos(0.7 * t), 0.003 * sin(2.9 * t + 1)))
        }
        steps += [Vector3(0.0099, 0, 0), Vector3(0, 0.0101, 0), Vector3(0.00577, 0.00577, -0.00577),
                  Vector3(0.005774, -0.005774, 0.005774), Vector3(0.3, -0.2, 0.1), Vector3(0, 0, 1.5),
                  Vector3(-2, 1, 0.5), Vector3(0, 3.1, 0), Vector3(1e-9, -2e-9, 0), Vector3.zero]
        for k in 0..<100 {
            let t = Double(k)
            steps.append(Vector3(0.8 * sin(t), 0.5 * cos(1.7 * t), -0.9 * sin(0.3 * t)))
        }
        return steps
    }()

    @Test func matchesQuaternionIntegration() throws {
        var q = Quaternion(up: try #require(Vector3(0.3, -0.5, 0.81).normalized))
        var up = q.upInSensorFrame
        var worst = 0.0
        for r in Self.steps {
            q = (q * Quaternion(rotationVector: r)).normalized
            up = FusionFilter.renormalized(FusionFilter.propagated(up, by: r))
            let reference = q.upInSensorFrame
            worst = max(worst, up.angle(to: reference))
            #expect(abs(up.length - 1) < 1e-15)
        }
        #expect(worst < 1e-13, "largest angle between the two propagations \(worst) rad")
    }

    @Test func quarterTurnsByHand() {
        // The body turns +90° about z: a vector fixed in the earth frame turns −90° about z in
        // the body frame, so x → −y and y → x.
        let turn = Vector3(0, 0, Double.pi / 2)
        let a = FusionFilter.propagated(Vector3(1, 0, 0), by: turn)
        #expect((a - Vector3(0, -1, 0)).length < 1e-15)
        let b = FusionFilter.propagated(Vector3(0, 1, 0), by: turn)
        #expect((b - Vector3(1, 0, 0)).length < 1e-15)
        // The body turns +0.5 rad about +y: u̇ = u × ω moves up (0, 0, 1) toward −x, to
        // (−sin 0.5, 0, cos 0.5) (right edge down, roll +0.5 rad, as in EstimatorBehaviourTests).
        let c = FusionFilter.propagated(Vector3(0, 0, 1), by: Vector3(0, 0.5, 0))
        #expect((c - Vector3(-sin(0.5), 0, cos(0.5))).length < 1e-15)
        // A small step on the series branch: 0.005 rad about x turns up to (0, sin, cos).
        let d = FusionFilter.propagated(Vector3(0, 0, 1), by: Vector3(0.005, 0, 0))
        #expect((d - Vector3(0, sin(0.005), cos(0.005))).length < 1e-17)
    }

    @Test func filterWithoutCorrectionIsPureGyroIntegration() throws {
        // gain 0, no integral term, no bias learning: the filter only integrates the gyro, so its
        // up vector must follow the quaternion integration of the same rates from the same start.
        var filter = FusionFilter(gain: 0, biasTimeConstant: 0, integralGain: 0)
        let start = try #require(Vector3(0.2, 0.1, 0.97).normalized)
        _ = filter.update(accel: start * standardGravity, gyro: .zero, dt: 0.01)
        var q = Quaternion(up: start)
        var worst = 0.0
        for (k, r) in Self.steps.enumerated() {
            let dt = k % 3 == 0 ? 0.005 : 0.01
            let rate = r * (1 / dt)
            let up = filter.update(accel: Vector3(0, 0, standardGravity), gyro: rate, dt: dt)
            q = (q * Quaternion(rotationVector: rate * dt)).normalized
            worst = max(worst, up.angle(to: q.upInSensorFrame))
        }
        #expect(worst < 1e-12, "largest angle \(worst) rad")
        // The attitude it reports is the zero-yaw one of that up vector.
        let attitude = try #require(filter.attitude)
        #expect(attitude.upInSensorFrame.angle(to: q.upInSensorFrame) < 1e-12)
    }
}
