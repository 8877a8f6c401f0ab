import MotionFusion

/// Whether gyroscope and accelerometer agree in sign on each axis (docs/FUSION.md "2. Mount matrix": a mount matrix
/// applied to the gyro without `det(M)`, or a driver with a flipped axis, makes tilt fight the
/// gyro). Needs a recording with rotation; used by `calibrate` on six-position recordings.
///
/// Kinematics: the up vector `u` (unit specific force at low acceleration) is fixed in the world,
/// so in the device frame it turns against the device: `du/dt = u × ω`. Crossing with `u` gives
/// the part of `ω` perpendicular to `u` from the accelerometer alone:
/// `ω⊥(accel) = du/dt × u`, while the gyroscope gives `ω⊥(gyro) = ω − u (u·ω)`. (Rotation about
/// the vertical is invisible to the accelerometer, hence the perpendicular parts.) Per axis the
/// two series are correlated over the samples where the device turns (|ω⊥(gyro)| above
/// `minimumRate`) and is not accelerating much (|a| within `accelTolerance` of g). Both signals
/// go through the same low-pass (MotionFusion's `VectorLowPass`), so the filter's lag cancels.
///
/// Defaults measured on the datasets: 2 Hz and |a| within 5 % of g separate rotation from
/// handling well (x-io example: r = 0.97 on x, 0.96 on y; BROAD slow rotation: 0.90, 0.94, 0.89),
/// while 5 Hz and 20 % let linear acceleration through (x-io x fell to 0.73). Lifting without
/// turning (the NCSU captures) gives scattered signs on a few hundred samples, hence the
/// 200-sample and |r| ≥ 0.7 requirements before any verdict.
public struct GyroAccelAgreement: Sendable {
    /// Low-pass cutoff applied to both sensors before differencing, Hz.
    public var cutoffHz: Double = 2
    /// Turning rate below which a sample says nothing, rad/s.
    public var minimumRate: Double = 0.2
    /// Largest relative deviation of |a| from g for a sample to count (linear acceleration).
    public var accelTolerance: Double = 0.05
    /// Samples needed on an axis before judging it.
    public var minimumSamples: Int = 200
    /// |correlation| needed for a verdict.
    public var minimumCorrelation: Double = 0.7

    public init() {}

    public enum Verdict: String, Sendable, Equatable {
        case agree, disagree, undetermined
    }

    /// The finding for one axis.
    public struct Axis: Sendable, Equatable {
        public var name: String
        /// Normalised correlation of ω⊥(accel) and ω⊥(gyro) on this axis, nil without data.
        public var correlation: Double?
        /// Samples that took part.
        public var samples: Int
        public var verdict: Verdict
    }

    /// Accumulated sums, so several captures can be judged together.
    public struct Sums: Sendable, Equatable {
        var sxy = [0.0, 0.0, 0.0], sxx = [0.0, 0.0, 0.0], syy = [0.0, 0.0, 0.0]
        var count = [0, 0, 0]
        public init() {}
    }

    /// Adds one continuous capture (samples without a gyroscope are skipped).
    public func accumulate(_ samples: [IMUSample], into sums: inout Sums) {
        var accelFilter = VectorLowPass(cutoffHz: cutoffHz)
        var gyroFilter = VectorLowPass(cutoffHz: cutoffHz)
        var previous: (t: Double, u: Vector3)?
        for s in samples {
            guard let rawGyro = s.gyro, s.accel.isFinite, rawGyro.isFinite else { previous = nil; continue }
            let t = s.timeSeconds
            guard let a = accelFilter.update(s.accel, at: t), let w = gyroFilter.update(rawGyro, at: t),
                  let u = a.normalized else { previous = nil; continue }
            defer { previous = (t, u) }
            guard let p = previous, t > p.t, t - p.t < 0.2 else { continue }
            guard abs(a.length / standardGravity - 1) <= accelTolerance else { continue }
            let du = (u - p.u) / (t - p.t)
            let fromAccel = du.cross(u)
            let fromGyro = w - u * u.dot(w)
            guard fromGyro.length >= minimumRate else { continue }
            let x = [fromAccel.x, fromAccel.y, fromAccel.z], y = [fromGyro.x, fromGyro.y, fromGyro.z]
            for i in 0..<3 {
                sums.sxy[i] += x[i] * y[i]
                sums.sxx[i] += x[i] * x[i]
                sums.syy[i] += y[i] * y[i]
                sums.count[i] += 1
            }
        }
    }

    /// Verdicts per axis from accumulated sums. An axis whose gyro component stays below half
    /// `minimumRate` on average (never turned about) is `undetermined`.
    public func verdicts(_ sums: Sums) -> [Axis] {
        (0..<3).map { i in
            let name = ["x", "y", "z"][i]
            let n = sums.count[i]
            guard n >= minimumSamples, sums.sxx[i] > 0, sums.syy[i] > 0 else {
                return Axis(name: name, correlation: nil, samples: n, verdict: .undetermined)
            }
            let r = sums.sxy[i] / (sums.sxx[i] * sums.syy[i]).squareRoot()
            let excited = (sums.syy[i] / Double(n)).squareRoot() >= minimumRate / 2
            let verdict: Verdict = !excited ? .undetermined : (r >= minimumCorrelation ? .agree : (r <= -minimumCorrelation ? .disagree : .undetermined))
            return Axis(name: name, correlation: r, samples: n, verdict: verdict)
        }
    }

    /// Convenience: verdicts for one capture.
    public func check(_ samples: [IMUSample]) -> [Axis] {
        var sums = Sums()
        accumulate(samples, into: &sums)
        return verdicts(sums)
    }
}
