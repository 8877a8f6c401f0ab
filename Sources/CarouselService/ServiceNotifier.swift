import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager about the daemon's state, wrapping `sd_notify(3)` (libsystemd).
///
/// With `Type=notify` (or `notify-reload`) systemd considers the service started only after
/// `READY=1`, shows `STATUS=` in `systemctl status`, and, with `WatchdogSec=`, restarts it when
/// `WATCHDOG=1` stops arriving. Outside systemd (`NOTIFY_SOCKET` unset) every call is a
/// harmless no-op that returns `false`.
public struct ServiceNotifier: Sendable {
    private let send: @Sendable (String) -> Bool

    /// A notifier that sends through `sd_notify(0, state)`.
    public static let systemd = ServiceNotifier { state in sd_notify(0, state) > 0 }

    /// A notifier that hands each state string to `send` (for tests); `send` returns whether
    /// the message was delivered.
    public init(send: @escaping @Sendable (String) -> Bool) {
        self.send = send
    }

    /// Sends a raw state string (newline-separated `KEY=value` assignments).
    /// - Returns: `true` when it was sent, `false` when not under systemd or on error.
    @discardableResult
    public func notify(_ state: String) -> Bool { send(state) }

    /// `READY=1`, with an optional `STATUS=` line: start-up is complete (the socket listens).
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        notify("READY=1" + (status.map { "\nSTATUS=" + Self.oneLine($0) } ?? ""))
    }

    /// `STATUS=…`: a one-line, human-readable state for `systemctl status`.
    @discardableResult
    public func status(_ text: String) -> Bool { notify("STATUS=" + Self.oneLine(text)) }

    /// `WATCHDOG=1`: the event loop is alive. Send at least every `watchdogInterval / 2`.
    @discardableResult
    public func watchdog() -> Bool { notify("WATCHDOG=1") }

    /// `STOPPING=1`: shutdown has begun.
    @discardableResult
    public func stopping(status: String? = nil) -> Bool {
        notify("STOPPING=1" + (status.map { "\nSTATUS=" + Self.oneLine($0) } ?? ""))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=`: a reload (SIGHUP) has begun. `Type=notify-reload`
    /// (systemd ≥ 253) needs the CLOCK_MONOTONIC time in microseconds at which reloading started;
    /// send `ready()` again when it is done.
    /// - Parameter monotonicMicroseconds: `clock_gettime(CLOCK_MONOTONIC)` in µs; `nil` reads it now.
    @discardableResult
    public func reloading(monotonicMicroseconds: UInt64? = nil) -> Bool {
        let usec = monotonicMicroseconds ?? currentMonotonicMicroseconds()
        return notify("RELOADING=1\nMONOTONIC_USEC=\(usec)")
    }

    /// Whether a notification socket is set (the process runs under systemd with `Type=notify`).
    public static var isNotifySocketSet: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// A status line must not contain newlines: they would start a new assignment.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

/// Now on CLOCK_MONOTONIC in microseconds, the clock of systemd's `MONOTONIC_USEC=`.
private func currentMonotonicMicroseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1000
}
