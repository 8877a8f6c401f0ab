#if canImport(Glibc)
import Glibc
#endif
import CarouselService

/// libiio 0.24 prints its own warnings and errors straight to stderr (`WARNING: High-speed mode
/// not enabled` at every buffer creation, `ERROR: Error during channel[N] disable: …` for each
/// scan element of an unplugged device), without a journald priority and several lines for one
/// event; it has no way to hand them to the caller. Around the libiio calls that print,
/// `LibIIOMessages.capturing` points fd 2 at a pipe, then reads what came back: libiio's lines
/// are summarised once with a level (`report`), anything else (another thread's log line in
/// that moment) is written on to the real stderr unchanged.
enum LibIIOMessages {
    /// Serialises the redirections of fd 2 (threads of one process share it).
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    /// Runs `body` with fd 2 pointing at a pipe (when `capture`); returns its result and libiio's
    /// lines (without the newline). Runs `body` uncaptured when the pipe or the redirection
    /// cannot be made.
    static func capturing<T>(if capture: Bool = true, _ body: () -> T) -> (T, [String]) {
        guard capture else { return (body(), []) }
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return redirected(body)
    }

    private static func redirected<T>(_ body: () -> T) -> (T, [String]) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return (body(), []) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let saved = fcntl(2, F_DUPFD_CLOEXEC, 3)
        guard saved >= 0, dup2(fds[1], 2) >= 0 else {
            if saved >= 0 { close(saved) }
            close(fds[0]); close(fds[1])
            return (body(), [])
        }
        close(fds[1])
        let result = body()
        _ = dup2(saved, 2)
        close(saved)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        close(fds[0])
        var ours: [String] = []
        var others: [UInt8] = []
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("WARNING: ") || text.hasPrefix("ERROR: ") || text.hasPrefix("DEBUG: ") || text.hasPrefix("INFO: ") {
                ours.append(text)
            } else {
                others += line + [0x0A]
            }
        }
        if !others.isEmpty { _ = others.withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }
        return (result, ours)
    }

    /// Says what libiio's `lines` mean for `who`, once each kind, at its level: no high-speed
    /// interface is the normal case of every non-DMA sensor (debug); channels that could not be
    /// disabled on a device that is gone are part of its removal (debug), on a present one a
    /// warning; anything else a warning with libiio's text.
    static func report(_ lines: [String], who: String, log: LogSink) {
        guard !lines.isEmpty else { return }
        var disableErrors: [String] = []
        for line in lines {
            if line.contains("High-speed mode not enabled") {
                log(.debug, "\(who): libiio: no high-speed (mmap) buffer interface; scans are read with read()")
            } else if line.hasPrefix("ERROR: Error during channel[") || line.hasPrefix("ERROR: Error during buffer disable") {
                // "ERROR: Error during channel[0] disable: No such file or directory (2)"
                disableErrors.append(line.split(separator: ":").last.map { $0.trimmingCharacters(in: " ") } ?? "")
            } else {
                log(.warning, "\(who): libiio: \(printable(line))")
            }
        }
        if let first = disableErrors.first {
            let gone = disableErrors.allSatisfy { $0.hasPrefix("No such device") || $0.hasPrefix("No such file or directory") }
            log(gone ? .debug : .warning, "\(who): libiio could not disable the buffer or its scan elements "
                + "(\(disableErrors.count) writes: \(printable(first)))" + (gone ? ": the device is gone" : ""))
        }
    }
}
