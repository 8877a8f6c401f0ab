#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// The inertial filter's gyro step is the two-sample coning-corrected rotation vector
/// `φ_k = Δθ_k + (1/12) Δθ_{k−1} × Δθ_k` (docs/FUSION.md §5).
@Suite struct ConingCorrectionTests {
    /// Classic coning: the attitude `R(t) = Rz(Ωt) Rx(α) Rz(−Ωt)` (sensor → earth). From
    /// `Rᵀ Ṙ = [ω]×` the body rate is `ω(t) = Ω (Rᵀ ẑ − ẑ) = Ω (−sin α sin Ωt, sin α cos Ωt, cos α − 1)`,
    /// and a gyro that reports the mean rate over each step reads
    /// `(sin α (cos Ωt₁ − cos Ωt₀), sin α (sin Ωt₁ − sin Ωt₀), Ω (cos α − 1) (t₁ − t₀)) / (t₁ − t₀)`.
    /// Gravity is along the earth's x (the cone's axis horizontal), so the up vector in the
    /// sensor frame is `Rᵀ x̂` and a drift about the cone's axis is a tilt error.
    ///
    /// Integrating `Δθ` alone drifts about the cone's axis by `(1/12) |Δθ|² sin(Ω dt)` per step,
    /// `|Δθ| = Ω sin α dt` (consecutive horizontal increments are `Ω dt` apart): at Ω = 2 Hz,
    /// α = 10°, 100 Hz that is 4.97e-6 rad per step, 1.71° after 60 s. The correction term is that
    /// cross product, so what is left is of third order (0.006° in an independent NumPy run).
    @Test func classicConingDoesNotDrift() {
        let omega = 2 * Double.pi * 2, alpha = 10 * Double.pi / 180, dt = 0.01, steps = 6000
        func up(_ t: Double) -> Vector3 {
            // Rᵀ x̂ = Rz(Ωt) Rx(−α) Rz(−Ωt) x̂.
            let c = cos(omega * t), s = sin(omega * t), ca = cos(alpha), sa = sin(alpha)
            let v = Vector3(c, -s, 0)                         // Rz(−Ωt) x̂
            let w = Vector3(v.x, ca * v.y, -sa * v.y)         // Rx(−α)
            return Vector3(c * w.x - s * w.y, s * w.x + c * w.y, w.z)  // Rz(Ωt)
        }
        func meanRate(_ t0: Double, _ t1: Double) -> Vector3 {
            let sa = sin(alpha), h = t1 - t0
            return Vector3(sa * (cos(omega * t1) - cos(omega * t0)) / h, sa * (sin(omega * t1) - sin(omega * t0)) / h,
                           omega * (cos(alpha) - 1))
        }
        var filter = InertialFrameFilter(gain: 0)  // gyro only: the integration alone
        filter.initialise(accel: up(0) * standardGravity)
        var estimate = up(0)
        for k in 1...steps {
            let t = Double(k) * dt
            estimate = filter.update(accel: up(t) * standardGravity, gyro: meanRate(t - dt, t), dt: dt)
        }
        let error = estimate.angle(to: up(Double(steps) * dt)) * 180 / Double.pi
        #expect(error < 0.02, "tilt error after 60 s of coning: \(error)°")
    }

    /// About a fixed axis the term vanishes: a constant rate gives exactly the rotation `ω dt`
    /// per step (1 rad/s about x for 1 s at 100 Hz turns the up vector (0, 0, 1) by −1 rad about x,
    /// `u̇ = u × ω`).
    @Test func fixedAxisIsUnchanged() {
        var filter = InertialFrameFilter(gain: 0)
        filter.initialise(accel: Vector3(0, 0, standardGravity))
        var estimate = Vector3(0, 0, 1)
        for _ in 0..<100 { estimate = filter.update(accel: Vector3(0, 0, standardGravity), gyro: Vector3(1, 0, 0), dt: 0.01) }
        #expect((estimate - Vector3(0, sin(1.0), cos(1.0))).length < 1e-12)
    }
}
