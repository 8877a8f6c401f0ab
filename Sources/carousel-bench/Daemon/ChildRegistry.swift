import Glibc

/// The daemons this benchmark started, so that SIGINT/SIGTERM (Ctrl-C, a timeout) stops them
/// instead of leaving them running. A fixed table of pids read by an async-signal-safe handler
/// (only `kill` and `_exit`).
enum ChildRegistry {
    static let capacity = 16
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<pid_t> = {
        let p = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()

    static func add(_ pid: pid_t) {
        for i in 0..<capacity where slots[i] == 0 { slots[i] = pid; return }
    }

    static func remove(_ pid: pid_t) {
        for i in 0..<capacity where slots[i] == pid { slots[i] = 0 }
    }

    /// Installs the handler for SIGINT and SIGTERM: SIGTERM to every registered child, then exit
    /// with 128 + the signal number.
    static func installSignalHandlers() {
        _ = slots
        let handler: @convention(c) (Int32) -> Void = { signal in
            for i in 0..<ChildRegistry.capacity where ChildRegistry.slots[i] != 0 {
                kill(ChildRegistry.slots[i], SIGTERM)
            }
            _exit(128 + signal)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}
