import CarouselProtocol

/// A parsed JSON value of a scenario: CarouselProtocol's `WireJSON`, so the project has one JSON
/// model and one parser (`WireJSONParser`); it tells a missing key (nil) from `null`.
typealias JSONValue = WireJSON

/// A JSON syntax error at a 1-based line and column (columns count bytes).
struct JSONSyntaxError: Error, Equatable {
    var line: Int
    var column: Int
    var message: String
}

/// Scenario files through `WireJSONParser`, with the limits a file a person edits needs: duplicate
/// keys refused (a misspelt override would silently win), a byte order mark skipped, line and
/// column instead of the protocol's byte offset.
enum JSONParser {
    /// Most values in one document: a scenario of 100 000 events has about 500 000; the bound
    /// keeps a hostile 64 MiB file (30 million zeros) from taking minutes and a GiB of memory.
    static let maximumValues = 2_000_000
    /// Deepest nesting accepted (scenarios nest 3 levels; the bound keeps recursion finite).
    static let maximumDepth = 128

    /// Parses a complete document (one value, surrounded by optional whitespace) of at most
    /// `maximumValues` values.
    /// - Throws: `JSONSyntaxError` naming the line and column of the first problem.
    static func parse(_ text: String, maximumValues: Int = JSONParser.maximumValues) throws(JSONSyntaxError) -> JSONValue {
        let limits = WireJSONParser.Limits(maximumDepth: maximumDepth, maximumValues: maximumValues,
                                           rejectsDuplicateKeys: true, skipsByteOrderMark: true)
        do {
            return try WireJSONParser.parse(text, limits: limits)
        } catch {
            let (line, column) = error.lineAndColumn(in: text)
            throw JSONSyntaxError(line: line, column: column, message: error.reason)
        }
    }
}
