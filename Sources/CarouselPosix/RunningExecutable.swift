#if canImport(Glibc)
import Glibc
#endif

/// The running program's own file.
public enum RunningExecutable {
    /// The absolute path of the running executable, as the kernel gives `/proc/self/exe`
    /// (symbolic links resolved), or nil when it cannot be read (no /proc).
    public static func path() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
