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
public func syscall(_ what: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) -> Int32 {
    do {
        return try retryingInterrupts(body)
    } catch {
        throw SystemError(what(), errno: error)
    }
}
