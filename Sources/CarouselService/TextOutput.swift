#if canImport(Glibc)
import Glibc
#endif

/// Text written whole to a file descriptor (standard output or error) with `write(2)`: the C
/// `stdout`/`stderr` globals are not usable from Swift 6, and one `write` of up to PIPE_BUF
/// bytes on a pipe is atomic, so lines from several processes in one journal stream do not
/// interleave.
public enum TextOutput {
    /// Writes all of `text` to `fd`, retrying on `EINTR` and partial writes; gives up silently
    /// on any other error (there is nowhere left to report a failing stderr).
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
