#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// The inertial filter predicts its estimate along gravity's drift in the strapdown frame while
/// the device keeps turning (`DriftPredictor`, docs/FUSION.md §5).
@Suite struct DriftPredictionTests {
    /// A device tumbling about its x axis (horizontal) at Ω = 2 rad/s, with a gyro that reads
    /// 1 % high: the up vector in the sensor frame is `(0, sin Ωt, cos Ωt)` (`u̇ = u × ω`), and the
    /// strapdown frame turns εΩ = 0.02 rad/s too far, so gravity drifts there at 0.02 rad/s.
    ///
    /// Without prediction the low-pass follows that drift `τ εΩ` behind: `ρ` = 2.02 rad/s gives
    /// `τ_rate = (1/0.5) √(2.25 / 2.07)` = 2.0851 s, and the innovation `g · 0.0421 rad` =
    /// 0.413 m/s² adds 0.05 s/(m/s²) of it, `τ` = 2.1057 s, a lag of 0.04211 rad = 2.413°.
    /// With it, after 120 s (the drift's two 10 s averages have settled) what is left is the
    /// difference between turning by `τ |d|` and stepping `τ (d × u)` along the tangent
    /// (0.0014°) plus the averages' residue.
    func tumble(onsetRate: Double?) -> Double {
        let omega = 2.0, epsilon = 0.01, dt = 0.01, steps = 12_000
        func up(_ t: Double) -> Vector3 { Vector3(0, sin(omega * t), cos(omega * t)) }
        var filter = InertialFrameFilter()
        if let onsetRate { filter.driftOnsetRate = onsetRate }
        var estimate = filter.update(accel: up(0) * standardGravity, gyro: Vector3((1 + epsilon) * omega, 0, 0), dt: dt)
        for k in 1...steps {
            let t = Double(k) * dt
            estimate = filter.update(accel: up(t) * standardGravity, gyro: Vector3((1 + epsilon) * omega, 0, 0), dt: dt)
        }
        return estimate.angle(to: up(Double(steps) * dt)) * 180 / Double.pi
    }

    @Test func aSteadyDriftIsFollowedWithTheLowPassDelayWithoutPrediction() {
        let error = tumble(onsetRate: 0)
        #expect(abs(error - 2.413) < 0.02, "lag without prediction: \(error)° (expected 2.413°)")
    }

    @Test func theDefaultPredictsTheDriftOut() {
        let error = tumble(onsetRate: nil)
        #expect(error < 0.02, "error with prediction: \(error)°")
    }

    /// Below the onset (30 °/s of sustained turn) nothing is predicted: the same tumble at
    /// 0.4 rad/s (23 °/s) reads exactly what the filter without prediction reads.
    @Test func noPredictionBelowTheOnsetRate() {
        func run(_ onset: Double?) -> Vector3 {
            var filter = InertialFrameFilter()
            if let onset { filter.driftOnsetRate = onset }
            var u = Vector3(0, 0, 1)
            for k in 0...6000 {
                let t = Double(k) * 0.01
                u = filter.update(accel: Vector3(0, sin(0.4 * t), cos(0.4 * t)) * standardGravity, gyro: Vector3(0.404, 0, 0), dt: 0.01)
            }
            return u
        }
        #expect(run(nil) == run(0))
    }
}
