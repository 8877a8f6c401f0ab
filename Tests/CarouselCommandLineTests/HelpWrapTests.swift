import Testing
@testable import CarouselCommandLine

/// Help text is wrapped greedily to 79 columns: no line is longer (unless it is one long word)
/// and no line could have taken the next line's first word, so no word is left alone on a line.
@Suite struct HelpWrapTests {
    /// Lines of the discussion block: after the summary, before "Arguments:"/"Options:".
    private func discussionLines(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = lines.dropFirst(4)
        return Array(body.prefix { $0 != "Arguments:" && $0 != "Options:" })
    }

    @Test(arguments: Carouselctl.commands.map(\.name))
    func discussionIsWrappedGreedily(command: String) throws {
        let spec = try #require(Carouselctl.commands.first { $0.name == command })
        let lines = discussionLines(helpText(for: spec))
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            #expect(line.count <= helpLineWidth || !line.contains(" "), "too long: \(line)")
            let indent = next.prefix { $0 == " " }.count
            guard indent == line.prefix(while: { $0 == " " }).count,
                  !next.dropFirst(indent).hasPrefix("- "), !next.hasPrefix("Exit status:") else { continue }
            let word = next.dropFirst(indent).split(separator: " ").first ?? ""
            #expect(line.count + 1 + word.count > helpLineWidth, "'\(word)' would fit on: \(line)")
        }
    }

    /// A line holding one word is only ever the end of a paragraph (a short last line), never
    /// a word pushed out of a source line that was wrapped at a different width.
    @Test func simulateAndTiltHaveNoLoneWordsInsideParagraphs() throws {
        for name in ["simulate", "tilt"] {
            let spec = try #require(Carouselctl.commands.first { $0.name == name })
            let lines = discussionLines(helpText(for: spec))
            for (index, line) in lines.enumerated() where !line.isEmpty && !line.contains(" ") {
                let next = index + 1 < lines.count ? lines[index + 1] : ""
                #expect(next.isEmpty || next.hasPrefix("Exit status:"), "\(name): lone word '\(line)' before '\(next)'")
            }
        }
    }

    @Test func paragraphsAreReflowedAndExitStatusStartsItsOwn() {
        let text = "one two three\nfour five\nExit status: 0 ok\n\n  indented a\n  indented b\n- item"
        #expect(wrapParagraphs(text) == "one two three four five\nExit status: 0 ok\n\n  indented a indented b\n- item\n")
        let long = String(repeating: "word ", count: 20)
        #expect(wrapParagraphs(long).split(separator: "\n").map(\.count) == [79, 19])
    }
}
