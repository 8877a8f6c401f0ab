/// The state of one `INIReader.parse`: the text, split into lines as libinih asks for them, and
/// what libinih's handler reported.
///
/// libinih calls `nextLine` for each line and, while processing that line, the handler
/// (`record`) for its key, so `lineNumber` is always the line of the key being recorded.
final class INILineStream {
    private let bytes: [UInt8]
    private var offset = 0
    /// Byte ranges of the lines handed out so far, without their line endings.
    private var lineRanges: [Range<Int>] = []
    /// Whether the line handed out last is indented and follows a key in the same section:
    /// libinih (multi-line values on) then calls the handler with the previous key's name.
    private var lineIsContinuation = false
    /// libinih's `prev_name` is set: a key was read since the last section header.
    private var keySinceSection = false

    private(set) var entries: [INIEntry] = []
    private(set) var sections: [INISection] = []
    /// The first problem found (parsing stops there).
    private(set) var problem: INIError?

    /// libinih's section buffer (`MAX_SECTION` 50) holds 49 bytes; a longer name is truncated.
    private static let maximumSectionBytes = 49

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var lineNumber: Int { lineRanges.count }

    /// Copies the next line, with its `\n`, NUL-terminated into libinih's `buffer` of
    /// `capacity` bytes; `nil` at the end of the text or after a problem.
    func nextLine(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> UnsafeMutablePointer<CChar>? {
        guard problem == nil, offset < bytes.count else { return nil }
        let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        let range = offset..<end
        let handedOut = offset..<min(end + 1, bytes.count)
        offset = handedOut.upperBound
        lineRanges.append(range)

        // "3 more than the longest line" (ini.h): room for `\r`, `\n` and the NUL.
        let maximum = capacity - 3
        let content = bytes[range].last == UInt8(ascii: "\r") ? range.count - 1 : range.count
        if content > maximum {
            problem = .lineTooLong(line: lineNumber, maximum: maximum)
            return nil
        }
        if bytes[range].contains(0) {
            problem = .syntax(line: lineNumber, text: displayText(ofLine: lineNumber))
            return nil
        }
        classify(range)
        for (index, byte) in bytes[handedOut].enumerated() {
            buffer[index] = CChar(bitPattern: byte)
        }
        buffer[handedOut.count] = 0
        return buffer
    }

    /// libinih's handler: one key (or a continuation of the previous key) on the current line.
    func record(section: String, key: String, value: String) {
        guard problem == nil else { return }
        if lineIsContinuation {
            problem = .continuationLine(line: lineNumber, section: section, key: key)
        } else if section.isEmpty {
            problem = .keyOutsideSection(line: lineNumber, key: key)
        } else if value.unicodeScalars.contains("\u{FFFD}") {
            // The text was decoded with invalid bytes replaced (comments may hold any bytes).
            problem = .valueNotUTF8(line: lineNumber, section: section, key: key)
        } else {
            entries.append(INIEntry(section: section, key: key, value: value, line: lineNumber))
            keySinceSection = true
        }
    }

    /// The line, whitespace stripped, NUL shown as `\0`, at most 80 characters.
    func displayText(ofLine line: Int) -> String {
        guard line >= 1 && line <= lineRanges.count else { return "" }
        let text = String(decoding: Self.stripped(bytes[lineRanges[line - 1]]), as: UTF8.self)
        return String(text.replacing("\0", with: "\\0").prefix(80))
    }

    /// Notes what libinih will make of the line in the order it decides (comment, continuation,
    /// section): whether it continues a value, and each `[section]` header, which libinih does
    /// not report when the section has no keys.
    private func classify(_ range: Range<Int>) {
        var line = bytes[range]
        if lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        let start = Self.stripped(line)
        lineIsContinuation = false
        guard let first = start.first, first != UInt8(ascii: ";"), first != UInt8(ascii: "#") else { return }
        if keySinceSection && start.startIndex > range.lowerBound {
            lineIsContinuation = true
        } else if first == UInt8(ascii: "[") {
            let body = start.dropFirst()
            guard let close = Self.endOfToken(body, stoppingAt: UInt8(ascii: "]")),
                  body[close] == UInt8(ascii: "]") else { return }
            if close - body.startIndex > Self.maximumSectionBytes {
                problem = .syntax(line: lineNumber, text: displayText(ofLine: lineNumber))
                return
            }
            sections.append(INISection(name: String(decoding: body[..<close], as: UTF8.self), line: lineNumber))
            keySinceSection = false
        }
    }

    /// libinih's `find_chars_or_comment`: the first `stop` byte or inline comment (`;` after
    /// whitespace).
    private static func endOfToken(_ text: ArraySlice<UInt8>, stoppingAt stop: UInt8) -> Int? {
        var afterSpace = false
        for index in text.indices {
            let byte = text[index]
            if byte == stop || (afterSpace && byte == UInt8(ascii: ";")) { return index }
            afterSpace = isSpace(byte)
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func stripped(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
        return text[first...last]
    }
}
