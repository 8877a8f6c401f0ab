/// A line longer than the limit arrived (docs/PROTOCOL.md "Limits": requests ≤ 64 KiB per line).
public struct LineTooLongError: Error, Equatable, Sendable {
    /// The limit in bytes, excluding the newline.
    public var limit: Int
}

/// Splits a byte stream into `\n`-terminated lines (NDJSON framing), refusing lines over a limit
/// without buffering more than `limit + 1` bytes of an unfinished line.
public struct LineFramer: Sendable {
    /// The request limit of docs/PROTOCOL.md "Limits": 64 KiB, excluding the newline.
    public static let requestLimit = 64 * 1024

    public let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0     // first byte of the next line
    private var scanned = 0   // bytes after `start` already known to hold no newline

    public init(limit: Int = LineFramer.requestLimit) { self.limit = limit }

    /// Bytes buffered for lines not yet returned.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends received bytes.
    public mutating func append<C: Collection<UInt8>>(_ bytes: C) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line without its `\n` (and without a trailing `\r`), or nil when no
    /// complete line is buffered.
    /// - Throws: `LineTooLongError` when the current line exceeds `limit` bytes; the framer is
    ///   then unusable (the connection is to be closed).
    public mutating func nextLine() throws(LineTooLongError) -> ArraySlice<UInt8>? {
        var i = start + scanned
        while i < buffer.count {
            if buffer[i] == 0x0A {
                var end = i
                if end - start > limit { throw LineTooLongError(limit: limit) }
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[start..<end]
                start = i + 1
                scanned = 0
                return line
            }
            i += 1
        }
        scanned = buffer.count - start
        if scanned > limit { throw LineTooLongError(limit: limit) }
        return nil
    }
}
