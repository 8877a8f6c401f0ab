#if canImport(Glibc)
import Glibc
#endif

/// A child process (the program under test) that sees a `UmockdevTestbed` instead of the real
/// `/sys`, `/dev` and udev: it starts with `LD_PRELOAD=libumockdev-preload.so.0` and
/// `UMOCKDEV_DIR` set to the testbed root, which is the only way umockdev's interposition
/// reaches libiio and libudev (they must run in the preloaded process, not in the test runner).
///
/// Standard output and standard error are captured through pipes; the test reads them line by
/// line with bounded waits (`readLine(timeoutSeconds:)`, `waitForLine`), streams bytes into the
/// testbed's PTY nodes and sends uevents meanwhile, then collects the exit status.
///
/// Recipe (docs/SENSORS.md "Testing with umockdev"):
/// ```swift
/// let bed = try UmockdevTestbed()
/// try bed.add(file: TestPaths.fixture("umockdev/hid-sensor-hub-accel.umockdev"))
/// let p = try UmockdevProcess(TestPaths.product("carouselctl"), ["sensors", "--json"], testbed: bed)
/// let result = try p.waitForExit(timeoutSeconds: 20)
/// ```
public final class UmockdevProcess {
    /// The child's process id.
    public let pid: pid_t
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var stdoutBuffer: [UInt8] = []
    private var stderrBuffer: [UInt8] = []
    private var stdoutClosed = false
    private var stderrClosed = false
    private var exitStatus: Int32?

