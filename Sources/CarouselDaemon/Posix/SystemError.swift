import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, on what, and errno.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call and its object, e.g. `bind /run/carouseld/carouseld.sock`.
    public var call: String
    public var errno: Int32
    public init(_ call: String, errno: Int32) { self.call = call; self.errno = errno }

    public var description: String {
        let reason = strerror(errno).map { String(cString: $0) } ?? "error"
        return "\(call): \(reason) (errno \(errno))"
    }

    /// The errno of the calling thread.
    static var current: Int32 { clinux_errno() }
}

/// Runs a system call, retrying on `EINTR`, and turns `-1` into a thrown `SystemError` (the
/// one place where syscall failures become errors, as swift-system does).
@discardableResult
func syscall(_ what: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) -> Int32 {
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = SystemError.current
        if e == EINTR { continue }
        throw SystemError(what(), errno: e)
    }
}

/// Reads a small file (procfs, sysfs) in one go; nil when it cannot be read.
func readSmallFile(_ path: String, limit: Int = 65536) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && SystemError.current == EINTR { continue }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
