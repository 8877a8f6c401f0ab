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

    /// A device that tumbles about its x axis at 2 rad/s for 60 s with a gyro reading 1 % high,
    /// stops (cosine ramps of 1 s at both ends), and is then put down still, or held without
    /// ever counting as at rest. Returns the largest error after the stop, degrees, and the
    /// largest change of the estimate from one sample to the next after it (the device no
    /// longer turns, so the true up vector no longer changes).
    func turnAndStop(onsetRate: Double?, held: Bool) -> (peak: Double, largestStep: Double) {
        let omega = 2.0, epsilon = 0.01, dt = 0.01, pre = 5.0, turn = 60.0, after = 30.0
        func angle(_ t: Double) -> (theta: Double, rate: Double) {
            let s = t - pre
            if s <= 0 { return (0, 0) }
            if s < 1 { return (omega * (s - sin(Double.pi * s) / Double.pi) / 2, omega * (1 - cos(Double.pi * s)) / 2) }
            if s < turn - 1 { return (omega * (s - 0.5), omega) }
            let q = max(0, turn - s)
            return (omega * (turn - 1) - omega * (q - sin(Double.pi * q) / Double.pi) / 2, omega * (1 - cos(Double.pi * q)) / 2)
        }
        var filter = InertialFrameFilter(rest: held ? RestDetector(stillTime: 1e9) : RestDetector())
        if let onsetRate { filter.driftOnsetRate = onsetRate }
        var peak = 0.0, largestStep = 0.0, last: Vector3?
        for k in 0...Int((pre + turn + after) / dt) {
            let t = Double(k) * dt, (theta, rate) = angle(t)
            let up = Vector3(0, sin(theta), cos(theta))
            let estimate = filter.update(accel: up * standardGravity, gyro: Vector3((1 + epsilon) * rate, 0, 0), dt: dt)
            if t >= pre + turn {
                peak = max(peak, estimate.angle(to: up) * 180 / Double.pi)
                if let last { largestStep = max(largestStep, estimate.angle(to: last) * 180 / Double.pi) }
                last = estimate
            }
        }
        return (peak, largestStep)
    }

    /// After a steady turn stops, the lag the prediction removes decays as the low-pass's own
    /// lag does: the estimate neither overshoots past the truth nor jumps when the device comes
    /// to rest. Without prediction the lag at the stop is 1.26° (the 2.35° of the steady turn,
    /// partly caught up during the 1 s ramp down); predicting `τ d` with the 20 s mean of the
    /// drift instead pushed on for seconds after the stop (2.5° on the table, 2.8° held) and
    /// dropped the prediction in one step, 2.6°, when rest was detected.
    @Test(arguments: [false, true])
    func thePredictionEndsWithTheTurn(held: Bool) {
        let without = turnAndStop(onsetRate: 0, held: held)
        let with = turnAndStop(onsetRate: nil, held: held)
        #expect(abs(without.peak - 1.26) < 0.1, "lag at the stop without prediction: \(without.peak)°")
        #expect(with.peak < 0.6, "largest error after the stop with prediction: \(with.peak)° (without: \(without.peak)°)")
        #expect(with.largestStep < 0.05, "largest step of the estimate after the stop: \(with.largestStep)°")
    }

    /// A step of the least positive `dt` (a caller's own clock, not `AttitudeEstimator`'s
    /// whole nanoseconds) in the middle of a turn the prediction follows: the drift's mean
    /// weighs the step's rate `Δu / dt` by `(1 − e^(−dt/T)) / dt`, which tends to `1/T`, so the
    /// estimate stays finite (`Δu · (1/dt)` is `0 · ∞` there) and the turn goes on as before.
    @Test func aVanishingStepKeepsTheEstimateFinite() {
        let omega = 2.0, dt = 0.01
        func up(_ t: Double) -> Vector3 { Vector3(0, sin(omega * t), cos(omega * t)) }
        func gyro() -> Vector3 { Vector3(1.01 * omega, 0, 0) }
        var filter = InertialFrameFilter(), reference = InertialFrameFilter()
        for k in 0...3000 {
            let t = Double(k) * dt
            _ = filter.update(accel: up(t) * standardGravity, gyro: gyro(), dt: dt)
            _ = reference.update(accel: up(t) * standardGravity, gyro: gyro(), dt: dt)
        }
        let t0 = 3000 * dt
        let tiny = filter.update(accel: up(t0) * standardGravity, gyro: gyro(), dt: .leastNonzeroMagnitude)
        #expect(tiny.isFinite)
        var estimate = tiny, expected = tiny
        for k in 1...100 {
            let t = t0 + Double(k) * dt
            estimate = filter.update(accel: up(t) * standardGravity, gyro: gyro(), dt: dt)
            expected = reference.update(accel: up(t) * standardGravity, gyro: gyro(), dt: dt)
        }
        #expect(estimate.isFinite)
        #expect(estimate.angle(to: expected) * 180 / Double.pi < 0.001, "\(estimate) against \(expected)")
    }
}
