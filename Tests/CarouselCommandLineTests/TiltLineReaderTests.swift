#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import CarouselCommandLine

/// `LineReader`, which streams recordings for `carouselctl tilt`.
@Suite struct TiltLineReaderTests {
    static func lines(of text: [UInt8]) throws -> [String] {
        let path = try TiltCommandTests.temporaryFile(bytes: text)
        defer { unlink(path) }
        let reader = try LineReader(path: path)
        var result: [String] = []
        while let line = try reader.next() {
            result.append(line)
            #expect(reader.lineNumber == result.count)
        }
        return result
    }

    @Test func lfCrlfAndNoFinalNewline() throws {
        #expect(try Self.lines(of: Array("a,b\r\nc\n\nd\r".utf8)) == ["a,b", "c", "", "d"])
        #expect(try Self.lines(of: Array("x\n".utf8)) == ["x"])
        #expect(try Self.lines(of: []) == [])
        // Invalid UTF-8 becomes U+FFFD, the line is kept.
        #expect(try Self.lines(of: [0x31, 0xFF, 0x0A, 0x32]) == ["1\u{FFFD}", "2"])
    }

    @Test func linesAcrossReadChunks() throws {
        // 30,000 lines of 2 to 8 bytes: many lines straddle the 64 KiB read boundary.
        var text: [UInt8] = []
        var expected: [String] = []
        for k in 0..<30_000 {
            let line = String(k * 37 % 1_000_003)
            expected.append(line)
            text += Array(line.utf8) + (k % 3 == 0 ? [0x0D, 0x0A] : [0x0A])
        }
        #expect(try Self.lines(of: text) == expected)
    }

    @Test func refusesAnEndlessLineAndADirectory() throws {
        let long = [UInt8](repeating: 0x41, count: LineReader.maximumLineBytes + 10)
        #expect(throws: TextFile.Failure.self) { _ = try Self.lines(of: [0x0A] + long) }
        do {
            _ = try Self.lines(of: [0x0A] + long)
        } catch let failure as TextFile.Failure {
            guard case let .lineTooLong(_, line) = failure else { Issue.record("\(failure)"); return }
            #expect(line == 2 && failure.exitStatus == .dataError)
        }
        do {
            let reader = try LineReader(path: "/tmp")
            _ = try reader.next()
            Issue.record("reading a directory succeeded")
        } catch {
            #expect(error == .isDirectory(path: "/tmp") && error.exitStatus == .noInput)
        }
        #expect(throws: TextFile.Failure.notFound(path: "/nonexistent/x.csv")) { _ = try LineReader(path: "/nonexistent/x.csv") }
    }
}
