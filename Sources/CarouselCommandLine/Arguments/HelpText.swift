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

/// Wraps each line of `text` (a discussion whose paragraphs are single lines) to
/// `helpLineWidth`, keeping blank lines and a line's leading indentation.
func wrapParagraphs(_ text: String) -> String {
    var out = ""
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let indent = String(line.prefix { $0 == " " })
        for piece in wrap(String(line.dropFirst(indent.count)), width: helpLineWidth - indent.count) {
            out += indent + piece + "\n"
        }
    }
    return out
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
