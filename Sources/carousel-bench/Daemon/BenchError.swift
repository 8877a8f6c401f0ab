import Glibc

/// Why a daemon benchmark could not run.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// `what: strerror(errno) (errno N)`.
    static func system(_ what: String, _ code: Int32 = errno) -> BenchError {
        BenchError("\(what): \(String(cString: strerror(code))) (errno \(code))")
    }
}
