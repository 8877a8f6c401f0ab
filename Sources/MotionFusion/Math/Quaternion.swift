#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// A unit quaternion `w + xi + yj + zk` (Hamilton convention) used as an attitude: it rotates
/// sensor-frame vectors into the earth frame (z up), `v_earth = q ⊗ v_sensor ⊗ q*`, the
/// convention of the BROAD dataset and of x-io Fusion.
public struct Quaternion: Equatable, Sendable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Hamilton product `a ⊗ b` (apply `b` first, then `a`).
    @inlinable @inline(__always) public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// This quaternion scaled to unit norm; identity if the norm is zero or not finite.
    @inlinable @inline(__always) public var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        let inverse = 1 / n
        return Quaternion(w: w * inverse, x: x * inverse, y: y * inverse, z: z * inverse)
    }

    /// The rotation by `angle` radians about the unit vector `axis`.
    @inlinable public init(axis: Vector3, angle: Double) {
        let h = 0.5 * angle
        let s = sin(h)
        self.init(w: cos(h), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// The rotation `exp(½ ω dt)` of a body turning at the constant rate `ω` (rad/s, sensor
    /// frame) for `dt` seconds: the exact solution of `q̇ = ½ q ⊗ (0, ω)` over one step.
    @inlinable @inline(__always) public init(rotationVector r: Vector3) {
        let angle2 = r.dot(r)
        if angle2 < 1e-4 {
            // |r| < 0.01 rad (e.g. < 1 rad/s at 100 Hz): Taylor series of cos(h) and sin(h)/h,
            // h = |r|/2, truncated after h⁴; the first omitted terms are below 1e-16.
            let h2 = 0.25 * angle2
            // Multiplications by the constant reciprocals, not divisions: this is on the
            // sample-to-sample dependency chain of the filters, where a division's latency shows.
            let c = 1 - h2 * 0.5 + h2 * h2 * (1.0 / 24)
            let s = 0.5 * (1 - h2 * (1.0 / 6) + h2 * h2 * (1.0 / 120))
            self.init(w: c, x: r.x * s, y: r.y * s, z: r.z * s)
        } else {
            let angle = angle2.squareRoot()
            self.init(axis: r / angle, angle: angle)
        }
    }

    /// `v` rotated by this (unit) quaternion, `q ⊗ v ⊗ q*` (sensor frame → earth frame), as
    /// `v + 2w (u × v) + 2 u × (u × v)` with `u = (x, y, z)`: the rotation matrix `R(q) v`
    /// without forming the matrix.
    @inlinable @inline(__always) public func rotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// `v` rotated by the inverse of this (unit) quaternion, `q* ⊗ v ⊗ q` (earth frame →
    /// sensor frame): `R(q)ᵀ v`.
    @inlinable @inline(__always) public func inverseRotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = u.cross(v) * 2
        return v - t * w + u.cross(t)
    }

    /// The earth "up" axis (0, 0, 1) expressed in the sensor frame: the third row of the
    /// rotation matrix of `q`, `(2(xz − wy), 2(yz + wx), 1 − 2(x² + y²))`.
    @inlinable public var upInSensorFrame: Vector3 {
        Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    }

    /// The attitude with zero yaw whose up axis, in the sensor frame, is the unit vector `u`:
    /// the shortest-arc rotation taking `u` onto the earth's z axis.
    public init(up u: Vector3) {
        // Shortest arc from u to z = (0,0,1): axis u × z = (u.y, −u.x, 0), cos = u.z.
        // Half-angle form q = (1 + u.z, u × z) normalised avoids trig; degenerate at u = −z.
        let w = 1 + u.z
        if w < 1e-9 {
            self = Quaternion(w: 0, x: 1, y: 0, z: 0)  // upside down: half turn about x
        } else {
            self = Quaternion(w: w, x: u.y, y: -u.x, z: 0).normalized
        }
    }
}
