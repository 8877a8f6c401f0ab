#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// A 3×3 rotation matrix, by rows, built from a rotation vector: what `InertialFrameFilter`
/// turns its sensor-frame states with, one gyro step at a time.
struct RotationMatrix: Sendable {
    var row0: Vector3, row1: Vector3, row2: Vector3

    /// The rotation by `|r|` radians about `r / |r|` (right hand), `exp([r]×)`, by Rodrigues'
    /// formula `I + (sin θ / θ) [r]× + ((1 − cos θ) / θ²) [r]×²`, `θ = |r|`, with
    /// `[r]×² = r rᵀ − θ² I`. Below θ = 0.01 rad the two factors are their Taylor series to θ⁴
    /// (first omitted terms < 1e-15 relative); above, `sin` and the half-angle form
    /// `2 sin²(θ/2) / θ²`. Equals `Quaternion(rotationVector: r).rotate(_:)` as a matrix.
    @inline(__always) init(rotationVector r: Vector3) {
        let theta2 = r.dot(r)
        let s: Double, c: Double
        if theta2 < 1e-4 {
            s = 1 - theta2 * (1.0 / 6) + theta2 * theta2 * (1.0 / 120)
            c = 0.5 - theta2 * (1.0 / 24) + theta2 * theta2 * (1.0 / 720)
        } else {
            let theta = theta2.squareRoot()
            let half = sin(0.5 * theta)
            s = sin(theta) / theta
            c = 2 * half * half / theta2
        }
        let diagonal = 1 - c * theta2
        let sx = s * r.x, sy = s * r.y, sz = s * r.z
        let cx = c * r.x, cy = c * r.y
        let cxy = cx * r.y, cxz = cx * r.z, cyz = cy * r.z
        row0 = Vector3(diagonal + cx * r.x, cxy - sz, cxz + sy)
        row1 = Vector3(cxy + sz, diagonal + cy * r.y, cyz - sx)
        row2 = Vector3(cxz - sy, cyz + sx, diagonal + c * r.z * r.z)
    }

    /// `R v`.
    @inline(__always) func apply(_ v: Vector3) -> Vector3 { Vector3(row0.dot(v), row1.dot(v), row2.dot(v)) }
}
