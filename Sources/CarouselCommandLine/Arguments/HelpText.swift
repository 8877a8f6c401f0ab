/// Renders `carouselctl NAME --help`: usage line, summary, discussion, positionals and options.
public func helpText(for spec: CommandSpec, program: String = "carouselctl") -> String {
    var usage = "\(program) \(spec.name)"
    if !spec.options.isEmpty { usage += " [OPTIONS]" }
    for p in spec.positionals {
        let word = p.variadic ? "\(p.name)..." : p.name
        usage += p.optional || p.variadic ? " [\(word)]" : " \(word)"
    }
    var text = "Usage: \(usage)\n\n\(spec.summary)\n"
    if !spec.discussion.isEmpty { text += "\n" + wrapParagraphs(spec.discussion) }
    if !spec.positionals.isEmpty {
        text += "\nArguments:\n"
        for p in spec.positionals { text += row(p.name, p.help) }
    }
    text += "\nOptions:\n"
    for o in spec.options {
        var left = o.short.map { "\($0), \(o.name)" } ?? "    \(o.name)"
        if let v = o.valueName { left += " \(v)" }
        text += row(left, o.help)
    }
    text += row("-h, --help", "Show this help and exit.")
    return text
}

/// Renders `carouselctl --help`: the list of subcommands with their summaries.
public func overviewText(commands: [CommandSpec], program: String = "carouselctl") -> String {
    var text = """
    Usage: \(program) COMMAND [OPTIONS] [ARGUMENTS]

    Control and inspect carouseld, calibrate its motion sensor, and run the carousel engine and
    tilt estimator offline.

    Commands:

    """
    for c in commands { text += row(c.name, c.summary) }
    text += """

    Run '\(program) COMMAND --help' for a command's options.
    Exit status: 0 ok, 64 usage, 65 bad input data, 66 input file missing, 69 daemon or sensor
    unavailable, 74 I/O error, 77 permission denied, 78 configuration error.

    """
    return text
}

private func row(_ left: String, _ right: String) -> String {
    let pad = max(1, 28 - left.count - 2)
    // Help texts longer than the line continue under the help column, like man pages.
    let lines = wrap(right, width: helpLineWidth - 28)
    let rest = lines.dropFirst().map { String(repeating: " ", count: 28) + $0 + "\n" }.joined()
    if left.count + 2 >= 28 {
        return "  \(left)\n" + String(repeating: " ", count: 28) + (lines.first ?? "") + "\n" + rest
    }
    return "  \(left)" + String(repeating: " ", count: pad) + (lines.first ?? "") + "\n" + rest
}

/// Width help text is wrapped to (a classic 80-column terminal, minus one).
let helpLineWidth = 79

/// Wraps `text` to `helpLineWidth`: consecutive lines with the same indentation form one
/// paragraph (so a discussion written hard-wrapped in the source is re-flowed, never leaving a
/// lone word on a line); a blank line, a change of indentation, a `- ` list item or an
/// `Exit status:` line starts a new paragraph; indentation is kept.
func wrapParagraphs(_ text: String) -> String {
    var paragraphs: [(indent: String, text: String)] = []
    var continues = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let indent = String(line.prefix { $0 == " " })
        let body = String(line.dropFirst(indent.count))
        if body.isEmpty {
            paragraphs.append((indent: "", text: ""))
            continues = false
        } else if continues, let last = paragraphs.last, last.indent == indent, !startsParagraph(body) {
            paragraphs[paragraphs.count - 1].text += " " + body
        } else {
            paragraphs.append((indent: indent, text: body))
            continues = true
        }
    }
    var out = ""
    for paragraph in paragraphs {
        for piece in wrap(paragraph.text, width: helpLineWidth - paragraph.indent.count) {
            out += (piece.isEmpty ? "" : paragraph.indent) + piece + "\n"
        }
    }
    return out
}

/// Whether a discussion line begins a paragraph of its own even right after another line.
private func startsParagraph(_ line: String) -> Bool {
    line.hasPrefix("- ") || line.hasPrefix("Exit status:")
}

/// Greedy word wrap; a word longer than `width` stays whole on its own line.
func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
        if current.isEmpty {
            current = String(word)
        } else if current.count + 1 + word.count <= width {
            current += " " + word
        } else {
            lines.append(current)
            current = String(word)
        }
    }
    lines.append(current)
    return lines
}
