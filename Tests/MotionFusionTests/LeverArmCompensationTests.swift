#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionFusion

/// `LeverArmCompensator` and its use in `InertialFrameFilter`: the rotational acceleration of a
/// sensor away from the centre of rotation, `ω̇ × r + ω × (ω × r)`, checked against the cross
/// products written out, and removed from a synthetic spin at arm's length.
@Suite struct LeverArmCompensationTests {
    static let g = standardGravity

    /// Drives the compensator alone with exact innovations until it has fitted `r`.
    static func fitted(_ r: Vector3) -> LeverArmCompensator {
        var c = LeverArmCompensator(timeConstant: 0.1)
        let dt = 0.01
        // Turns about three different axes in turn (each ω at 2 rad/s for 1 s), so that every
        // component of r is seen.
        var previous: Vector3? = nil
        for k in 0..<300 {
            let t = Double(k) * dt
            let w = k < 100 ? Vector3(2, 0.3 * sin(t), 0) : k < 200 ? Vector3(0, 2, 0.3 * cos(t)) : Vector3(0.3 * sin(t), 0, 2)
            let d = previous.map { (w - $0) * (1 / dt) } ?? .zero
            previous = w
            let truth = d.cross(r) + w.cross(w.cross(r))
            let estimate = c.acceleration(omega: w, dt: dt)
            c.adapt(innovation: truth - estimate)
        }
        return c
    }

    @Test func fittedLeverArmGivesTheTangentialAndCentripetalAcceleration() {
        let r = Vector3(-0.5, 0.2, 0.1)
        var c = Self.fitted(r)
        #expect((c.leverArm - r).length < 1e-3, "fitted \(c.leverArm), truth \(r)")
        // ω from (1, 2, 3) to (1.1, 2, 3) rad/s in 0.01 s: ω̇ = (10, 0, 0) rad/s².
        _ = c.acceleration(omega: Vector3(1, 2, 3), dt: 0.01)
        let a = c.acceleration(omega: Vector3(1.1, 2, 3), dt: 0.01)
        let w = Vector3(1.1, 2, 3), d = Vector3(10, 0, 0), l = c.leverArm
        let expected = d.cross(l) + w.cross(w.cross(l))
        #expect((a - expected).length < 1e-12)
        // With r = (−0.5, 0.2, 0.1) exactly: ω̇ × r = (0, −1, 2); ω × r = (−0.4, −1.61, 1.22),
        // ω × (ω × r) = (7.27, −2.542, −0.971); the sum (7.27, −3.542, 1.029) m/s².
        let exact = d.cross(r) + w.cross(w.cross(r))
        #expect(abs(exact.x - 7.27) < 1e-12 && abs(exact.y + 3.542) < 1e-12 && abs(exact.z - 1.029) < 1e-12)
        #expect((a - exact).length < 0.05)
    }

    @Test func noRotationMeansNoCompensation() {
        var c = Self.fitted(Vector3(-0.5, 0.2, 0.1))
        _ = c.acceleration(omega: .zero, dt: 0.01)
        #expect(c.acceleration(omega: .zero, dt: 0.01) == .zero)
        c.reset()
        #expect(c.leverArm == .zero)
    }

    @Test func angularAccelerationIsBoundedAcrossJitteredTimestamps() {
        var c = Self.fitted(Vector3(-0.5, 0, 0))
        let r = c.leverArm
        _ = c.acceleration(omega: .zero, dt: 0.01)
        // 1 rad/s about z within 1 µs would be 10⁶ rad/s²; bounded to 1000: ω̇ × r along y.
        let a = c.acceleration(omega: Vector3(0, 0, 1), dt: 1e-6)
        let expected = Vector3(0, 0, 1000).cross(r) + Vector3(0, 0, 1).cross(Vector3(0, 0, 1).cross(r))
        #expect((a - expected).length < 1e-9)
    }

