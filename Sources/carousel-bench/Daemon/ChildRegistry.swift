import Glibc

/// The daemons this benchmark started and the temporary directories it made, so that SIGINT or
/// SIGTERM (Ctrl-C, a timeout) stops the daemons and removes the directories instead of leaving
/// them behind. Fixed tables read by an async-signal-safe handler: it only calls `kill` and
/// `execv` (of `/bin/sh -c 'rm -rf -- "$@"; exit N'`, which removes the directories and exits
/// with 128 + the signal number), or `_exit` when there is nothing to remove.
enum ChildRegistry {
    static let capacity = 16
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<pid_t> = {
        let p = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()
    /// Directories to remove, as C strings allocated at registration (nil: free slot).
    static let directoryCapacity = 8
    nonisolated(unsafe) static let directories: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: directoryCapacity)
        p.initialize(repeating: nil, count: directoryCapacity)
        return p
    }()
    /// The handler's `execv` argument vector: sh, -c, script, exit status, directories, nil.
    nonisolated(unsafe) static let arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: directoryCapacity + 5)
        p.initialize(repeating: nil, count: directoryCapacity + 5)
        p[0] = strdup("/bin/sh")
        p[1] = strdup("-c")
        p[2] = strdup("rm -rf -- \"$@\"; exit \"$0\"")
        return p
    }()
    nonisolated(unsafe) static let interruptedStatus = strdup("130")
    nonisolated(unsafe) static let terminatedStatus = strdup("143")

    static func add(_ pid: pid_t) {
        for i in 0..<capacity where slots[i] == 0 { slots[i] = pid; return }
    }

    static func remove(_ pid: pid_t) {
        for i in 0..<capacity where slots[i] == pid { slots[i] = 0 }
    }

    /// Removes `path` (recursively) if the benchmark is interrupted before `removeDirectory`.
    static func removeOnInterrupt(_ path: String) {
        for i in 0..<directoryCapacity where directories[i] == nil {
            directories[i] = strdup(path)
            return
        }
    }

    /// The benchmark removed `path` itself.
    static func forgetDirectory(_ path: String) {
        for i in 0..<directoryCapacity {
            guard let p = directories[i], String(cString: p) == path else { continue }
            directories[i] = nil
            free(p)
        }
    }

    /// Installs the handler for SIGINT and SIGTERM: SIGTERM to every registered child, then the
    /// registered directories removed, then exit with 128 + the signal number.
    static func installSignalHandlers() {
        _ = slots
        _ = directories
        _ = arguments
        _ = interruptedStatus
        _ = terminatedStatus
        let handler: @convention(c) (Int32) -> Void = { signal in
            for i in 0..<ChildRegistry.capacity where ChildRegistry.slots[i] != 0 {
                kill(ChildRegistry.slots[i], SIGTERM)
            }
            let argv = ChildRegistry.arguments
            var n = 4
            for i in 0..<ChildRegistry.directoryCapacity {
                if let d = ChildRegistry.directories[i] { argv[n] = d; n += 1 }
            }
            if n > 4 {
                argv[3] = signal == SIGINT ? ChildRegistry.interruptedStatus : ChildRegistry.terminatedStatus
                argv[n] = nil
                execv("/bin/sh", argv)
            }
            _exit(128 + signal)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}
