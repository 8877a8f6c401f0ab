#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// `1 − e^(−x)`, the weight of a first-order low-pass step of `x = dt / τ`. Below 1e-3 it uses
/// the Taylor series `x − x²/2 + x³/6 − x⁴/24` (first omitted term < 1e-17), which is both
/// cheaper than `exp` in the per-sample path and more accurate than `1 − exp(−x)` for tiny `x`.
@inlinable func oneMinusExpNegative(_ x: Double) -> Double {
    if x < 1e-3 && x > -1e-3 {
        return x * (1 - x * (0.5 - x * (1.0 / 6 - x / 24)))
    }
    return 1 - exp(-x)
}
