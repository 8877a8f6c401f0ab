#if canImport(Glibc)
import Glibc
#endif
import MotionFusion

/// A generated recording of a device held at a fixed elevation and turned in its screen plane
/// between portrait and landscape: the "generated portrait/landscape sequence" of the orientation
/// tests and of docs/ORIENTATION.md.
///
/// Held still for `holdSeconds`, then turned by +90° about the screen normal in `turnSeconds`
/// with the rate profile of `φ(τ) = 90° · (1 − cos πτ) / 2`, `turns` times: normal → right-up →
/// bottom-up → left-up → normal (the up vector's in-plane angle θ = atan2(u_x, u_y) grows by 90°
/// per turn). With `u = (cos e sin φ, cos e cos φ, sin e)`, a fixed world vector seen from a frame
/// turning at ω about z changes as `u̇ = −ω × u`, so the gyroscope reads `ω = (0, 0, φ̇)`.
/// Accelerometer: `9.81 · u` m/s² (specific force, face up +z); no noise.
public struct TurningRecording {
    public var samples: [IMUSample] = []
    /// Seconds from the first sample at which each turn ends (the device is at rest again).
    public var turnEndSeconds: [Double] = []
    /// The orientation held after each turn, in order.
    public var orientationsAfterTurns: [String] = []

    public init(elevationDegrees: Double = 45, holdSeconds: Double = 3, turnSeconds: Double = 0.5, turns: Int = 4,
                rateHz: Double = 100) {
        let names = ["normal", "right-up", "bottom-up", "left-up"]
        let e = elevationDegrees * Double.pi / 180
        let dt = 1 / rateHz
        let quarter = Double.pi / 2
        let total = holdSeconds + Double(turns) * (turnSeconds + holdSeconds)
        let count = Int((total * rateHz).rounded())
        for k in 0...count {
            let t = Double(k) * dt
            // Which phase: hold before turn i, or inside turn i.
            let period = turnSeconds + holdSeconds
            var phi = 0.0, rate = 0.0
            let sinceFirst = t - holdSeconds
            if sinceFirst > 0 {
                let done = min(Int(sinceFirst / period), turns)
                phi = Double(done) * quarter
                let within = sinceFirst - Double(done) * period
                if done < turns, within < turnSeconds {
                    let tau = within / turnSeconds
                    phi += quarter * (1 - cos(Double.pi * tau)) / 2
                    rate = quarter * Double.pi * sin(Double.pi * tau) / (2 * turnSeconds)
                } else if done < turns {
                    phi += quarter  // holding after turn `done`
                }
            }
            let u = Vector3(cos(e) * sin(phi), cos(e) * cos(phi), sin(e))
            samples.append(IMUSample(timestampNanoseconds: Int64((t * 1e9).rounded()), accel: u * 9.81,
                                     gyro: Vector3(0, 0, rate)))
        }
        for i in 0..<turns {
            turnEndSeconds.append(holdSeconds + Double(i) * (turnSeconds + holdSeconds) + turnSeconds)
            orientationsAfterTurns.append(names[(i + 1) % 4])
        }
    }

    /// The samples as a native recording (`timestamp_ns,accel_x,…,gyro_z`, docs/FUSION.md).
    public var nativeCSV: String {
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for s in samples {
            let g = s.gyro ?? .zero
            text += "\(s.timestampNanoseconds),\(s.accel.x),\(s.accel.y),\(s.accel.z),\(g.x),\(g.y),\(g.z)\n"
        }
        return text
    }
}
