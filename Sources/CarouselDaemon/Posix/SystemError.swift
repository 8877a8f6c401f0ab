import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, on what, and its `Errno`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call and its object, e.g. `bind /run/carouseld/carouseld.sock`.
    public var call: String
    public var errno: Errno
    public init(_ call: String, errno: Errno) { self.call = call; self.errno = errno }
    public init(_ call: String, errno: Int32) { self.init(call, errno: Errno(rawValue: errno)) }

    /// `call: strerror text (errno N)`.
    public var description: String { "\(call): \(errno)" }
}

/// Runs a system call through `retryingInterrupts` and names the call in the thrown error.
@discardableResult
func syscall(_ what: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) -> Int32 {
    do {
        return try retryingInterrupts(body)
    } catch {
        throw SystemError(what(), errno: error)
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
        if n < 0 && Errno.current == .interrupted { continue }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
