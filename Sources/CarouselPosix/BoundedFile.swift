import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file (a recording, a calibration file) with open(2), fstat(2) and
/// read(2), refusing what is not one: a path named in a configuration or on a command line may
/// be `/dev/zero` (endless: read whole, it takes every byte of memory and aborts the process), a
/// FIFO (whose open waits for a writer, forever for a daemon reloading) or a directory. The open
/// is non-blocking so that a FIFO is refused rather than waited on; a regular file is read whole,
/// up to `limit` bytes. A command-line program may also accept pipes (`acceptsPipes`: a FIFO,
/// `/dev/stdin` fed by a pipe, a shell's `<(…)`), read up to the same limit.
public enum BoundedFile {
    /// Why the file was not read.
    public enum Failure: Error, Equatable, Sendable {
        /// open(2) or read(2) failed (ENOENT, EACCES, EIO…).
        case system(Errno)
        /// Not a regular file: `kind` says what it is ("a directory", "a FIFO", "a character
        /// device", "a block device", "a socket").
        case notRegular(kind: String)
        /// Longer than `limit` bytes.
        case tooLarge(limit: Int)

        /// What went wrong, without the path: `not a regular file but a character device`,
        /// `larger than 256 MiB`, or strerror's text and errno.
        public var reason: String {
            switch self {
            case let .system(e): return e.description
            case let .notRegular(kind): return "not a regular file but \(kind)"
            case let .tooLarge(limit): return "larger than \(BoundedFile.bytesText(limit))"
            }
        }
    }

    /// The bytes of the regular file at `path`.
    /// - Parameters:
    ///   - limit: the most bytes accepted; a longer file is `tooLarge`.
    ///   - acceptsPipes: a FIFO or pipe is read too (its open waits for a writer), not refused.
    /// - Throws: `Failure` (`.system` carries open's or read's errno: ENOENT for a missing file).
    public static func read(_ path: String, limit: Int, acceptsPipes: Bool = false) throws(Failure) -> [UInt8] {
        let fd: Int32
        do {
            fd = try retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | (acceptsPipes ? 0 : O_NONBLOCK)) }
        } catch {
            throw .system(error)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(.current) }
        let isPipe = info.st_mode & S_IFMT == S_IFIFO
        if !(acceptsPipes && isPipe), let kind = kindName(info.st_mode) { throw .notRegular(kind: kind) }
        if Int(info.st_size) > limit { throw .tooLarge(limit: limit) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do {
                n = try retryingInterrupts { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            } catch {
                throw .system(error)
            }
            if n == 0 { return bytes }
            // A file that grows while it is read (a recording still being written) is bounded too.
            if bytes.count + n > limit { throw .tooLarge(limit: limit) }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// nil for a regular file, else what the mode (`st_mode` of stat(2)) says the file is: "a
    /// directory", "a FIFO", "a character device", "a block device", "a socket".
    public static func kindName(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// `64 KiB`, `256 MiB`, or bytes when not a whole number of either.
    public static func bytesText(_ count: Int) -> String {
        if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }
}
