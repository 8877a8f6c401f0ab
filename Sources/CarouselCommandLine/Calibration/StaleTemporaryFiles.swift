#if canImport(Glibc)
import Glibc
#endif

/// The temporary files `AtomicFileWriter` leaves next to `NAME` when its writer dies between
/// creating and renaming them (`kill -9`, a power cut): `.NAME.tmp-PID-XXXXXX` (the new text)
/// and `.NAME.bak-PID` (the link that becomes `NAME.bak`), with PID the writer's process id.
///
/// One is stale when that process no longer exists (`kill(PID, 0)` fails with `ESRCH`) or it
/// is older than `maximumAgeSeconds` (a PID that was reused; names without a PID). The next
/// write removes the stale ones before it creates its own (docs/CLI.md, `calibrate`).
enum StaleTemporaryFiles {
    /// Ten minutes: a write takes milliseconds between creating and renaming its file.
    static let maximumAgeSeconds: Int64 = 600

    /// The name prefixes of `NAME`'s temporary files.
    static func prefixes(of base: String) -> [String] { [".\(base).tmp-", ".\(base).bak-"] }

    /// Removes the stale temporary files of `base` in `directory`.
    /// - Parameters:
    ///   - nowSeconds: the current time (CLOCK_REALTIME seconds, as `st_mtime`).
    ///   - isAlive: whether a process id is a live process (injected by tests).
    /// - Returns: the names removed (a file that cannot be removed is left alone: the write that
    ///   follows does not depend on it).
    @discardableResult
    static func remove(base: String, in directory: String, nowSeconds: Int64,
                       isAlive: (Int32) -> Bool = StaleTemporaryFiles.processExists) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if prefixes(of: base).contains(where: name.hasPrefix) { names.append(name) }
        }
        closedir(dir)
        var removed: [String] = []
        for name in names {
            let path = "\(directory)/\(name)"
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let old = nowSeconds - Int64(st.st_mtim.tv_sec) > maximumAgeSeconds
            let dead = writerPID(of: name, base: base).map { !isAlive($0) } ?? false
            if (old || dead), unlink(path) == 0 { removed.append(name) }
        }
        return removed.sorted()
    }

    /// The writer's process id in `.NAME.tmp-PID-XXXXXX` or `.NAME.bak-PID`, or nil.
    static func writerPID(of name: String, base: String) -> Int32? {
        for prefix in prefixes(of: base) where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            return Int32(digits).flatMap { $0 > 0 ? $0 : nil }
        }
        return nil
    }

    /// Whether process `pid` exists (`kill(pid, 0)`; `EPERM` means it exists as another user).
    static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
