/// Why a text is not one JSON value: the byte offset (0-based) and a short reason.
public struct WireJSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public init(offset: Int, reason: String) { self.offset = offset; self.reason = reason }
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }

    /// The 1-based line and column of `offset` in `text` (columns count bytes), for messages
    /// about files a person edits (`carouselctl simulate`).
    public func lineAndColumn(in text: String) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in text.utf8.prefix(offset) {
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}

/// A strict RFC 8259 parser for one JSON text (surrounding whitespace allowed). Hand-written so
/// that the daemon needs no Foundation and a hostile line cannot recurse without bound. The one
/// JSON parser of the project: protocol requests use the defaults; `carouselctl simulate` sets
/// `Limits` for scenario files (and turns the byte offset into line and column).
public struct WireJSONParser {
    /// Arrays and objects nested deeper than this are refused (a 64 KiB line of `[` would
    /// otherwise exhaust the stack).
    public static let maximumDepth = 64

    /// Bounds and strictness beyond RFC 8259's grammar.
    public struct Limits: Sendable {
        /// Deepest nesting of arrays and objects accepted.
        public var maximumDepth: Int
        /// Most values (containers included) in one text; beyond it: "more than N values".
        public var maximumValues: Int
        /// A repeated key in one object is an error ("duplicate key 'k'") instead of the last
        /// one winning on lookup.
        public var rejectsDuplicateKeys: Bool
        /// A leading UTF-8 byte order mark is skipped (RFC 8259 §8.1 allows ignoring it).
        public var skipsByteOrderMark: Bool

        public init(maximumDepth: Int = WireJSONParser.maximumDepth, maximumValues: Int = Int.max,
                    rejectsDuplicateKeys: Bool = false, skipsByteOrderMark: Bool = false) {
            self.maximumDepth = maximumDepth
            self.maximumValues = maximumValues
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
            self.skipsByteOrderMark = skipsByteOrderMark
        }

        /// One protocol line (docs/PROTOCOL.md "Conventions"), as a client reads the server's lines.
        public static let wire = Limits()
        /// One request line: a repeated key is refused, so `{"cmd":"poll","cmd":"status"}` is
        /// `bad_json` rather than a guess at which `cmd` the client meant.
        public static let request = Limits(rejectsDuplicateKeys: true)
    }

    /// Parses `text` as exactly one JSON value.
    /// - Throws: `WireJSONParseError` with the byte offset of the first problem.
    public static func parse(_ text: String, limits: Limits = .wire) throws(WireJSONParseError) -> WireJSON {
        try parse(Array(text.utf8), limits: limits)
    }

    /// Parses the UTF-8 bytes as exactly one JSON value.
    /// - Throws: `WireJSONParseError` with the byte offset of the first problem.
    public static func parse(_ bytes: some Collection<UInt8>, limits: Limits = .wire) throws(WireJSONParseError) -> WireJSON {
        let array = Array(bytes)
        var result: Result<WireJSON, WireJSONParseError> = .failure(WireJSONParseError(offset: 0, reason: "empty"))
        array.withUnsafeBufferPointer { buffer in
            result = Result { () throws(WireJSONParseError) -> WireJSON in try parse(buffer, limits: limits) }
        }
        return try result.get()
    }

    /// Parses the UTF-8 bytes as exactly one JSON value.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, limits: Limits = .wire) throws(WireJSONParseError) -> WireJSON {
        var parser = Cursor(bytes: buffer, limits: limits)
        if limits.skipsByteOrderMark, buffer.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.index < buffer.count {
            throw WireJSONParseError(offset: parser.index, reason: "unexpected data after the value")
        }
        return value
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let limits: Limits
        var index = 0
        var valueCount = 0

        init(bytes: UnsafeBufferPointer<UInt8>, limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func fail(_ reason: String) -> WireJSONParseError { WireJSONParseError(offset: index, reason: reason) }

        mutating func value(depth: Int) throws(WireJSONParseError) -> WireJSON {
            guard let byte = current else { throw fail("unexpected end of input") }
            valueCount += 1
            if valueCount > limits.maximumValues { throw fail("more than \(limits.maximumValues) values") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default:
                // A non-ASCII byte is named by its value: printed as a character it would be a
                // misleading Latin-1 letter (the first byte of a UTF-8 sequence).
                throw fail(byte < 0x80 ? "unexpected character '\(Unicode.Scalar(byte))'"
                                       : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))")
            }
        }

