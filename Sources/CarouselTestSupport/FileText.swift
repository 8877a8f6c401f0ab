#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file as UTF-8 text, or `nil` when it cannot be opened.
public func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
        if n < chunk.count { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}
