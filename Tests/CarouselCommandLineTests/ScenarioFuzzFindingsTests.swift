import Testing
import CarouselCommandLine

/// What fuzzing the scenario reader (Fuzz/FuzzScenario) found, kept as tests.
@Suite struct ScenarioFuzzFindingsTests {
    static let base = #""viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"count":3"#

    /// A misspelt key is named in the exit-65 message as written; one holding a newline and an
    /// escape sequence (`"a\nb\u001b[31m"`) was printed raw, splitting the message over two
    /// lines and turning the operator's terminal red. Control characters now show as `\xNN`.
    @Test func aKeyWithControlCharactersIsNamedOnOneCleanLine() {
        let text = "{" + Self.base + #","a\nb\u001b[31m":1}"#
        #expect(throws: ScenarioSimulation.InputError.self) { try ScenarioSimulation.plan(text) }
        do {
            _ = try ScenarioSimulation.plan(text)
        } catch {
            #expect(error.path == "a\nb\u{1B}[31m")
            #expect(error.description == #"a\x0ab\x1b[31m: unknown key"#)
        }
    }

    /// A key may hold `[` or `.` (the input that first broke the fuzz target's own path check):
    /// it is named as written, and the message is still one line.
    @Test func aKeyWithBracketsIsNamedAsWritten() {
        do {
            _ = try ScenarioSimulation.plan("{" + Self.base + #","fr[ames":{}}"#)
            Issue.record("a scenario with an unknown key was accepted")
        } catch {
            #expect(error.description == "fr[ames: unknown key")
        }
    }

    /// The public entry point plans and runs what `carouselctl simulate` would: 3 items at rest,
    /// frames every 0.5 s until 1 s → t = 0, 0.5, 1 (docs/ENGINE.md "carouselctl simulate: scenarios", Frames).
    @Test func planAndRunAgreeOnTheFrames() throws {
        let text = "{" + Self.base + #","frames":{"every":0.5,"until":1}}"#
        let plan = try ScenarioSimulation.plan(text)
        #expect(plan.frameCount == 3)
        #expect(plan.eventCount == 0)
        var lines: [String] = []
        try ScenarioSimulation.run(text) { lines.append($0) }
        #expect(lines.count == 3)
        #expect(lines.map { $0.hasPrefix(#"{"t":0,"#) || $0.hasPrefix(#"{"t":0.5,"#) || $0.hasPrefix(#"{"t":1,"#) } == [true, true, true])
    }
}
