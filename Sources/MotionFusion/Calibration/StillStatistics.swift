/// Averages of a still interval, the raw material of every calibration step.
public struct StillStatistics: Equatable, Sendable {
    /// Number of samples averaged.
    public var count: Int
    /// Mean specific force, m/s².
    public var meanAccel: Vector3
    /// Mean angular rate, rad/s (nil when no sample had a gyroscope): the gyro bias.
    public var meanGyro: Vector3?
    /// Per-axis standard deviation of the accelerometer, m/s² (a noise figure).
    public var accelStd: Vector3
    /// Per-axis standard deviation of the gyroscope, rad/s (zero without gyroscope).
    public var gyroStd: Vector3

    /// Averages `samples` (non-finite samples are skipped). Returns nil when none is usable.
    public init?(_ samples: some Collection<IMUSample>) {
        var n = 0, ng = 0
        var sa = Vector3.zero, sa2 = Vector3.zero, sg = Vector3.zero, sg2 = Vector3.zero
        for s in samples where s.accel.isFinite {
            n += 1
            sa = sa + s.accel
            sa2 = sa2 + s.accel.scaled(by: s.accel)
            if let g = s.gyro, g.isFinite {
                ng += 1
                sg = sg + g
                sg2 = sg2 + g.scaled(by: g)
            }
        }
        guard n > 0 else { return nil }
        func std(_ sum: Vector3, _ sum2: Vector3, _ k: Int) -> Vector3 {
            guard k > 0 else { return .zero }
            let m = sum / Double(k)
            let v = sum2 / Double(k) - m.scaled(by: m)
            return Vector3(max(0, v.x).squareRoot(), max(0, v.y).squareRoot(), max(0, v.z).squareRoot())
        }
        count = n
        meanAccel = sa / Double(n)
        meanGyro = ng > 0 ? sg / Double(ng) : nil
        accelStd = std(sa, sa2, n)
        gyroStd = std(sg, sg2, ng)
    }

    /// The gyro bias estimate from this interval, rad/s (the mean rate at rest).
    public var gyroBias: Vector3? { meanGyro }

    /// The neutral tilt this interval defines (the device's resting attitude), or nil when the
    /// mean acceleration is zero.
    public var neutralTilt: TiltEstimate? {
        guard meanAccel.normalized != nil else { return nil }
        return TiltEstimate(timeSeconds: 0, up: meanAccel)
    }
}
