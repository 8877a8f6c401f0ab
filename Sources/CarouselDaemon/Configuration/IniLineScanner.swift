/// A line-by-line reading of INI text that mirrors libinih r55's rules, to give every key,
/// section and problem its line number (Debian's libinih calls the handler without one).
///
/// libinih's rules, from its `ini_parse_stream`: whitespace is stripped at both ends; a line
/// starting with `;` or `#` is a comment; a line starting with whitespace after a key line is a
/// continuation of that key (multi-line values are on in Debian's build); `[name]` starts a
/// section; otherwise the name runs to the first `=` or `:`; an inline comment starts at a `;`
/// that follows whitespace.
enum IniLineScanner {
    /// libinih's line buffer is 200 bytes, including `\r`, `\n` and the NUL (ini.h: "3 more
    /// than the longest line"); a longer line is split and misread, so it is refused.
    static let maximumLineBytes = 197

    struct Line {
        enum Kind: Equatable {
            case blank
            case comment
            case section(String)
            case key(section: String, name: String)
            case continuation(section: String, name: String)
            /// Neither a comment, a section nor a key (libinih reports it as an error).
            case malformed
        }
        var number: Int
        var text: String
        var kind: Kind
        var byteCount: Int
        var containsNUL: Bool
    }

    static func scan(_ text: String) -> [Line] {
        var result: [Line] = []
        var section = ""
        var previousKey = ""
        // Split on U+000A scalars: in Swift "\r\n" is one Character and would not split.
        var rawLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)) }
        if rawLines.last == "" { rawLines.removeLast() }
        for (offset, raw) in rawLines.enumerated() {
            var line = Substring(raw)
            if offset == 0 && line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            let stripped = strip(line)
            let startsWithSpace = line.first.map { $0 == " " || $0 == "\t" } ?? false
            let kind: Line.Kind
            if stripped.isEmpty {
                kind = .blank
            } else if stripped.hasPrefix(";") || stripped.hasPrefix("#") {
                kind = .comment
            } else if !previousKey.isEmpty && startsWithSpace {
                kind = .continuation(section: section, name: previousKey)
            } else if stripped.hasPrefix("[") {
                let body = stripped.dropFirst()
                if let close = endOfToken(body, stoppingAt: "]"), body[close] == "]" {
                    section = String(body[..<close])
                    previousKey = ""
                    kind = .section(section)
                } else {
                    kind = .malformed
                }
            } else if let end = endOfToken(stripped, stoppingAt: "=:"), stripped[end] == "=" || stripped[end] == ":" {
                previousKey = String(strip(stripped[..<end]))
                kind = .key(section: section, name: previousKey)
            } else {
                kind = .malformed
            }
            let display = String(strip(line).replacing("\0", with: "\\0").prefix(80))
            result.append(Line(number: offset + 1, text: display, kind: kind,
                               byteCount: raw.utf8.count - (raw.hasSuffix("\r") ? 1 : 0),
                               containsNUL: raw.contains("\0")))
        }
        return result
    }

    /// The index of the first character of `stops`, or of an inline `;` comment (a `;` after
    /// whitespace); `nil` when neither occurs.
    private static func endOfToken(_ text: Substring, stoppingAt stops: String) -> Substring.Index? {
        var afterSpace = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if stops.contains(character) { return index }
            if afterSpace && character == ";" { return index }
            afterSpace = character == " " || character == "\t"
            index = text.index(after: index)
        }
        return nil
    }

    private static func strip(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
        return text[first...last]
    }
}
