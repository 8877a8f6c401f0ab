import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A built executable (usually `carouseld`) started with `posix_spawn` for an end-to-end test,
/// its standard error captured in a file.
public final class DaemonProcess {
    public let pid: pid_t
    /// Where standard error (and output) goes.
    public let logPath: String
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; `environment` entries are added to (or replace)
    /// this process's environment. `inheritedListener`, when given, becomes the child's fd 3
    /// (as systemd passes a `.socket` unit's listening socket; `dup2` clears close-on-exec
    /// there, the caller's own copy keeps it).
    public init(executable: String, arguments: [String], environment: [String: String] = [:], logPath: String,
                inheritedListener: Int32? = nil) throws {
        self.logPath = logPath
        var env: [String: String] = [:]
        var p = Glibc.environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            p += 1
        }
        for (k, v) in environment { env[k] = v }
        // systemd variables of the test runner must not leak into the daemon.
        for k in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "WATCHDOG_PID"] where environment[k] == nil {
            env[k] = nil
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        if let inheritedListener { posix_spawn_file_actions_adddup2(&actions, inheritedListener, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test runner may block signals; the daemon must start with a clean mask and defaults.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for a in argv { free(a) }
            for e in envp { free(e) }
        }
        var child: pid_t = 0
        let r = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard r == 0 else { throw TestSupportError("posix_spawn \(executable): errno \(r)") }
        pid = child
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = try? wait(timeoutSeconds: 5)
        }
    }

    /// The captured standard error so far.
    public var log: String { readTextFile(logPath) ?? "" }

    /// Waits until the captured log contains `text`, woken by inotify when the log file changes
    /// (no sleeping poll), and returns the log.
    /// - Throws: when `timeoutSeconds` pass first (the error carries the log's tail).
    @discardableResult
    public func waitForLog(containing text: String, timeoutSeconds: Double = 10) throws -> String {
        try waitForLog("'\(text)'", timeoutSeconds: timeoutSeconds) { $0.contains(text) }
    }

    /// Waits until `condition` holds for the captured log, checked at once and again whenever the
    /// log file changes (inotify; no sleeping poll), and returns the log it held for.
    /// - Parameter description: what is awaited, for the error, e.g. "the 7th 'lost the broker'".
    /// - Throws: when `timeoutSeconds` pass first; the error names `description` and carries the
    ///   log's tail.
    @discardableResult
    public func waitForLog(_ description: String, timeoutSeconds: Double = 10,
                           until condition: (String) -> Bool) throws -> String {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        let notify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        defer { if notify >= 0 { close(notify) } }
        if notify >= 0 { _ = inotify_add_watch(notify, logPath, UInt32(IN_MODIFY)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let current = log
            if condition(current) { return current }
            let remainingMs = (deadline - clinux_monotonic_ns()) / 1_000_000
            guard remainingMs > 0 else {
                throw TestSupportError("no \(description) in the log after \(timeoutSeconds) s; log: \(current.suffix(600))")
            }
            var fds = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
            // Without inotify, fall back to a 10 ms tick bounded by the deadline.
            _ = notify >= 0 ? poll(&fds, 1, Int32(min(remainingMs, 1000))) : poll(nil, 0, 10)
            if notify >= 0 { _ = read(notify, &buffer, buffer.count) }
        }
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Whether the process has exited (reaps it).
    public var hasExited: Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exitStatus = Self.decode(status); return true }
        return false
    }

    /// Waits for the exit and returns the exit code (128 + signal when killed).
    /// - Throws: when it does not exit within `timeoutSeconds`.
    @discardableResult
    public func wait(timeoutSeconds: Double = 10) throws -> Int32 {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while true {
            if hasExited, let s = exitStatus { return s }
            guard clinux_monotonic_ns() < deadline else {
                throw TestSupportError("pid \(pid) still running after \(timeoutSeconds) s; log: \(log.suffix(600))")
            }
            // There is no portable fd for "child exited" without a SIGCHLD handler (which would
            // affect the whole test runner); a 2 ms poll tick bounded by the deadline is enough.
            _ = poll(nil, 0, 2)
        }
    }

    /// Waits until something accepts connections on `socketPath`.
    /// - Throws: when the process exits first or `timeoutSeconds` pass.
    public func waitForSocket(_ socketPath: String, timeoutSeconds: Double = 10) throws {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while clinux_monotonic_ns() < deadline {
            if let client = try? SocketClient(path: socketPath) {
                client.close()
                return
            }
            if hasExited {
                throw TestSupportError("exited with \(exitStatus ?? -1) before listening; log: \(log.suffix(800))")
            }
            _ = poll(nil, 0, 2)
        }
        throw TestSupportError("no socket at \(socketPath) after \(timeoutSeconds) s; log: \(log.suffix(800))")
    }

    private static func decode(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// A fresh, unique path under /tmp for a test's socket, config and logs: `/tmp/carouseld-test-<pid>-<n>-<name>`.
public enum TestTemp {
    nonisolated(unsafe) private static var counter = 0
    nonisolated(unsafe) private static let lock = { () -> UnsafeMutablePointer<pthread_mutex_t> in
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    public static func path(_ name: String) -> String {
        pthread_mutex_lock(lock)
        counter += 1
        let n = counter
        pthread_mutex_unlock(lock)
        return "/tmp/carouseld-test-\(getpid())-\(n)-\(name)"
    }

    /// Writes `text` to `path` (replacing it).
    public static func write(_ text: String, to path: String) throws {
        guard let f = fopen(path, "wb") else { throw TestSupportError("cannot write \(path)") }
        defer { fclose(f) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, f) == bytes.count else { throw TestSupportError("short write \(path)") }
    }
}
