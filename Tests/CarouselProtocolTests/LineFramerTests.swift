import Testing
@testable import CarouselProtocol

@Suite struct LineFramerTests {
    @Test func splitsLinesAcrossChunks() throws {
        var f = LineFramer()
        f.append(Array("{\"cmd\":\"po".utf8))
        #expect(try f.nextLine() == nil)
        f.append(Array("ll\"}\r\n{\"cmd\":\"status\"}\n{\"x".utf8))
        #expect(try f.nextLine().map { String(decoding: $0, as: UTF8.self) } == "{\"cmd\":\"poll\"}")
        #expect(try f.nextLine().map { String(decoding: $0, as: UTF8.self) } == "{\"cmd\":\"status\"}")
        #expect(try f.nextLine() == nil)
        #expect(f.pendingByteCount == 3)
    }

    @Test func acceptsExactlyTheLimitAndRefusesOneMore() throws {
        var f = LineFramer(limit: 8)
        f.append(Array("12345678\n".utf8))
        #expect(try f.nextLine()?.count == 8)
        f.append(Array("123456789".utf8))
        #expect(throws: LineTooLongError(limit: 8)) { try f.nextLine() }
        var g = LineFramer(limit: 8)
        g.append(Array("123456789\n".utf8))
        #expect(throws: LineTooLongError(limit: 8)) { try g.nextLine() }
    }

    @Test func defaultLimitIs64KiB() throws {
        var f = LineFramer()
        #expect(f.limit == 65536)
        f.append([UInt8](repeating: 0x20, count: 65536))
        #expect(try f.nextLine() == nil)
        f.append([0x20])
        #expect(throws: LineTooLongError(limit: 65536)) { try f.nextLine() }
    }

    @Test func emptyLinesAreLines() throws {
        var f = LineFramer()
        f.append(Array("\n\n".utf8))
        #expect(try f.nextLine()?.count == 0)
        #expect(try f.nextLine()?.count == 0)
        #expect(try f.nextLine() == nil)
    }
}
