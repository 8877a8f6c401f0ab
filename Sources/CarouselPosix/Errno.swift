import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value (`<errno.h>`), in the style of swift-system's `Errno`: the constants the
/// daemon acts on by name, and the C library's text (`strerror`) in messages.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The errno of the calling thread (read through the CLinux shim: Swift cannot read the
    /// C `errno` macro).
    public static var current: Errno { Errno(rawValue: clinux_errno()) }

    /// EINTR: a signal interrupted the call (retried by `retryingInterrupts`).
    public static let interrupted = Errno(rawValue: EINTR)
    /// EAGAIN (= EWOULDBLOCK on Linux): a non-blocking call would block.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// ECONNABORTED: a connection went away before `accept` took it.
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    /// EMFILE: this process is out of descriptors.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// ENFILE: the system is out of descriptors.
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    /// ENOBUFS: no buffer space.
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    /// ENOMEM: out of memory.
    public static let noMemory = Errno(rawValue: ENOMEM)
    /// EACCES: permission denied.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// EPERM: operation not permitted.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// ENOENT: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)

    /// Out of descriptors or memory: `accept` cannot succeed until something is freed.
    public var isResourceExhaustion: Bool {
        self == .tooManyOpenFiles || self == .tooManyOpenFilesInSystem || self == .noBufferSpace || self == .noMemory
    }

    /// `strerror`'s text and the number, e.g. `Too many open files (errno 24)`.
    public var description: String {
        let text = strerror(rawValue).map { String(cString: $0) } ?? "error"
        return "\(text) (errno \(rawValue))"
    }
}

/// Runs a system call until it does not fail with EINTR; a result of −1 becomes the thrown
/// errno. The one place where the daemon's system calls are retried and their failures typed.
@discardableResult
public func retryingInterrupts<R: SignedInteger>(_ body: () -> R) throws(Errno) -> R {
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = Errno.current
        if e != .interrupted { throw e }
    }
}
