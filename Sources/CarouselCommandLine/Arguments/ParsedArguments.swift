import CarouselProtocol

/// The result of parsing one subcommand's arguments against its `CommandSpec`.
public struct ParsedArguments: Sendable, Equatable {
    /// Option values by long name (`"--output": ["x.csv"]`); flags map to `[""]`.
    public var options: [String: [String]]
    /// Positional arguments in order.
    public var positionals: [String]

    public init(options: [String: [String]] = [:], positionals: [String] = []) {
        self.options = options
        self.positionals = positionals
    }

    /// Whether the flag or option `name` (`--json`) was given.
    public func has(_ name: String) -> Bool { options[name] != nil }

    /// The last value given for `name`, or `nil`.
    public func value(_ name: String) -> String? { options[name]?.last }

    /// The value of `name` as a finite `Double`, or `nil` when absent.
    /// - Throws: `CommandError(.usage, …)` naming the option when it is not a finite number,
    ///   or lies outside `range`.
    public func double(_ name: String, in range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw CommandError(.usage, "\(name): '\(text)' is not a number")
        }
        if let range, !range.contains(v) {
            throw CommandError(.usage, "\(name): \(text) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    /// The value of `name` as an `Int`, or `nil` when absent.
    /// - Throws: `CommandError(.usage, …)` when it is not an integer or lies outside `range`.
    public func int(_ name: String, in range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text) else {
            throw CommandError(.usage, "\(name): '\(text)' is not an integer")
        }
        if let range, !range.contains(v) {
            // A range open upward (Int.max) is only a lower bound: say that, not nineteen digits.
            if range.upperBound == Int.max {
                throw CommandError(.usage, "\(name): must be at least \(range.lowerBound), got \(text)")
            }
            throw CommandError(.usage, "\(name): \(text) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    /// The value of `name`, which must be one of `choices`, or `nil` when absent.
    /// - Throws: `CommandError(.usage, …)` listing the choices.
    public func choice(_ name: String, _ choices: [String]) throws -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw CommandError(.usage, "\(name): '\(text)' is not one of \(choices.joined(separator: ", "))")
        }
        return text
    }
}

/// Parses `arguments` (the words after the subcommand name) against `spec`.
///
/// Accepts `--name value`, `--name=value`, `-o value`, flags, `--` to end options, and
/// positionals anywhere. `--help`/`-h` is handled by the caller before this runs.
/// - Throws: `CommandError(.usage, …)` for an unknown option, a missing or unexpected value,
///   a missing positional or too many positionals.
public func parseArguments(_ arguments: [String], for spec: CommandSpec) throws -> ParsedArguments {
    var result = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
        let word = arguments[index]
        index += 1
        if onlyPositionals || word == "-" || !word.hasPrefix("-") || Double(word) != nil {
            result.positionals.append(word)
            continue
        }
        if word == "--" {
            onlyPositionals = true
            continue
        }
        var name = word
        var inlineValue: String?
        if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
            name = String(word[..<eq])
            inlineValue = String(word[word.index(after: eq)...])
        }
        guard let option = spec.options.first(where: { $0.name == name || $0.short == name }) else {
            throw CommandError(.usage, "\(spec.name): unknown option '\(name)' (see 'carouselctl \(spec.name) --help')")
        }
        let value: String
        if option.valueName != nil {
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw CommandError(.usage, "\(spec.name): option \(option.name) needs a value \(option.valueName ?? "")")
            }
        } else {
            if inlineValue != nil {
                throw CommandError(.usage, "\(spec.name): option \(option.name) takes no value")
            }
            value = ""
        }
        if option.repeatable {
            result.options[option.name, default: []].append(value)
        } else {
            result.options[option.name] = [value]
        }
    }
    let required = spec.positionals.filter { !$0.optional && !$0.variadic }.count
    if result.positionals.count < required {
        let missing = spec.positionals[result.positionals.count]
        throw CommandError(.usage, "\(spec.name): missing argument \(missing.name)")
    }
    if !spec.positionals.contains(where: \.variadic), result.positionals.count > spec.positionals.count {
        let extra = result.positionals[spec.positionals.count]
        // `carouselctl tilt recording.csv` is the natural first try; say where the file goes.
        let hint = spec.positionals.isEmpty && spec.options.contains(where: { $0.name == "--input" })
            ? " (give the input file with --input \(extra))" : ""
        throw CommandError(.usage, "\(spec.name): unexpected argument '\(extra)'\(hint)")
    }
    return result
}
