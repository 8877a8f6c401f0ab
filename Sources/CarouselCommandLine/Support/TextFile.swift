#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol

/// Reads small text files (recordings, scenarios, calibration files) for carouselctl
/// subcommands, mapping failures to the exit statuses of INTERFACES §5.
public enum TextFile {
    /// Why a file could not be read; each case carries the path.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file does not exist (ENOENT, ENOTDIR): exit 66.
        case notFound(path: String)
        /// Permission denied (EACCES, EPERM): exit 77.
        case permissionDenied(path: String)
        /// Any other failure of open/read, with errno (EISDIR, EIO, …): exit 74.
        case io(path: String, errno: Int32)

        public var exitStatus: ExitStatus {
            switch self {
            case .notFound: return .noInput
            case .permissionDenied: return .noPermission
            case .io: return .ioError
            }
        }

        public var description: String {
            switch self {
            case let .notFound(path): return "\(path): no such file"
            case let .permissionDenied(path): return "\(path): permission denied"
            case let .io(path, code): return "\(path): \(String(cString: strerror(code))) (errno \(code))"
            }
        }

        /// The failure as a `CommandError` with the matching exit status.
        public var commandError: CommandError { CommandError(exitStatus, description) }
    }

    /// Reads the whole file at `path` as UTF-8 (invalid sequences become U+FFFD), retrying EINTR.
    /// - Throws: `TextFile.Failure`.
    public static func read(path: String) throws(Failure) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw failure(path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path: path, errno: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func failure(path: String, errno code: Int32) -> Failure {
        switch code {
        case ENOENT, ENOTDIR: return .notFound(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        default: return .io(path: path, errno: code)
        }
    }
}
