#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// The inertial filter moves the gravity of each accelerometer sample from the middle of its
/// step to the end by the sustained rate of turn (`InertialFrameFilter.accelerometerDelay`,
/// docs/FUSION.md §5).
///
/// The device tumbles about its x axis, which is horizontal, at a constant `Ω` with no linear
/// acceleration. From `u̇ = u × ω` with `ω = (Ω, 0, 0)` the up vector in the sensor frame is
/// `u(t) = (0, sin Ωt, cos Ωt)`. About a fixed axis the gyro step is exact, so the strapdown
/// frame is right at the end of every step, and in it the up vector stays put.
@Suite struct AccelerometerDelayTests {
    static let omega = 2.0, dt = 0.01, seconds = 40.0

    static func up(_ t: Double) -> Vector3 { Vector3(0, sin(omega * t), cos(omega * t)) }

    /// The mean of `g u(t)` over the step `[t − dt, t]`: what an accelerometer that reports the
    /// mean specific force of its step reads. It points at `u(t − dt/2)`: half a step behind.
    static func meanOverStep(_ t: Double) -> Vector3 {
        let a = omega * (t - dt), b = omega * t, h = omega * dt
        return Vector3(0, (cos(a) - cos(b)) / h, (sin(b) - sin(a)) / h) * standardGravity
    }

    /// The tilt error after `seconds` of tumbling, degrees.
    static func finalError(_ filter: inout InertialFrameFilter, accel: (Double) -> Vector3) -> Double {
        filter.initialise(accel: accel(0))
        var estimate = up(0)
        let steps = Int(seconds / dt)
        for k in 1...steps { estimate = filter.update(accel: accel(Double(k) * dt), gyro: Vector3(omega, 0, 0), dt: dt) }
        return estimate.angle(to: up(Double(steps) * dt)) * 180 / Double.pi
    }

    /// Without the correction the low-pass settles on gravity half a step back: a steady error
    /// of `Ω dt / 2` = 0.01 rad = 0.5730°. With the default half step it is gone to the part of
    /// the sustained rate not yet learned, `e^(−40/5)` of that (0.0002°), and the second-order
    /// terms (`(Ω dt)³`, below 1e-6 rad).
    @Test func meanOverStepSamplesAreMovedToTheEndOfTheStep() {
        var plain = InertialFrameFilter(accelerometerDelay: 0)
        let uncorrected = Self.finalError(&plain, accel: Self.meanOverStep)
        #expect(abs(uncorrected - 0.5730) < 0.001, "uncorrected: \(uncorrected)°")

        var corrected = InertialFrameFilter()
        #expect(corrected.accelerometerDelay == 0.5)
        let error = Self.finalError(&corrected, accel: Self.meanOverStep)
        #expect(error < 0.002, "corrected: \(error)°")
        // The sustained rate is the tumble's own, in the sensor frame (about x throughout).
        #expect((corrected.sustainedRate - Vector3(Self.omega, 0, 0)).length < Self.omega * 0.001)
    }

    /// An accelerometer that samples at the end of its step (a point sample) needs no
    /// correction; the default then leads by half a step, the same 0.5730° the other way,
    /// which is why the delay is a parameter.
    @Test func pointSamplesNeedNoDelay() {
        var none = InertialFrameFilter(accelerometerDelay: 0)
        let exact = Self.finalError(&none, accel: { Self.up($0) * standardGravity })
        #expect(exact < 1e-6)
        var half = InertialFrameFilter()
        let leading = Self.finalError(&half, accel: { Self.up($0) * standardGravity })
        #expect(abs(leading - 0.5730) < 0.002, "default on point samples: \(leading)°")
    }
}
