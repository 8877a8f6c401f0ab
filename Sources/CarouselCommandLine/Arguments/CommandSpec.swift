#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol

/// One option of a subcommand, e.g. `--output FILE` or the flag `--json`.
public struct OptionSpec: Sendable {
    /// Long name with dashes (`--output`); the key under which `ParsedArguments` stores it.
    public var name: String
    /// Optional one-letter alias with one dash (`-o`).
    public var short: String?
    /// Placeholder for the value (`FILE`), or `nil` for a flag that takes none.
    public var valueName: String?
    /// One-line help text (units and default included).
    public var help: String
    /// Whether the option may be given more than once (values are collected in order).
    public var repeatable: Bool

    public init(_ name: String, short: String? = nil, value valueName: String? = nil,
                repeatable: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
    }
}

/// A positional argument of a subcommand.
public struct PositionalSpec: Sendable {
    public var name: String
    public var help: String
    /// `true` when it may be left out.
    public var optional: Bool
    /// `true` when it takes all remaining arguments (must be last).
    public var variadic: Bool

    public init(_ name: String, optional: Bool = false, variadic: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
    }
}

/// Where a command writes: standard output and standard error, injectable for tests.
public struct CommandIO: @unchecked Sendable {
    public var out: (String) -> Void
    public var err: (String) -> Void
    /// The process environment (tests pass their own).
    public var environment: [String: String]
    /// The operator's answers: one line of standard input without its newline, nil at end of
    /// input (Ctrl-D). Tests pass scripted answers.
    public var readLine: () -> String?
    /// Whether standard input is a terminal, so a confirmation is asked for.
    public var isInteractive: Bool

    /// - Parameters:
    ///   - readLine: defaults to reading standard input (Swift's `readLine()`).
    ///   - isInteractive: defaults to whether standard input is a terminal (`isatty(0)`).
    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void,
                environment: [String: String] = [:], readLine: @escaping () -> String? = { Swift.readLine() },
                isInteractive: Bool = isatty(STDIN_FILENO) == 1) {
        self.out = out
        self.err = err
        self.environment = environment
        self.readLine = readLine
        self.isInteractive = isInteractive
    }
}

/// A subcommand: its name, help text, options, positionals and what it runs.
public struct CommandSpec: Sendable {
    /// The word after `carouselctl`; may contain a space for nested forms (`calibration show`).
    public var name: String
    /// One-line summary shown by `carouselctl --help`.
    public var summary: String
    /// Paragraphs shown by `carouselctl NAME --help` after the usage line.
    public var discussion: String
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]
    /// Runs the command; returns the exit status. Throwing `CommandError` prints its message
    /// and exits with its status.
    public var run: @Sendable (ParsedArguments, CommandIO) throws -> ExitStatus

    public init(name: String, summary: String, discussion: String = "", options: [OptionSpec] = [],
                positionals: [PositionalSpec] = [],
                run: @escaping @Sendable (ParsedArguments, CommandIO) throws -> ExitStatus) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.run = run
    }
}

/// An error a command reports to the user: the message is printed as
/// `carouselctl: MESSAGE` on standard error and the process exits with `status`.
public struct CommandError: Error, Sendable, Equatable {
    public var status: ExitStatus
    public var message: String
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
