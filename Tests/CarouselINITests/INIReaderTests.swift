import CarouselINI
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `INIReader.parse` against hand-written texts; every expected line number is counted by hand.
@Suite struct INIReaderTests {
    private func entry(_ section: String, _ key: String, _ value: String, _ line: Int) -> INIEntry {
        INIEntry(section: section, key: key, value: value, line: line)
    }

    @Test func keysAndSectionsCarryTheirLines() throws {
        let text = """
            ; leading comment
            # hash comment

            [sensor]
            source = iio
            rate: 50

            [tilt]
              ; indented comment
            max_deg = 25 ; inline comment
            [empty]
            """
        let document = try INIReader.parse(text)
        #expect(document.entries == [
            entry("sensor", "source", "iio", 5),
            entry("sensor", "rate", "50", 6),
            entry("tilt", "max_deg", "25", 10),
        ])
        #expect(document.sections == [
            INISection(name: "sensor", line: 4), INISection(name: "tilt", line: 8), INISection(name: "empty", line: 11),
        ])
    }

    /// A value with a byte that is not UTF-8 (Latin-1 `é`, 0xE9) decoded as U+FFFD and was
    /// taken as that other text: a socket path or a name silently changed. Comments, inline
    /// comments included, may hold any bytes.
    @Test func aValueThatIsNotUTF8IsRefusedWithItsLine() throws {
        func parse(_ bytes: [UInt8]) throws(INIError) -> INIDocument {
            try INIReader.parse(String(decoding: bytes, as: UTF8.self))
        }
        // Joined from typed parts: one long `+` chain of literals takes Swift 6.0 too long to type-check.
        let e9: [UInt8] = [0xE9]
        let parts: [[UInt8]] = [Array("[server]\n# caf".utf8), e9, Array("\nsocket = /tmp/cafe.sock ; caf".utf8), e9,
                                Array("\nsocket_group = caf".utf8), e9, Array("\n".utf8)]
        let latin1 = parts.flatMap { $0 }
        #expect(throws: INIError.valueNotUTF8(line: 4, section: "server", key: "socket_group")) { try parse(latin1) }
        // The same text in UTF-8 is read as written.
        let document = try INIReader.parse("[server]\n# café\nsocket = /tmp/café.sock ; café\n")
        #expect(document.entries == [entry("server", "socket", "/tmp/café.sock", 3)])
    }

    @Test func crlfLinesAreCountedOnce() throws {
        let document = try INIReader.parse("\u{FEFF}[a]\r\nx = 1 \r\n\r\ny=two words  \r\n[b]\r\nz = 3")
        #expect(document.entries == [entry("a", "x", "1", 2), entry("a", "y", "two words", 4), entry("b", "z", "3", 6)])
        #expect(document.sections == [INISection(name: "a", line: 1), INISection(name: "b", line: 5)])
    }

    @Test func aHashAfterAValueIsPartOfIt() throws {
        // Only `;` starts an inline comment, and only after whitespace.
        let document = try INIReader.parse("[f]\ngain = 0.8 # not a comment\npath = a;b\n")
        #expect(document.entries == [entry("f", "gain", "0.8 # not a comment", 2), entry("f", "path", "a;b", 3)])
    }

    @Test func emptyTextAndCommentsOnly() throws {
        #expect(try INIReader.parse("") == INIDocument(entries: [], sections: []))
        #expect(try INIReader.parse("; a\n# b\n\n") == INIDocument(entries: [], sections: []))
    }

    @Test func repeatedKeysAndSectionsAreKeptInOrder() throws {
        let document = try INIReader.parse("[a]\nx = 1\n[b]\n[a]\nx = 2\n")
        #expect(document.entries == [entry("a", "x", "1", 2), entry("a", "x", "2", 5)])
        #expect(document.sections.map(\.line) == [1, 3, 4])
    }

    @Test func syntaxErrorsNameTheLine() {
        #expect(throws: INIError.syntax(line: 3, text: "source iio")) {
            try INIReader.parse("[sensor]\n# ok\n  source iio  \nmode = auto\n")
        }
        #expect(throws: INIError.syntax(line: 2, text: "[tilt")) {
            try INIReader.parse("\n[tilt\nmode = velocity\n")
        }
        // The first problem in the file wins, whether libinih or the reader finds it.
        #expect(throws: INIError.syntax(line: 2, text: "oops")) {
            try INIReader.parse("[a]\noops\nx = 1\n  y = 2\n")
        }
    }

    @Test func aNulIsASyntaxErrorNotATruncation() {
        #expect(throws: INIError.syntax(line: 2, text: "x = 1\\0 y = 2")) {
            try INIReader.parse("[a]\nx = 1\0 y = 2\nz = 3\n")
        }
    }

    @Test func continuationLinesAreRefused() {
        #expect(throws: INIError.continuationLine(line: 3, section: "sensor", key: "source")) {
            try INIReader.parse("[sensor]\nsource = iio\n  replay_loop = yes\n")
        }
        // A comment or a blank line between does not end the key for libinih.
        #expect(throws: INIError.continuationLine(line: 5, section: "s", key: "k")) {
            try INIReader.parse("[s]\nk = v\n; c\n\n\tmore\n")
        }
    }

    @Test func anIndentedKeyAfterASectionHeaderIsAKey() throws {
        let document = try INIReader.parse("[a]\nx = 1\n[b]\n  y = 2\n")
        #expect(document.entries == [entry("a", "x", "1", 2), entry("b", "y", "2", 4)])
    }

    @Test func keysBeforeAnySection() {
        #expect(throws: INIError.keyOutsideSection(line: 2, key: "source")) {
            try INIReader.parse("# top\nsource = iio\n[a]\n")
        }
    }

    @Test func linesAtLibinihsLimit() throws {
        // libinih's buffer is 200 bytes: 197 of text plus `\r`, `\n` and the NUL.
        let value = String(repeating: "d", count: 197 - "device = ".utf8.count)
        let document = try INIReader.parse("[s]\r\ndevice = \(value)\r\nmode = polled\r\n")
        #expect(document.entries == [entry("s", "device", value, 2), entry("s", "mode", "polled", 3)])
        #expect(throws: INIError.lineTooLong(line: 2, maximum: 197)) {
            try INIReader.parse("[s]\ndevice = \(value)d\nmode = polled\n")
        }
        // A long comment with `=` in it is refused, never split into a bogus extra key.
        let comment = "# " + String(repeating: "x", count: 200) + " mode = polled"
        #expect(throws: INIError.lineTooLong(line: 2, maximum: 197)) {
            try INIReader.parse("[s]\n\(comment)\n")
        }
    }

    @Test func manyLinesKeepExactNumbers() throws {
        var text = "[n]\n"
        for index in 1...500 { text += index % 3 == 0 ? "; comment \(index)\n" : "k\(index) = \(index)\n" }
        let document = try INIReader.parse(text)
        #expect(document.entries.count == 334)
        #expect(document.entries.allSatisfy { $0.line == Int($0.value)! + 1 && $0.key == "k\($0.value)" })
    }

    @Test func errorLineAccessor() {
        #expect(INIError.continuationLine(line: 7, section: "a", key: "b").line == 7)
        #expect(INIError.lineTooLong(line: 3, maximum: 197).line == 3)
    }
}

