#if canImport(Glibc)
import Glibc
#endif

/// Reports a broken invariant of a fuzz target and aborts, which libFuzzer records as a crash
/// (the input is saved as `crash-<sha1>` for a regression test).
public func fuzzFailure(_ message: String) -> Never {
    let line = Array("fuzz invariant broken: \(message)\n".utf8)
    _ = line.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    abort()
}

/// Whether two finite numbers agree to `relative` (or both are within `relative` of zero): a
/// value written in degrees and read back in radians may differ in the last bit.
public func nearlyEqual(_ a: Double, _ b: Double, relative: Double = 1e-12) -> Bool {
    a == b || abs(a - b) <= relative * max(1, abs(a), abs(b))
}
