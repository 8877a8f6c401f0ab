#if canImport(Glibc)
import Glibc
#endif

extension CommandIO {
    /// The real process: standard output and error through write(2) (Swift 6 cannot use the C
    /// `stderr` global), retrying EINTR via `PosixFile.writeAll`; a failed write (a closed pipe,
    /// SIGPIPE being ignored) is dropped, as `printf` would. The environment comes from `environ`.
    public static func process() -> CommandIO {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let eq = text.firstIndex(of: "=") {
                environment[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            entry += 1
        }
        return CommandIO(
            out: { try? PosixFile.writeAll(fd: STDOUT_FILENO, bytes: Array($0.utf8), path: "standard output") },
            err: { try? PosixFile.writeAll(fd: STDERR_FILENO, bytes: Array($0.utf8), path: "standard error") },
            environment: environment)
    }
}
