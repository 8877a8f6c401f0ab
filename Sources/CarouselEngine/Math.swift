#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C math library is the only non-stdlib symbol the engine uses (sin, cos, tan, log, exp).
// It is part of libc, not an I/O facility, which is why docs/ARCHITECTURE.md "Modules (SwiftPM
// targets)" allows stdlib + libm: no I/O, no clock, no Foundation.

@inlinable func sine(_ x: Double) -> Double { sin(x) }
@inlinable func cosine(_ x: Double) -> Double { cos(x) }
@inlinable func tangent(_ x: Double) -> Double { tan(x) }
@inlinable func naturalLog(_ x: Double) -> Double { log(x) }
@inlinable func exponential(_ x: Double) -> Double { exp(x) }
