import CLinux
import Glibc

/// The clocks a benchmark reads. Wall time is CLOCK_MONOTONIC (what the daemon timestamps
/// with); CPU time is either this thread's (CLOCK_THREAD_CPUTIME_ID, for in-process loops) or
/// another process's, from /proc (see `ProcessProbe`).
enum BenchClock {
    /// CLOCK_MONOTONIC, nanoseconds.
    static func monotonicNanoseconds() -> Int64 { clinux_monotonic_ns() }

    /// CPU time consumed by the calling thread, nanoseconds (CLOCK_THREAD_CPUTIME_ID).
    static func threadCPUNanoseconds() -> Int64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// User + system CPU time of the whole process (getrusage RUSAGE_SELF), nanoseconds.
    static func processCPUNanoseconds() -> Int64 {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func ns(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_usec) * 1000 }
        return ns(usage.ru_utime) + ns(usage.ru_stime)
    }
}

/// Keeps a value alive so the optimiser cannot delete the loop that computed it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
