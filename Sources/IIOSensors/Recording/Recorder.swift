#if canImport(Glibc)
import Glibc
#endif
import MotionFusion

/// Writes samples as the native recording CSV (docs/CLI.md "record") using MotionFusion's
/// `NativeRecordingWriter`.
///
/// To a file: rows go to `FILE.partial-PID` in the same directory and `finish()` renames it to
/// `FILE`, so an interrupted recording never leaves a half-written file under the final name
/// (the partial file stays for inspection). To a stream (`Recorder(descriptor:)`, e.g. standard
/// output): each batch is written at once, for tools and tests that follow it live.
public final class Recorder {
    private var fd: Int32
    private let ownsDescriptor: Bool
    /// The final path, or nil for a stream.
    public let path: String?
    /// The temporary path rows go to until `finish()`, or nil for a stream.
    public let partialPath: String?
    /// Rows written so far (header excluded).
    public private(set) var rowCount = 0

    /// Starts a recording at `path` (header written). An existing path that is not a regular
    /// file (`/dev/stdout`, a FIFO, a terminal) is written directly: renaming a partial file
    /// over it would replace the device node or link itself.
    /// - Throws: `SensorError.io(device: path, what: "open"/"write", errno)`; `EISDIR` at once
    ///   for a directory (not after the whole recording, when the rename would fail).
    public init(path: String) throws(SensorError) {
        let (fd, final, partial) = try Recorder.openOutput(path)
        self.fd = fd
        ownsDescriptor = true
        self.path = final
        partialPath = partial
        try write(NativeRecordingWriter.header + "\n")
    }

    /// Opens what `init(path:)` writes to: `(fd, final path, partial path)`, both paths nil for
    /// a non-regular file written in place.
    private static func openOutput(_ path: String) throws(SensorError) -> (Int32, String?, String?) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            if info.st_mode & S_IFMT == S_IFDIR { throw SensorError.io(device: path, what: "open", errno: EISDIR) }
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw SensorError.io(device: path, what: "open", errno: errno) }
            return (fd, nil, nil)
        }
        if path.hasSuffix("/") { throw SensorError.io(device: path, what: "open", errno: EISDIR) }
        let partial = path + ".partial-\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SensorError.io(device: partial, what: "open", errno: errno) }
        return (fd, path, partial)
    }

    /// Streams a recording to an open descriptor (not closed by the recorder); header written.
    public init(descriptor: Int32) throws(SensorError) {
        fd = descriptor
        ownsDescriptor = false
        path = nil
        partialPath = nil
        try write(NativeRecordingWriter.header + "\n")
    }

    deinit {
        if ownsDescriptor, fd >= 0 { close(fd) }
    }

    /// Appends rows for `samples` (non-finite samples are skipped: the reader would reject them).
    /// - Throws: `SensorError.io(what: "write", errno)`.
    public func append(_ samples: [IMUSample]) throws(SensorError) {
        var text = ""
        for s in samples where s.accel.isFinite && (s.gyro?.isFinite ?? true) {
            text += NativeRecordingWriter.line(for: s)
            text += "\n"
            rowCount += 1
        }
        if !text.isEmpty { try write(text) }
    }

    /// Flushes to disk and renames the partial file to its final name (files only).
    /// - Throws: `SensorError.io(what: "fsync"/"rename", errno)`.
    public func finish() throws(SensorError) {
        guard let path, let partialPath, fd >= 0 else {
            if ownsDescriptor, fd >= 0 { close(fd); fd = -1 }
            return
        }
        if fsync(fd) != 0 { throw SensorError.io(device: partialPath, what: "fsync", errno: errno) }
        close(fd)
        fd = -1
        if rename(partialPath, path) != 0 { throw SensorError.io(device: path, what: "rename", errno: errno) }
    }

    private func write(_ text: String) throws(SensorError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { b -> Int in
                guard let base = b.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, b.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SensorError.io(device: path ?? "fd \(fd)", what: "write", errno: errno)
            }
            offset += n
        }
    }
}