    /// What a finished child left behind.
    public struct Result: Sendable {
        /// Exit status (0…255), or 128 + signal number when killed by a signal.
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Starts `executable` with `arguments`, the test process's environment plus
    /// `LD_PRELOAD`/`UMOCKDEV_DIR` for `testbed` (when given) plus `environment`.
    /// - Throws: `UmockdevError.system` when the pipes or `posix_spawn` fail.
    public init(_ executable: String, _ arguments: [String], testbed: UmockdevTestbed?,
                environment extra: [String: String] = [:]) throws {
        var env: [String: String] = [:]
        var envp = environ
        while let entry = envp.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                env[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            envp += 1
        }
        if let testbed {
            env["UMOCKDEV_DIR"] = testbed.rootDirectory
            env["LD_PRELOAD"] = "libumockdev-preload.so.0"
        } else {
            // umockdev_testbed_new() sets UMOCKDEV_DIR in the test runner; a child meant to see
            // the real system must not inherit it.
            env["UMOCKDEV_DIR"] = nil
        }
        for (k, v) in extra { env[k] = v }

        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw UmockdevError.system("pipe", errno) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw UmockdevError.system("pipe", errno)
        }
        // Close-on-exec so that other children the test starts do not inherit these ends.
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envv.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, envv)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw UmockdevError.system("posix_spawn \(executable)", rc)
        }
        pid = child
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        _ = fcntl(stdoutFD, F_SETFL, fcntl(stdoutFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(stderrFD, F_SETFL, fcntl(stderrFD, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        if stdoutFD >= 0 { close(stdoutFD) }
        if stderrFD >= 0 { close(stderrFD) }
    }

    /// Everything the child wrote to standard error so far (drained without waiting).
    public var standardErrorSoFar: String {
        pump(timeoutMilliseconds: 0)
        return String(decoding: stderrBuffer, as: UTF8.self)
    }

    /// The next complete line of standard output (without the newline), waiting at most
    /// `timeoutSeconds`; `nil` at end of output.
    /// - Throws: `UmockdevError.timeout` (with the child's stderr so far) when no line came.
    public func readLine(timeoutSeconds: Double) throws -> String? {
        let deadline = monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        while true {
            if let nl = stdoutBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: stdoutBuffer[..<nl], as: UTF8.self)
                stdoutBuffer.removeSubrange(...nl)
                return line
            }
            if stdoutClosed {
                if stdoutBuffer.isEmpty { return nil }
                let line = String(decoding: stdoutBuffer, as: UTF8.self)
                stdoutBuffer.removeAll()
                return line
            }
            let left = deadline - monotonicNanoseconds()
            if left <= 0 {
                throw UmockdevError.timeout("no output line within \(timeoutSeconds) s; stderr: \(standardErrorSoFar)")
            }
            pump(timeoutMilliseconds: Int32(min(left / 1_000_000 + 1, 1000)))
        }
    }

    /// Reads output lines until one satisfies `predicate` and returns it.
    /// - Throws: `UmockdevError.timeout` when none did within `timeoutSeconds` or output ended.
    public func waitForLine(timeoutSeconds: Double, where predicate: (String) -> Bool) throws -> String {
        let deadline = monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        while true {
            let left = Double(deadline - monotonicNanoseconds()) * 1e-9
            guard left > 0, let line = try readLine(timeoutSeconds: left) else {
                throw UmockdevError.timeout("expected output line never came; stderr: \(standardErrorSoFar)")
            }
            if predicate(line) { return line }
        }
    }

    /// Waits until standard error contains `text` (at least `occurrences` times, for events
    /// that repeat such as a status going `absent` on every unplug).
    /// - Throws: `UmockdevError.timeout` with what stderr held.
    public func waitForStandardError(containing text: String, occurrences: Int = 1, timeoutSeconds: Double) throws {
        let deadline = monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        func count() -> Int {
            String(decoding: stderrBuffer, as: UTF8.self).split(separator: text, omittingEmptySubsequences: false).count - 1
        }
        while count() < occurrences {
            let left = deadline - monotonicNanoseconds()
            if left <= 0 || (stderrClosed && stdoutClosed) {
                throw UmockdevError.timeout("stderr never said '\(text)'; it said: \(String(decoding: stderrBuffer, as: UTF8.self))")
            }
            pump(timeoutMilliseconds: Int32(min(left / 1_000_000 + 1, 1000)))
        }
    }

    /// Sends a signal (e.g. `SIGTERM` to end a recording).
    public func signal(_ number: Int32) { if exitStatus == nil { kill(pid, number) } }

    /// Waits for the child to exit and returns its status and all remaining output.
    /// - Throws: `UmockdevError.timeout` after killing the child when it outlives `timeoutSeconds`.
    public func waitForExit(timeoutSeconds: Double) throws -> Result {
        let deadline = monotonicNanoseconds() + Int64(timeoutSeconds * 1e9)
        while !(stdoutClosed && stderrClosed) {
            let left = deadline - monotonicNanoseconds()
            if left <= 0 {
                kill(pid, SIGKILL)
                throw UmockdevError.timeout("process \(pid) still running after \(timeoutSeconds) s; stderr: \(String(decoding: stderrBuffer, as: UTF8.self))")
            }
            pump(timeoutMilliseconds: Int32(min(left / 1_000_000 + 1, 1000)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        let result = Result(status: code, standardOutput: String(decoding: stdoutBuffer, as: UTF8.self),
                            standardError: String(decoding: stderrBuffer, as: UTF8.self))
        stdoutBuffer.removeAll()
        return result
    }

    /// Moves whatever the pipes hold into the buffers, waiting up to `timeoutMilliseconds` for
    /// something to arrive.
    private func pump(timeoutMilliseconds: Int32) {
        var fds: [pollfd] = []
        if !stdoutClosed { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
        if !stderrClosed { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else { return }
        _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        drain(stdoutFD, into: &stdoutBuffer, closed: &stdoutClosed)
        drain(stderrFD, into: &stderrBuffer, closed: &stderrClosed)
    }

    private func drain(_ fd: Int32, into buffer: inout [UInt8], closed: inout Bool) {
        guard !closed else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { closed = true; return }
            if errno == EINTR { continue }
            if errno != EAGAIN { closed = true }
            return
        }
    }
}

/// CLOCK_MONOTONIC now, in nanoseconds (for the bounded waits above).
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
