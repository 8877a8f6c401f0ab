#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

extension Vector3 {
    /// The unit vector in the same direction, or `nil` when the length is zero or not finite
    /// (a zero acceleration vector has no direction: callers report "no data").
    @inlinable public var normalized: Vector3? {
        let n = length
        guard n > 0, n.isFinite else { return nil }
        return self / n
    }

    /// Component-wise product (per-axis scale).
    @inlinable public func scaled(by s: Vector3) -> Vector3 { Vector3(x * s.x, y * s.y, z * s.z) }

    /// The angle between two non-zero vectors, radians in [0, π]. Uses `atan2(|a×b|, a·b)`,
    /// which stays accurate for small angles where `acos` loses precision.
    @inlinable public func angle(to b: Vector3) -> Double {
        atan2(cross(b).length, dot(b))
    }
}
