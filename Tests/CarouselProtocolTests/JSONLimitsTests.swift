import Testing
@testable import CarouselProtocol

/// `WireJSONParser.Limits`: the protocol's defaults and the stricter settings scenario files use.
@Suite struct JSONLimitsTests {
    @Test func duplicateKeysOnlyWhenAsked() throws {
        // Protocol default: the last value wins on lookup.
        #expect(try WireJSONParser.parse(#"{"a":1,"a":2}"#)["a"] == .number(2))
        let strict = WireJSONParser.Limits(rejectsDuplicateKeys: true)
        // Offset 10: just after the second key `"a"`.
        #expect(throws: WireJSONParseError(offset: 10, reason: "duplicate key 'a'")) {
            try WireJSONParser.parse(#"{"a":1,"a":2}"#, limits: strict)
        }
    }

    @Test func valueCountDepthAndByteOrderMark() throws {
        // [0,0,0] holds 4 values; the 4th (the last 0, offset 5) is one too many for a limit of 3.
        #expect(throws: WireJSONParseError(offset: 5, reason: "more than 3 values")) {
            try WireJSONParser.parse("[0,0,0]", limits: .init(maximumValues: 3))
        }
        #expect(throws: WireJSONParseError(offset: 2, reason: "nested deeper than 2")) {
            try WireJSONParser.parse("[[[]]]", limits: .init(maximumDepth: 2))
        }
        let bom = "\u{FEFF}[1]"
        #expect(throws: WireJSONParseError(offset: 0, reason: "unexpected byte 0xEF")) { try WireJSONParser.parse(bom) }
        #expect(try WireJSONParser.parse(bom, limits: .init(skipsByteOrderMark: true)) == .array([.number(1)]))
    }

    @Test func lineAndColumnCountBytesFromOne() {
        let text = "{\n  \"a\": 1,\n  x"
        // Offset 14 is the 'x': line 3, column 3.
        #expect(WireJSONParseError(offset: 14, reason: "").lineAndColumn(in: text) == (3, 3))
        #expect(WireJSONParseError(offset: 0, reason: "").lineAndColumn(in: text) == (1, 1))
    }
}