        mutating func literal(_ word: StaticString) throws(WireJSONParseError) {
            let start = index
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw fail("unexpected end of input") }
            for k in 0..<count where bytes[start + k] != word.utf8Start[k] {
                index = start + k
                throw fail("invalid literal")
            }
            index += count
        }

        mutating func object(depth: Int) throws(WireJSONParseError) -> WireJSON {
            guard depth <= limits.maximumDepth else { throw fail("nested deeper than \(limits.maximumDepth)") }
            index += 1
            var members: [(String, WireJSON)] = []
            // A set, not a scan of `members`: duplicate checks stay O(n) for objects of 100 000 keys.
            var keys: Set<String> = []
            skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                if limits.rejectsDuplicateKeys, !keys.insert(key).inserted { throw fail("duplicate key '\(key)'") }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                index += 1
                skipWhitespace()
                let member = try value(depth: depth)
                members.append((key, member))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return .object(members)
                case nil: throw fail("unexpected end of input in an object")
                default: throw fail("expected ',' or '}' in an object")
                }
            }
        }

        mutating func array(depth: Int) throws(WireJSONParseError) -> WireJSON {
            guard depth <= limits.maximumDepth else { throw fail("nested deeper than \(limits.maximumDepth)") }
            index += 1
            var elements: [WireJSON] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return .array(elements)
                case nil: throw fail("unexpected end of input in an array")
                default: throw fail("expected ',' or ']' in an array")
                }
            }
        }

        mutating func number() throws(WireJSONParseError) -> Double {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, isDigit(first) else { throw fail("expected a digit") }
            index += 1
            if first != UInt8(ascii: "0") { while let d = current, isDigit(d) { index += 1 } }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let d = current, isDigit(d) else { throw fail("expected a digit after '.'") }
                while let d = current, isDigit(d) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let d = current, isDigit(d) else { throw fail("expected a digit in the exponent") }
                while let d = current, isDigit(d) { index += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                index = start
                throw fail("number out of range")
            }
            // 1e-400 reads as 0 and 1e-320 as a subnormal that keeps a few bits: a value other
            // than the one written. Only an exact zero may come out below the normal range.
            if abs(value) < Double.leastNormalMagnitude, !mantissaIsZero(bytes[start..<index]) {
                index = start
                throw fail("number too small (below 2.2250738585072014e-308, it underflows)")
            }
            return value
        }

        /// Whether the digits before the exponent are all `0` (`0.000e5` is an exact zero).
        func mantissaIsZero(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            !text.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
                .contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
        }

        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

        mutating func hex4() throws(WireJSONParseError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw fail("invalid hex digit in \\u escape")
                }
                v = v << 4 | digit
                index += 1
            }
            return v
        }

        mutating func string() throws(WireJSONParseError) -> String {
            index += 1 // opening quote
            var utf8: [UInt8] = []
            while true {
                guard let b = current else { throw fail("unterminated string") }
                switch b {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let s = String(validating: utf8, as: UTF8.self) else {
                        throw fail("string is not valid UTF-8")
                    }
                    return s
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let e = current else { throw fail("unterminated escape") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): utf8.append(0x22)
                    case UInt8(ascii: "\\"): utf8.append(0x5C)
                    case UInt8(ascii: "/"): utf8.append(0x2F)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                                  bytes[index + 1] == UInt8(ascii: "u") else { throw fail("unpaired surrogate") }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw fail("unpaired surrogate")
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                        utf8.append(contentsOf: String(u).utf8)
                    default:
                        index -= 1
                        throw fail("invalid escape")
                    }
                case 0x00..<0x20:
                    throw fail("control character in a string")
                default:
                    utf8.append(b)
                    index += 1
                }
            }
        }
    }
}
