import CarouselProtocol
import CarouselService
#if canImport(Glibc)
import Glibc
#endif

/// `carouselctl simulate`: Run the carousel engine on a scenario; NDJSON frames on stdout.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        summary: "Run the carousel engine on a scenario; NDJSON frames on stdout.",
        discussion: """
        Reads SCENARIO (JSON: viewport, item, count, optional spacing, axis, direction, cyclic,
        initialIndex, style, paging, dragThreshold, tilt, outerScroll, groupSize, align, contain,
        autoplay, events, frames) and writes one JSON object per frame: t, offset, position,
        index, velocity, phase, count, autoplay and the visible items. The format and defaults are in \(ReferencePages.current.page("ENGINE.md")); examples in \(ReferencePages.current.examples).
        Exit status: 65 for an invalid scenario (the message names the JSON path), 66 when the
        file cannot be read.
        """,
        positionals: [PositionalSpec("SCENARIO", help: "Scenario file (JSON), or '-' for standard input.")],
        run: { arguments, io in
            let path = arguments.positionals[0]
            let text = try readScenarioText(path)
            let parsed = Result { () throws(ScenarioError) -> Scenario in try Scenario.parse(text) }
            guard case let .success(scenario) = parsed else {
                if case let .failure(error) = parsed {
                    throw CommandError(.dataError, "simulate: \(path): \(error.description)")
                }
                return .software
            }
            var chunk = ""
            SimulationRunner.run(scenario) { line in
                chunk += line
                chunk += "\n"
                if chunk.utf8.count > 1 << 16 {
                    io.out(chunk)
                    chunk = ""
                }
            }
            if !chunk.isEmpty { io.out(chunk) }
            return .ok
        }
    )

    /// Reads the whole scenario file (or standard input for `-`).
    /// - Throws: `CommandError(.noInput, …)` with the errno text when it cannot be opened or read.
    static func readScenarioText(_ path: String) throws -> String {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CommandError(.noInput, "simulate: cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandError(.noInput, "simulate: cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
            if bytes.count > 64 << 20 { throw CommandError(.dataError, "simulate: \(path): larger than 64 MiB") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
