/// The stale rule (docs/SENSORS.md "Modes and fallbacks": "no sample for 5 expected periods"), a pure function of the
/// times it is given, so it is tested with a scripted clock.
///
/// Time runs in silence windows of 5 expected periods from the last sample: the end of the
/// first window makes the source `stale`, and each further window is one more step for the
/// source to try (an IIO buffer is re-enabled at the first, replaced by polling at the
/// second). A sample starts over.
struct SilenceWatch: Equatable {
    /// Expected periods without a sample before the source is stale.
    static let periods: Int64 = 5

    /// The expected interval between samples, nanoseconds (> 0).
    private(set) var periodNanoseconds: Int64
    /// When the last sample arrived (or the watch started), nanoseconds.
    private(set) var lastSampleNanoseconds: Int64
    /// Silence windows that ended since the last sample.
    private(set) var silentWindows = 0
    /// When the current window ends, nanoseconds (for a timer that must wake the source then).
    private(set) var deadline: Int64

    init(periodNanoseconds: Int64, now: Int64) {
        self.periodNanoseconds = max(periodNanoseconds, 1)
        lastSampleNanoseconds = now
        deadline = now &+ self.periodNanoseconds &* Self.periods
    }

    /// One window, nanoseconds: 5 periods.
    var windowNanoseconds: Int64 { periodNanoseconds &* Self.periods }

    /// Whether no window has ended since the last sample.
    var isQuiet: Bool { silentWindows == 0 }

    /// A sample arrived at `now`: the silence is over.
    mutating func sampleArrived(now: Int64) {
        lastSampleNanoseconds = now
        silentWindows = 0
        deadline = now &+ windowNanoseconds
    }

    /// Starts over at `now` with another period (the device's rate changed, a new reader).
    mutating func restart(periodNanoseconds: Int64, now: Int64) {
        self = SilenceWatch(periodNanoseconds: periodNanoseconds, now: now)
    }

    /// The next step waits at least `nanoseconds` from `now` (a re-enabled buffer's start-up
    /// allowance, `FirstSampleWait`), or the current window's end if that is later.
    mutating func allow(nanoseconds: Int64, now: Int64) {
        let end = now.addingReportingOverflow(nanoseconds)
        deadline = max(deadline, end.overflow ? .max : end.partialValue)
    }

    /// The silence at `now`: the number of the window that has just ended (1 = stale) and the
    /// milliseconds since the last sample, or nil when no window ended since the last call.
    /// The next window is measured from `now`, so each step gets its full 5 periods, and
    /// several windows slept through at once count as one step (a late check never skips the
    /// re-enable).
    mutating func check(now: Int64) -> (window: Int, silentMilliseconds: Int64)? {
        guard now >= deadline else { return nil }
        silentWindows += 1
        deadline = now &+ windowNanoseconds
        return (silentWindows, (now &- lastSampleNanoseconds) / 1_000_000)
    }
}

/// What an IIO source does when a silence window ends, by its read mode: a polled device is
/// only marked stale (re-reading `*_raw` needs nothing re-armed); a silent buffer is re-enabled
/// once (a resume can leave it wedged), then given up for polling.
enum SilenceStep: Equatable {
    case markStale
    case reenableBuffer
    case fallBackToPolled

    /// The step for the `window`-th silence window (1-based) of a device read in `mode`.
    init(window: Int, mode: ReadMode) {
        switch mode {
        case .polled: self = .markStale
        case .buffered: self = window <= 1 ? .reenableBuffer : .fallBackToPolled
        }
    }
}

/// How long a freshly enabled buffer may take to deliver its first scan before it is taken for
/// one that never fills (docs/SENSORS.md "Modes and fallbacks"): 1 s, or 5 expected periods
/// when those are longer. A device that powers up (a HID sensor hub) delivers well within it.
/// A buffer re-enabled after a silence gets the same allowance before it is given up for
/// polling: after a resume the silence is the time devices took to suspend and resume (the
/// daemon was frozen meanwhile), and a HID sensor powers up again from a work queue after the
/// thaw, so 5 periods (50 ms at 100 Hz) would give a working buffer up every time.
enum FirstSampleWait {
    static let minimumNanoseconds: Int64 = 1_000_000_000

    /// The wait for a device whose expected period is `periodNanoseconds`.
    static func nanoseconds(periodNanoseconds: Int64) -> Int64 {
        max(minimumNanoseconds, periodNanoseconds.multipliedReportingOverflow(by: SilenceWatch.periods).overflow
            ? .max : periodNanoseconds * SilenceWatch.periods)
    }

    /// A silence at least this long when the watchdog first sees it (whose window is 5 periods)
    /// means the daemon itself did not run meanwhile: the system slept, its devices suspended.
    static let sleepSilenceNanoseconds: Int64 = 2_000_000_000
    /// The wait for a buffer re-enabled after such a silence: a HID sensor hub powers its sensors
    /// up again from a work queue after the thaw, over its transport's round trips, and the
    /// system suite's uhid hub under QEMU took over 1 s for it (carouseld fell back to polled
    /// mode, for good, after one resume).
    static let afterSleepNanoseconds: Int64 = 5_000_000_000

    /// The wait for a buffer re-enabled after `silentNanoseconds` without a sample.
    static func nanoseconds(afterSilence silentNanoseconds: Int64, periodNanoseconds: Int64) -> Int64 {
        let wait = nanoseconds(periodNanoseconds: periodNanoseconds)
        return silentNanoseconds >= sleepSilenceNanoseconds ? max(wait, afterSleepNanoseconds) : wait
    }
}