    /// A flat device spun about the vertical with its sensor 0.5 m from the axis: 1 s of spin-up
    /// at 3.5 rad/s², then 5 s at 3.5 rad/s (200 °/s, as the x-io recording's spin), 100 Hz.
    /// It reads gravity plus `ω × (ω × r) = (0.5 ω², 0, 0)` (6.1 m/s² at full rate) and
    /// `ω̇ × r = (0, −0.5 ω̇, 0)` while it speeds up.
    static func spin(filter: inout InertialFrameFilter) -> (worstTiltDegrees: Double, finalTiltDegrees: Double) {
        let r = Vector3(-0.5, 0, 0), dt = 0.01
        filter.initialise(accel: Vector3(0, 0, Self.g))
        for _ in 0..<500 { _ = filter.update(accel: Vector3(0, 0, Self.g), gyro: .zero, dt: dt) }
        var worst = 0.0, last = 0.0
        for k in 1...600 {
            let rate = min(3.5, 3.5 * Double(k) * dt), spinUp = k <= 100 ? 3.5 : 0
            let w = Vector3(0, 0, rate), d = Vector3(0, 0, spinUp)
            let accel = Vector3(0, 0, Self.g) + d.cross(r) + w.cross(w.cross(r))
            let up = filter.update(accel: accel, gyro: w, dt: dt)
            last = acos(min(1, up.z)) * 180 / .pi
            worst = max(worst, last)
        }
        return (worst, last)
    }

    @Test func aSpinAtArmsLengthLeavesTheTiltFlat() {
        // A fixed 2 s low-pass (this is about the compensation, not the time constant's rule).
        var compensated = InertialFrameFilter(disturbanceSeconds: 0, minTimeConstant: 2, maxTimeConstant: 2, leverArmTimeConstant: 0.3)
        let with = Self.spin(filter: &compensated)
        // r is fitted across the spin axis (along it a spin about z says nothing: r.z stays 0).
        #expect(abs(compensated.leverArm.x + 0.5) < 0.005 && abs(compensated.leverArm.y) < 0.005 && abs(compensated.leverArm.z) < 1e-9,
                "lever arm \(compensated.leverArm)")
        // What leaks into the low-pass before r is fitted (in the first tenths of a second of
        // the spin-up) decays with the low-pass.
        #expect(with.finalTiltDegrees < 0.3 && with.worstTiltDegrees < 1.5, "with compensation: \(with)")
        var plain = InertialFrameFilter(disturbanceSeconds: 0, minTimeConstant: 2, maxTimeConstant: 2, leverArmTimeConstant: 0)
        let without = Self.spin(filter: &plain)
        #expect(plain.leverArm == .zero)
        // Without it the rotating centripetal acceleration keeps the estimate off.
        #expect(without.finalTiltDegrees > 1 && without.finalTiltDegrees > 5 * with.finalTiltDegrees, "without: \(without), with: \(with)")
    }

    /// Hostile input through the default estimator and its inertial filter: timestamps 1 µs to
    /// 0.4 s apart, rates up to ±35 rad/s (2000 °/s, a gyro's full scale) switching sign every
    /// sample, accelerations up to ±16 g; interleaved non-finite gyro values and samples without
    /// gyro. Every estimate is finite with a unit up vector, and the lever arm stays within its
    /// 2 m bound.
    @Test func hostileSamplesKeepTheEstimateFiniteAndTheLeverArmBounded() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {  // xorshift64*, uniform in [−1, 1)
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return Double((state &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 52) - 1
        }
        var samples: [IMUSample] = []
        var t: Int64 = 0
        for k in 0..<20_000 {
            t += k % 97 == 0 ? 400_000_000 : (k % 3 == 0 ? 1_000 : 5_000_000)
            let accel = Vector3(next() * 16 * Self.g, next() * 16 * Self.g, Self.g + next() * 16 * Self.g)
            let gyro: Vector3? = k % 50 == 0 ? nil : k % 71 == 0 ? Vector3(.nan, 0, .infinity)
                : Vector3(35 * (k.isMultiple(of: 2) ? 1 : -1), next() * 35, next() * 35)
            samples.append(IMUSample(timestampNanoseconds: t, accel: accel, gyro: gyro))
        }
        var estimator = AttitudeEstimator()
        var worstLength = 0.0, estimates = 0
        for sample in samples {
            guard let e = estimator.update(sample) else { continue }
            #expect(e.up.isFinite && e.rollDegrees.isFinite && e.pitchDegrees.isFinite)
            worstLength = max(worstLength, abs(e.up.length - 1))
            estimates += 1
        }
        #expect(estimates == samples.count && worstLength < 1e-9)
        var filter = InertialFrameFilter(leverArmTimeConstant: 0.3)
        var longest = 0.0
        for (previous, sample) in zip(samples, samples.dropFirst()) {
            let up = filter.update(accel: sample.accel, gyro: sample.gyro, dt: sample.timeSeconds - previous.timeSeconds)
            #expect(up.isFinite)
            longest = max(longest, filter.leverArm.length)
        }
        #expect(longest > 0 && longest <= 2 + 1e-12, "longest lever arm \(longest) m")
    }
}
