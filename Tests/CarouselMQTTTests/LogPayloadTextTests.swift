import Testing
@testable import CarouselMQTT

/// Log escaping reads back unambiguously: a control character is always `\x` and two hex digits
/// (with one digit, `\x1` + `b` would read as ESC, `\x1b`), and a backslash is doubled (so a
/// payload holding the text `\x0a` is not taken for an escaped newline).
@Suite struct LogPayloadTextTests {
    @Test func controlCharactersAlwaysTakeTwoHexDigits() {
        #expect(LogPayloadText.shown(Array("\u{1}b".utf8)) == #"\x01b"#)
        #expect(LogPayloadText.shown(Array("\u{1B}".utf8)) == #"\x1b"#)
        #expect(LogPayloadText.shown(Array("a\nb\r\t".utf8)) == #"a\x0ab\x0d\x09"#)
        #expect(LogPayloadText.shown([0x7F, 0x00]) == #"\x7f\x00"#)
    }

    @Test func aBackslashIsDoubledSoEscapesCannotBeForged() {
        #expect(LogPayloadText.shown(Array(#"\x0a"#.utf8)) == #"\\x0a"#)
        #expect(LogPayloadText.shown(Array("\\\n".utf8)) == #"\\\x0a"#)
        // The two payloads differ, and so do their log texts.
        #expect(LogPayloadText.shown(Array("\n".utf8)) != LogPayloadText.shown(Array(#"\x0a"#.utf8)))
    }

    @Test func longPayloadsAreCutAt64BytesWithAnEllipsis() {
        let text = String(repeating: "é", count: 40)  // 80 bytes
        // 64 bytes = 32 complete "é".
        #expect(LogPayloadText.shown(Array(text.utf8)) == String(repeating: "é", count: 32) + "…")
        #expect(LogPayloadText.shown(Array("ok".utf8)) == "ok")
    }

    /// Text from carouseld (its `release`, sensor messages…) is escaped like a payload, C1
    /// controls too, and cut at 128 bytes, so a daemon cannot put ANSI escapes in the log.
    @Test func daemonTextIsEscapedWithC1ControlsAndCut() {
        #expect(LogPayloadText.shown(daemonText: "0.1\u{1B}[31mred\u{7}") == #"0.1\x1b[31mred\x07"#)
        #expect(LogPayloadText.shown(daemonText: "a\u{9B}2Jb\u{85}") == #"a\x9b2Jb\x85"#)
        #expect(LogPayloadText.shown(daemonText: String(repeating: "r", count: 200)) == String(repeating: "r", count: 128) + "…")
    }
}
