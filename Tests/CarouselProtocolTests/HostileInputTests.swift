import Testing
@testable import CarouselProtocol

/// Inputs a hostile run found accepted with a meaning the client did not write (issue 15,
/// defect 8).
@Suite struct HostileInputTests {
    private func decodeError(_ line: String) -> ProtocolError? {
        do {
            _ = try RequestDecoder.decode(line: Array(line.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// `"enable": null` read as absent, i.e. `true`: a client that meant "off" started watching.
    @Test func nullForABooleanIsABadFieldNamingIt() {
        for (line, field) in [(#"{"cmd":"watch","enable":null}"#, "enable"), (#"{"cmd":"watch","items":null}"#, "items"),
                              (#"{"cmd":"samples","enable":null}"#, "enable"),
                              (#"{"cmd":"scroll_to","index":1,"animated":null}"#, "animated"),
                              (#"{"cmd":"set_tilt","enabled":null}"#, "enabled")] {
            let error = decodeError(line)
            #expect(error?.code == .badField, "\(line): \(String(describing: error))")
            #expect(error?.message == "field '\(field)': expected a boolean, got null (omit the field instead)", "\(line)")
        }
        // Absent still means the default.
        #expect(throws: Never.self) { try RequestDecoder.decode(line: Array(#"{"cmd":"watch"}"#.utf8)) }
    }

    /// `1e-400` parsed as 0 (and `{"cmd":"scroll_to","index":1e-400}` scrolled to item 0).
    @Test func numbersThatUnderflowAreRejected() {
        for text in ["1e-400", "-1e-400", "[1e-400]", "2e-320", "0.5e-308", "{\"a\":4.9e-324}"] {
            #expect(throws: WireJSONParseError.self, "\(text)") { try WireJSONParser.parse(text) }
        }
        let error = decodeError(#"{"cmd":"scroll_to","index":1e-400}"#)
        #expect(error?.code == .badJSON)
        #expect(error?.message.contains("number too small") == true, "\(String(describing: error))")
        // Zero written any way, and the smallest normal double, are exact.
        for (text, value) in [("0", 0.0), ("-0.0", 0.0), ("0e-400", 0.0), ("0.000E+999", 0.0),
                              ("2.2250738585072014e-308", 2.2250738585072014e-308), ("1e-300", 1e-300)] {
            #expect((try? WireJSONParser.parse(text)) == .number(value), "\(text)")
        }
    }
}
