import CSystemd

/// The service watchdog, wrapping `sd_watchdog_enabled(3)`.
public enum Watchdog {
    /// The watchdog timeout systemd set (`WatchdogSec=`, passed as `WATCHDOG_USEC` for this
    /// process's `WATCHDOG_PID`), in microseconds; `nil` when no watchdog is armed, when the
    /// variables are meant for another process, or when they are malformed.
    ///
    /// Ping (`ServiceNotifier.watchdog()`) at half this interval, as sd_watchdog_enabled(3)
    /// recommends; that ping is the only periodic wake-up the daemon allows itself when idle.
    public static func timeoutMicroseconds() -> UInt64? {
        var usec: UInt64 = 0
        // unset_environment = 0: keep the variables, a reload may ask again.
        let result = sd_watchdog_enabled(0, &usec)
        return result > 0 && usec > 0 ? usec : nil
    }

    /// The interval at which to ping, in nanoseconds (half the timeout); `nil` without a watchdog.
    public static func pingIntervalNanoseconds() -> UInt64? {
        timeoutMicroseconds().map { $0 * 1000 / 2 }
    }
}
