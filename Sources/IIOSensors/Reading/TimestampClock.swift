#if canImport(Glibc)
import Glibc
#endif

/// The clock that stamps an IIO device's buffer timestamps, from its `current_timestamp_clock`
/// attribute (kernel ≥ 4.10, names as `iio_device_set_clock` in the kernel accepts them), and
/// the offset that brings its stamps onto CLOCK_MONOTONIC (docs/SENSORS.md "Timestamps": never mix clocks).
enum TimestampClock: Equatable {
    /// A POSIX clock; stamps convert with `now(clock) − now(CLOCK_MONOTONIC)`.
    case posix(clockid_t)

    /// The clock named by `current_timestamp_clock`'s text, nil when the name is unknown.
    /// A device without the attribute (kernels before 4.10) stamps with CLOCK_REALTIME.
    /// The kernel prints the name with a newline and its terminating NUL (`monotonic\n\0`,
    /// seen on 6.1): both are trimmed.
    init?(attribute text: String?) {
        guard let text else { self = .posix(CLOCK_REALTIME); return }
        switch text.trimmingCharacters(in: " \t\n\0") {
        case "realtime": self = .posix(CLOCK_REALTIME)
        case "monotonic": self = .posix(CLOCK_MONOTONIC)
        case "monotonic_raw": self = .posix(CLOCK_MONOTONIC_RAW)
        case "realtime_coarse": self = .posix(CLOCK_REALTIME_COARSE)
        case "monotonic_coarse": self = .posix(CLOCK_MONOTONIC_COARSE)
        case "boottime": self = .posix(CLOCK_BOOTTIME)
        case "tai": self = .posix(CLOCK_TAI)
        default: return nil
        }
    }

    /// Whether stamps are already on CLOCK_MONOTONIC.
    var isMonotonic: Bool { self == .posix(CLOCK_MONOTONIC) }

    /// `now(clock) − now(CLOCK_MONOTONIC)` in nanoseconds (0 for CLOCK_MONOTONIC): subtract it
    /// from a stamp to get CLOCK_MONOTONIC. Read per batch, so a clock step (NTP, suspend for
    /// boottime) is followed.
    func offsetToMonotonic() -> Int64 {
        guard case let .posix(id) = self, id != CLOCK_MONOTONIC else { return 0 }
        return nanoseconds(id) &- nanoseconds(CLOCK_MONOTONIC)
    }

    private func nanoseconds(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}
