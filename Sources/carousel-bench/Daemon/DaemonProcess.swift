import CLinux
import Glibc

/// A carouseld started for a benchmark: stdout and stderr go to a log file, `NOTIFY_SOCKET`
/// points at a datagram socket the benchmark owns, so `READY=1` (sd_notify) tells when the
/// daemon listens, and its time of arrival gives the start-up figure.
final class DaemonProcess {
    let pid: pid_t
    /// CLOCK_MONOTONIC just before `posix_spawn`, ns.
    let spawnedAt: Int64
    /// CLOCK_MONOTONIC when `READY=1` arrived, ns (set by `waitForReady`).
    private(set) var readyAt: Int64?
    let logPath: String
    private let notifyFD: Int32
    private let notifyPath: String
    private var exited = false

    /// Starts `executable arguments` with the current environment plus `environment`.
    /// - Throws: `BenchError` when the notify socket, the log file or `posix_spawn` fail.
    init(executable: String, arguments: [String], environment extra: [String: String], directory: String,
         name: String) throws {
        notifyPath = directory + "/\(name).notify"
        logPath = directory + "/\(name).log"
        unlink(notifyPath)
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard notify >= 0 else { throw BenchError.system("socket(AF_UNIX, SOCK_DGRAM)") }
        notifyFD = notify
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, notifyPath)
        guard length > 0 else { close(notify); throw BenchError("notify socket path too long: \(notifyPath)") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(length)) }
        }
        guard bound == 0 else { close(notify); throw BenchError.system("bind \(notifyPath)") }

        var env: [String: String] = [:]
        var envp = Glibc.environ
        while let entry = envp.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            envp += 1
        }
        env["NOTIFY_SOCKET"] = notifyPath
        for (k, v) in extra { env[k] = v }

        let logFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { close(notifyFD); throw BenchError.system("open \(logPath)") }
        defer { close(logFD) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, logFD, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, logFD, STDERR_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envv.forEach { free($0) } }
        var child: pid_t = 0
        spawnedAt = BenchClock.monotonicNanoseconds()
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envv)
        guard rc == 0 else { close(notifyFD); throw BenchError.system("posix_spawn \(executable)", rc) }
        pid = child
        ChildRegistry.add(child)
        // Again after each spawn: libumockdev installs its own SIGTERM/SIGINT handler when a
        // testbed is created, which would otherwise leave this daemon running.
        ChildRegistry.installSignalHandlers()
    }

    deinit {
        stop()
        close(notifyFD)
        unlink(notifyPath)
    }

    /// Waits (at most `timeoutSeconds`) for a notify datagram containing `READY=1`.
    /// - Returns: start-up time, ns from spawn to READY.
    /// - Throws: `BenchError` on timeout or when the daemon exits first (with its log's tail).
    @discardableResult
    func waitForReady(timeoutSeconds: Double) throws -> Int64 {
        let deadline = BenchClock.monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = BenchClock.monotonicNanoseconds()
            if now >= deadline { throw BenchError("carouseld sent no READY=1 within \(timeoutSeconds) s; log: \(logTail())") }
            if hasExited() { throw BenchError("carouseld exited during start-up; log: \(logTail())") }
            var p = pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)
            let waitMs = Int32(min(100, max(1, (deadline - now) / 1_000_000)))
            guard poll(&p, 1, waitMs) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress, $0.count, 0) }
            let at = BenchClock.monotonicNanoseconds()
            guard n > 0 else { continue }
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            if text.split(separator: "\n").contains("READY=1") {
                readyAt = at
                return at - spawnedAt
            }
        }
    }

    /// Reads every notify datagram waiting (without blocking) and returns their texts. A
    /// benchmark that runs the daemon past start-up calls it now and then: the daemon's
    /// `sd_notify` blocks once the socket's receive queue is full (each reload and each change
    /// of the client count sends one), as it would under a supervisor that stopped reading.
    func drainNotifications() -> [String] {
        var texts: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return texts }
            texts.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
    }

    /// Whether the child has exited (reaps it).
    func hasExited() -> Bool {
        if exited { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exited = true
            ChildRegistry.remove(pid)
        }
        return exited
    }

    /// SIGTERM, then SIGKILL after 5 s; reaps the child.
    func stop() {
        guard !hasExited() else { return }
        kill(pid, SIGTERM)
        let deadline = BenchClock.monotonicNanoseconds() + 5_000_000_000
        while !hasExited() && BenchClock.monotonicNanoseconds() < deadline { usleep(10_000) }
        if !hasExited() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            exited = true
            ChildRegistry.remove(pid)
        }
    }

    /// The last 2 KB of the daemon's log, on one line.
    func logTail() -> String {
        let text = ProcessProbe.read(logPath) ?? ""
        return String(text.suffix(2048)).split(separator: "\n").joined(separator: " | ")
    }
}
