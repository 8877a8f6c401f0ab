/// A value that does not fit its key; the loader adds file, line, section and key.
struct ConfigurationValueProblem: Error {
    /// What the key accepts, e.g. "one of iio, replay".
    var expected: String
}

/// Parsers for the value syntaxes of the configuration file. Values arrive with the surrounding
/// whitespace and any `;` comment already removed by libinih.
enum ConfigurationValue {
    /// `yes`/`no`, `true`/`false`, `on`/`off`, `1`/`0`, any case.
    static func bool(_ text: String) throws(ConfigurationValueProblem) -> Bool {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw ConfigurationValueProblem(expected: "yes or no (also true/false, on/off, 1/0)")
        }
    }

    /// A finite decimal number (`12`, `0.5`, `1e3`) within `range`; `unit` is only for the message.
    static func number(_ text: String, in range: ClosedRange<Double>, unit: String) throws(ConfigurationValueProblem) -> Double {
        let expected = "a number from \(format(range.lowerBound)) to \(format(range.upperBound))" + (unit.isEmpty ? "" : " (\(unit))")
        // Swift's Double(String) also takes "nan", "inf" and hex floats: accept decimal only.
        guard !text.isEmpty, text.allSatisfy({ "0123456789+-.eE".contains($0) }),
              let value = Double(text), value.isFinite, range.contains(value) else {
            throw ConfigurationValueProblem(expected: expected)
        }
        return value
    }

    /// `0` (the key's off value, named by `off`) or a finite decimal number within `range`; every
    /// refusal (not a number, `nan`, out of range, in the gap above 0) has the one wording
    /// "0 (off) or a number from a to b (unit)".
    static func zeroOrNumber(_ text: String, in range: ClosedRange<Double>, off: String, unit: String)
        throws(ConfigurationValueProblem) -> Double {
        let problem = ConfigurationValueProblem(
            expected: "0 (\(off)) or a number from \(format(range.lowerBound)) to \(format(range.upperBound)) (\(unit))")
        let value: Double
        do throws(ConfigurationValueProblem) { value = try number(text, in: 0...range.upperBound, unit: "") } catch { throw problem }
        guard value == 0 || range.contains(value) else { throw problem }
        return value
    }

    /// A decimal integer within `range`.
    static func integer(_ text: String, in range: ClosedRange<Int>, unit: String) throws(ConfigurationValueProblem) -> Int {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " (\(unit))")
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationValueProblem(expected: expected)
        }
        return value
    }

    /// Permission bits in octal (`0660`, `660`, `0o660`), at most `0o777`.
    static func fileMode(_ text: String) throws(ConfigurationValueProblem) -> UInt32 {
        var digits = Substring(text)
        if digits.hasPrefix("0o") || digits.hasPrefix("0O") { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.count <= 4, let value = UInt32(digits, radix: 8), value <= 0o777 else {
            throw ConfigurationValueProblem(expected: "octal permission bits from 0000 to 0777, e.g. 0660")
        }
        return value
    }

    /// One of an enum's raw values, compared without regard to case.
    static func choice<Choice>(_ text: String, _ type: Choice.Type) throws(ConfigurationValueProblem) -> Choice
    where Choice: CaseIterable & RawRepresentable, Choice.RawValue == String {
        let wanted = text.lowercased()
        for candidate in Choice.allCases where candidate.rawValue.lowercased() == wanted {
            return candidate
        }
        throw ConfigurationValueProblem(expected: "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", "))
    }

    /// Any text without control characters (paths, names, URIs). Empty is allowed when `allowEmpty`.
    static func text(_ text: String, allowEmpty: Bool, what: String) throws(ConfigurationValueProblem) -> String {
        if text.isEmpty && !allowEmpty { throw ConfigurationValueProblem(expected: what) }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ConfigurationValueProblem(expected: what + " without control characters")
        }
        return text
    }

    /// An absolute path (`/run/...`), as for the socket.
    static func absolutePath(_ text: String) throws(ConfigurationValueProblem) -> String {
        let value = try Self.text(text, allowEmpty: false, what: "an absolute path")
        guard value.hasPrefix("/") else { throw ConfigurationValueProblem(expected: "an absolute path") }
        return value
    }

    /// `12`, `0.5`, `1e-05` style: the shortest form that reads back the same, without `.0`.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
