import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

/// A failed libmosquitto call: which call, libmosquitto's `enum mosq_err_t` code, and the errno
/// when the code is `MOSQ_ERR_ERRNO` (the call failed in a system call).
public struct MosquittoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call and its object, e.g. `mosquitto_connect_async broker.lan:8883`.
    public var call: String
    /// The `MOSQ_ERR_*` value returned.
    public var code: Int32
    /// `errno` when `code` is `MOSQ_ERR_ERRNO`, else 0.
    public var errno: Int32

    public init(_ call: String, code: Int32, errno: Int32 = 0) {
        self.call = call
        self.code = code
        self.errno = errno
    }

    /// The error of `code` as returned by `call`, capturing errno for `MOSQ_ERR_ERRNO`.
    static func returned(_ call: String, _ code: Int32) -> MosquittoError {
        MosquittoError(call, code: code, errno: code == Int32(MOSQ_ERR_ERRNO.rawValue) ? Glibc.errno : 0)
    }

    /// What went wrong in words: `strerror(errno)` for `MOSQ_ERR_ERRNO`, else `mosquitto_strerror`.
    public var reason: String { Self.reason(code: code, errno: errno) }

    /// `mosquitto_strerror(code)`, or `strerror(errno)` when `code` is `MOSQ_ERR_ERRNO` and an
    /// errno is known.
    public static func reason(code: Int32, errno: Int32 = 0) -> String {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue), errno != 0, let text = strerror(errno) {
            return String(cString: text)
        }
        guard let text = mosquitto_strerror(code) else { return "libmosquitto error \(code)" }
        // "The connection was lost." reads better inside a log line without its full stop.
        var reason = String(cString: text)
        if reason.hasSuffix(".") { reason.removeLast() }
        return reason
    }

    public var description: String { "\(call): \(reason)" }

    /// Whether `code` is `MOSQ_ERR_NO_CONN` (not connected to a broker).
    public var isNotConnected: Bool { code == Int32(MOSQ_ERR_NO_CONN.rawValue) }
}
