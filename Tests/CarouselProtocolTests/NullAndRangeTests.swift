import CarouselProtocol
import Testing

/// Hostile review of issue 15: `null` for a number or a string was read as "absent" while a
/// boolean refused it, and a whole number too large for exact arithmetic was reported as "not
/// whole". One rule now: a known member given as `null` is `bad_field` naming it; a whole number
/// outside the field's range is "out of range lo…hi".
@Suite struct NullAndRangeTests {
    private func message(_ line: String) -> String? {
        do {
            _ = try RequestDecoder.decode(line: Array(line.utf8))
            return nil
        } catch {
            #expect(error.code == .badField, "\(line)")
            return error.message
        }
    }

    @Test func nullForAnOptionalNumberOrStringIsABadFieldNamingIt() {
        let cases: [(String, String)] = [
            (#"{"cmd":"drag","phase":"ended","location":1,"velocity":null}"#, "field 'velocity': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"tap","location":1,"cross":null}"#, "field 'cross': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"outer_scroll_ended","y":null}"#, "field 'y': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"watch","max_rate_hz":null}"#, "field 'max_rate_hz': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"set_tilt","max_deg":null}"#, "field 'max_deg': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"set_tilt","mode":null}"#, "field 'mode': expected a string, got null (omit the field instead)"),
            (#"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"spacing":null}"#,
             "field 'spacing': expected a number, got null (omit the field instead)"),
            (#"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"axis":null}"#,
             "field 'axis': expected a string, got null (omit the field instead)"),
        ]
        for (line, expected) in cases { #expect(message(line) == expected, "\(line)") }
    }

    @Test func nullForARequiredFieldNamesItAndItsType() {
        #expect(message(#"{"cmd":"scroll_to","index":null}"#) == "field 'index': expected an integer, got null")
        #expect(message(#"{"cmd":"drag","phase":"began","location":null}"#) == "field 'location': expected a number, got null")
        #expect(message(#"{"cmd":"drag","phase":null,"location":1}"#) == "field 'phase': expected a string, got null")
        #expect(message(#"{"cmd":"set_geometry","viewport":null,"item":{"width":1,"height":1}}"#)
                == #"field 'viewport': expected an object {"width", "height"}, got null"#)
        // Absent is still "missing".
        #expect(message(#"{"cmd":"scroll_to"}"#) == "missing field 'index'")
    }

    @Test func aHugeWholeNumberIsOutOfRangeNotFractional() {
        #expect(message(#"{"cmd":"set_count","count":1e20}"#) == "field 'count': out of range 0…1000000000, got 1e+20")
        #expect(message(#"{"cmd":"set_count","count":9007199254740993}"#) == "field 'count': out of range 0…1000000000, got 9007199254740992.0")
        #expect(message(#"{"cmd":"set_count","count":1000000001}"#) == "field 'count': out of range 0…1000000000, got 1000000001")
        #expect(message(#"{"cmd":"scroll_to","index":-1e300}"#) == "field 'index': out of range 0…1000000000, got -1e+300")
        // A fraction is still "expected an integer".
        #expect(message(#"{"cmd":"set_count","count":2.5}"#) == "field 'count': expected an integer, got 2.5")
        #expect(throws: Never.self) { try RequestDecoder.decode(line: Array(#"{"cmd":"set_count","count":1000000000}"#.utf8)) }
    }
}
