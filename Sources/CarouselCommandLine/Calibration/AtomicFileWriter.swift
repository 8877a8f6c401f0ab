#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol

/// Replaces a file so that a reader (or a crash, or `kill -9`) sees either the whole old file or
/// the whole new one, never a truncated mix:
///
/// 0. remove the temporary files of earlier writers that died (`StaleTemporaryFiles`);
/// 1. write the new text to a temporary file in the same directory (`.NAME.tmp-PID-XXXXXX`,
///    from `mkstemp`, so it is on the same file system and `rename(2)` is atomic), `fsync` it;
/// 2. if `NAME` exists, hard-link it to `NAME.bak` (through a temporary link renamed over any
///    older `.bak`, so `.bak` too is replaced atomically);
/// 3. `rename(2)` the temporary file over `NAME`;
/// 4. `fsync` the directory, so the rename itself survives a power cut.
///
/// Fault injection (for tests of the guarantee above): when `faultPoint` equals a step name
/// (`after-temp-write`, `after-backup`), the process kills itself with `SIGKILL` right after that
/// step, exactly as an operator's `kill -9` or a power cut would stop it. `carouselctl` takes
/// the name from the environment variable `CAROUSELCTL_FAULT` (documented in docs/CLI.md).
public struct AtomicFileWriter: Sendable {
    /// The environment variable `carouselctl` reads the fault point from.
    public static let faultEnvironmentVariable = "CAROUSELCTL_FAULT"

    /// Named steps at which a fault can be injected.
    public enum FaultPoint: String, Sendable, CaseIterable {
        /// The temporary file is written and synced; neither `.bak` nor the target changed.
        case afterTempWrite = "after-temp-write"
        /// `.bak` holds the old file; the target is still the old file.
        case afterBackup = "after-backup"
    }

    /// Step at which to kill the process, or nil (normal operation).
    public var faultPoint: FaultPoint?
    /// Permission bits of the new file (default 0644: the daemon's user must read it).
    public var mode: mode_t

    public init(faultPoint: FaultPoint? = nil, mode: mode_t = 0o644) {
        self.faultPoint = faultPoint
        self.mode = mode
    }

    /// Writes `text` to `path` atomically, keeping the previous file as `path + ".bak"`.
    /// - Returns: true when a previous file existed (and is now the `.bak`).
    /// - Throws: `FileIOError` naming the path, the call and errno; the target is unchanged then
    ///   and the temporary file removed.
    @discardableResult
    public func write(_ text: String, to path: String, keepBackup: Bool = true) throws(FileIOError) -> Bool {
        let directory = PathName.directory(of: path)
        let base = PathName.lastComponent(of: path)
        StaleTemporaryFiles.remove(base: base, in: directory, nowSeconds: Int64(time(nil)))
        var template = Array("\(directory)/.\(base).tmp-\(getpid())-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw FileIOError(path: path, operation: "create a temporary file in \(directory)", errno: errno) }
        let tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var committed = false
        defer {
            if !committed { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            // Named by the target, the file the user asked for; the temporary copy in the call.
            guard fchmod(fd, mode) == 0 else { throw FileIOError(path: path, operation: "fchmod of its temporary copy \(tempPath)", errno: errno) }
            do {
                try PosixFile.writeAll(fd: fd, bytes: Array(text.utf8), path: tempPath)
            } catch {
                throw FileIOError(path: path, operation: "write of its temporary copy \(tempPath)", errno: error.errno)
            }
            guard fsync(fd) == 0 else { throw FileIOError(path: path, operation: "fsync of its temporary copy \(tempPath)", errno: errno) }
        }
        fault(.afterTempWrite)

        var hadPrevious = false
        if keepBackup, access(path, F_OK) == 0 {
            hadPrevious = true
            let backup = path + ".bak"
            let linkPath = "\(directory)/.\(base).bak-\(getpid())"
            unlink(linkPath)
            guard link(path, linkPath) == 0 else {
                throw FileIOError(path: path, operation: "link to \(linkPath)", errno: errno)
            }
            guard rename(linkPath, backup) == 0 else {
                let e = errno
                unlink(linkPath)
                throw FileIOError(path: backup, operation: "rename", errno: e)
            }
        }
        fault(.afterBackup)

        guard rename(tempPath, path) == 0 else { throw FileIOError(path: path, operation: "rename from \(tempPath)", errno: errno) }
        committed = true
        try PosixFile.syncDirectory(directory)
        return hadPrevious
    }

    private func fault(_ point: FaultPoint) {
        if faultPoint == point { kill(getpid(), SIGKILL) }
    }
}

/// An I/O error naming the path, the operation and errno (`strerror` text included).
public struct FileIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var errno: Int32

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        "\(path): \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The exit status for this error (docs/CLI.md "EXIT STATUS"): 66 missing file, 77 permission, else 74.
    public var exitStatus: ExitStatus {
        switch errno {
        case ENOENT, ENOTDIR: return .noInput
        case EACCES, EPERM, EROFS: return .noPermission
        default: return .ioError
        }
    }

    /// The error as a `CommandError` with the matching exit status.
    public var commandError: CommandError { CommandError(exitStatus, description) }

    /// The error of a write as a `CommandError`: 77 for permission, else 74 (a missing directory
    /// is a failed write, not a missing input).
    public var writeFailure: CommandError {
        CommandError(exitStatus == .noPermission ? .noPermission : .ioError, description)
    }
}

/// Path string helpers (no Foundation).
enum PathName {
    /// The directory part (`"."` for a bare name, `"/"` for a file in the root).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// Thin POSIX file helpers that retry `EINTR` and throw `FileIOError`.
enum PosixFile {
    static func writeAll(fd: Int32, bytes: [UInt8], path: String) throws(FileIOError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(fd, base + offset, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIOError(path: path, operation: "write", errno: errno)
            }
            offset += n
        }
    }

    static func syncDirectory(_ directory: String) throws(FileIOError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIOError(path: directory, operation: "open directory", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileIOError(path: directory, operation: "fsync directory", errno: errno) }
    }

    /// Modification time, seconds since the epoch (CLOCK_REALTIME), or nil when missing.
    static func modificationTime(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_mtim.tv_sec)
    }
}
