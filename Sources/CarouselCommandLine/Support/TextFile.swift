#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CarouselProtocol

/// Reads small text files (recordings, scenarios, calibration files) for carouselctl
/// subcommands, mapping failures to the exit statuses of docs/CLI.md "EXIT STATUS".
public enum TextFile {
    /// Why a file could not be read; each case carries the path.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file does not exist (ENOENT, ENOTDIR): exit 66.
        case notFound(path: String)
        /// Permission denied (EACCES, EPERM): exit 77.
        case permissionDenied(path: String)
        /// The path names a directory (EISDIR): not an input file, exit 66.
        case isDirectory(path: String)
        /// Any other failure of open/read, with errno (EIO, …): exit 74.
        case io(path: String, errno: Int32)
        /// `LineReader`: a line longer than `LineReader.maximumLineBytes` (not a text file):
        /// exit 65.
        case lineTooLong(path: String, line: Int)
        /// `read(path:limit:)`: neither a regular file nor a pipe (`/dev/zero`, a socket);
        /// `kind` names what it is: exit 66.
        case notRegularFile(path: String, kind: String)
        /// `read(path:limit:)`: longer than the limit (`description` gives it): exit 65.
        case tooLarge(path: String, limit: String)

        public var exitStatus: ExitStatus {
            switch self {
            case .notFound, .isDirectory, .notRegularFile: return .noInput
            case .permissionDenied: return .noPermission
            case .io: return .ioError
            case .lineTooLong, .tooLarge: return .dataError
            }
        }

        public var description: String {
            switch self {
            case let .notFound(path): return "\(path): no such file"
            case let .isDirectory(path): return "\(path): is a directory, not a file"
            case let .permissionDenied(path): return "\(path): permission denied"
            case let .io(path, code): return "\(path): \(String(cString: strerror(code))) (errno \(code))"
            case let .lineTooLong(path, line):
                return "\(path):\(line): line longer than \(LineReader.maximumLineBytes) bytes (not a text file?)"
            case let .notRegularFile(path, kind): return "\(path): not a regular file but \(kind)"
            case let .tooLarge(path, limit): return "\(path): larger than \(limit)"
            }
        }

        /// The failure as a `CommandError` with the matching exit status.
        public var commandError: CommandError { CommandError(exitStatus, description) }
    }

    /// Reads the whole regular file or pipe at `path` as UTF-8 (invalid sequences become U+FFFD),
    /// up to `limit` bytes (`BoundedFile`: a device such as `/dev/zero` is refused, not read
    /// without end; a FIFO or `<(…)` is read, as far as the limit, unless `acceptsPipes` is
    /// false: a file carouselctl reads for itself, not one named to it as input).
    /// - Throws: `TextFile.Failure`.
    public static func read(path: String, limit: Int, acceptsPipes: Bool = true) throws(Failure) -> String {
        do {
            return String(decoding: try BoundedFile.read(path, limit: limit, acceptsPipes: acceptsPipes), as: UTF8.self)
        } catch {
            switch error {
            case let .system(e): throw failure(path: path, errno: e.rawValue)
            case .notRegular(kind: "a directory"): throw .isDirectory(path: path)
            case let .notRegular(kind): throw .notRegularFile(path: path, kind: kind)
            case let .tooLarge(limit): throw .tooLarge(path: path, limit: BoundedFile.bytesText(limit))
            }
        }
    }

    static func failure(path: String, errno code: Int32) -> Failure {
        switch code {
        case ENOENT, ENOTDIR: return .notFound(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case EISDIR: return .isDirectory(path: path)
        default: return .io(path: path, errno: code)
        }
    }
}

/// Reads a text file one line at a time with bounded memory (a recording of hundreds of MB
/// must not be held whole). Lines end at `\n`; a `\r` before it is dropped (CRLF files);
/// the last line needs no terminator. Invalid UTF-8 becomes U+FFFD. EINTR is retried.
public final class LineReader {
    /// Longest accepted line, bytes: far beyond any CSV row, small enough that a binary file
    /// without newlines cannot make the reader buffer it whole.
    public static let maximumLineBytes = 1 << 20

    public let path: String
    /// 1-based number of the line `next()` returned last (0 before the first).
    public private(set) var lineNumber = 0
    private let fd: Int32
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var atEnd = false

    /// Opens `path` for reading.
    /// - Throws: `TextFile.Failure` (missing, permission, other errno).
    public init(path: String) throws(TextFile.Failure) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw TextFile.failure(path: path, errno: errno) }
    }

    deinit { close(fd) }

    /// The next line without its terminator, or nil at the end of the file.
    /// - Throws: `TextFile.Failure`: a read error (EISDIR for a directory), or `.lineTooLong`.
    public func next() throws(TextFile.Failure) -> String? {
        while true {
            if let newline = newlineIndex() {
                return take(upTo: newline, skipping: 1)
            }
            if pending.count - start > Self.maximumLineBytes {
                throw .lineTooLong(path: path, line: lineNumber + 1)
            }
            if atEnd {
                return start < pending.count ? take(upTo: pending.count, skipping: 0) : nil
            }
            if start > 0 {
                pending.removeSubrange(0..<start)
                start = 0
            }
            try fill()
        }
    }

    /// Index of the next `\n` in `pending` from `start` (memchr: fast even in a debug build).
    private func newlineIndex() -> Int? {
        let from = start
        return pending.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, bytes.count > from,
                  let hit = memchr(base + from, 0x0A, bytes.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
    }

    private func take(upTo end: Int, skipping terminator: Int) -> String {
        var last = end
        if last > start, pending[last - 1] == 0x0D { last -= 1 }
        let first = start
        // From a buffer pointer: the stdlib's contiguous fast path, also in a debug build.
        let line = pending.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[first..<last]), as: UTF8.self) }
        start = end + terminator
        lineNumber += 1
        return line
    }

    private func fill() throws(TextFile.Failure) {
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TextFile.failure(path: path, errno: errno)
            }
            if n == 0 { atEnd = true }
            // Appended from a buffer pointer (a memcpy), not element by element.
            chunk.withUnsafeBufferPointer { pending.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<n])) }
            return
        }
    }
}