@Suite struct INIFileTests {
    @Test func readsMissingAndUnreadableFiles() throws {
        var template = Array("/tmp/carousel-ini-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { rmdir(directory) }
        #expect(throws: INIFileError.missing(path: directory + "/none.ini")) {
            try INIReader.readFile(directory + "/none.ini")
        }
        #expect(throws: INIFileError.unreadable(path: directory, errno: EISDIR)) {
            try INIReader.readFile(directory)
        }
        // A FIFO's open waited for a writer (a reload of carouseld stopped for good), and a
        // device was read as a file: /dev/null as an empty one. Both are refused unread.
        #expect(mkfifo(directory + "/fifo.ini", 0o600) == 0)
        defer { unlink(directory + "/fifo.ini") }
        #expect(throws: INIFileError.notRegularFile(path: directory + "/fifo.ini", kind: "a FIFO")) {
            try INIReader.readFile(directory + "/fifo.ini")
        }
        #expect(throws: INIFileError.notRegularFile(path: "/dev/null", kind: "a character device")) {
            try INIReader.readFile("/dev/null")
        }
        let path = directory + "/a.ini"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let text = "[a]\nx = 1\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        defer { unlink(path) }
        #expect(try INIReader.readFile(path) == text)
        #expect(try INIReader.parse(INIReader.readFile(path)).entries == [INIEntry(section: "a", key: "x", value: "1", line: 2)])
    }
}
