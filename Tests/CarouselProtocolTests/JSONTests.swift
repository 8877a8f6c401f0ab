import Testing
@testable import CarouselProtocol

@Suite struct JSONParserTests {
    @Test func parsesNestedValues() throws {
        let v = try WireJSONParser.parse(#" {"a": [1, -2.5e1, true, null], "b": {"c": "x\ny\u00e9\ud83d\ude00"}} "#)
        #expect(v["a"] == .array([.number(1), .number(-25), .bool(true), .null]))
        #expect(v["b"]?["c"]?.stringValue == "x\nyé😀")
    }

    @Test(arguments: [
        ("{", 1, "expected a string key"),
        ("{\"a\" 1}", 5, "expected ':' after a key"),
        ("[1,]", 3, "unexpected character ']'"),
        ("01", 1, "unexpected data after the value"),
        ("1e999", 0, "number out of range"),
        ("\"a\tb\"", 2, "control character in a string"),
        ("tru", 0, "unexpected end of input"),
        ("\"\\ud800\"", 7, "unpaired surrogate"),
    ])
    func reportsOffsetAndReason(text: String, offset: Int, reason: String) {
        #expect(throws: WireJSONParseError(offset: offset, reason: reason)) { try WireJSONParser.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: WireJSONParseError(offset: 64, reason: "nested deeper than 64")) { try WireJSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect((try? WireJSONParser.parse(ok)) != nil)
    }

    @Test func intValueOnlyForIntegralNumbers() {
        #expect(WireJSON.number(3).intValue == 3)
        #expect(WireJSON.number(3.5).intValue == nil)
        #expect(WireJSON.number(-0.0).intValue == 0)
        #expect(WireJSON.string("3").intValue == nil)
    }

    @Test func objectEqualityIgnoresKeyOrder() {
        #expect(WireJSON.object([("a", .number(1)), ("b", .null)]) == .object([("b", .null), ("a", .number(1))]))
        #expect(WireJSON.object([("a", .number(1))]) != .object([("a", .number(2))]))
    }
}

@Suite struct JSONWriterTests {
    @Test func normalisesNumbers() {
        #expect(WireJSONWriter.format(-0.0) == "0")
        #expect(WireJSONWriter.format(.nan) == "0")
        #expect(WireJSONWriter.format(-.infinity) == "0")
        #expect(WireJSONWriter.format(640) == "640")
        #expect(WireJSONWriter.format(-3) == "-3")
        #expect(WireJSONWriter.format(0.1) == "0.1")
        #expect(WireJSONWriter.format(1e-5) == "1e-05")
        #expect(WireJSONWriter.format(1e300) == "1e+300")
    }

    @Test func writesCompactObjectsWithEscapes() throws {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("s"); w.string("q\"\\\n\u{01}é")
        w.key("a"); w.beginArray(); w.int(1); w.number(-0.0); w.null(); w.bool(false); w.endArray()
        w.key("o"); w.beginObject(); w.endObject()
        w.endObject()
        #expect(w.text == #"{"s":"q\"\\\n\u0001é","a":[1,0,null,false],"o":{}}"#)
        // What we write, we can read back.
        #expect(try WireJSONParser.parse(w.text)["s"]?.stringValue == "q\"\\\n\u{01}é")
    }

    @Test func formattedNumbersRoundTrip() throws {
        for x in [0.1, 1.0 / 3.0, 123456.789, -2.5e-7, 9_007_199_254_740_993.0, 1e22] {
            #expect(try WireJSONParser.parse(WireJSONWriter.format(x)) == .number(x))
        }
    }
}
