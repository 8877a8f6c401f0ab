import CarouselEngine
import CarouselProtocol

/// An invalid scenario: `path` is the JSON path of the offending value (`events[2].location`).
struct ScenarioError: Error, Equatable {
    var path: String
    var message: String
    /// `path: message` on one line: control characters (a key or value of the scenario may hold
    /// any) are shown as `\xNN`, so a scenario cannot write escape sequences to a terminal.
    var description: String { TerminalText.visible(path.isEmpty ? message : "\(path): \(message)") }
}

/// Reads the members of one JSON object, remembering which keys were used so that unknown
/// (misspelt) keys are reported instead of silently ignored.
struct ObjectReader {
    let path: String
    private let members: [(String, JSONValue)]
    private var used: Set<String> = []

    init(_ value: JSONValue, path: String) throws(ScenarioError) {
        guard case let .object(members) = value else {
            throw ScenarioError(path: path, message: "expected an object, found \(value.typeName)")
        }
        self.path = path
        self.members = members
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The raw value of `key`, `nil` when absent (a JSON `null` is returned as `.null`).
    mutating func value(_ key: String) -> JSONValue? {
        used.insert(key)
        return members.first { $0.0 == key }?.1
    }

    mutating func has(_ key: String) -> Bool { value(key) != nil }

    /// A finite number; `nil` when absent or `null`.
    mutating func number(_ key: String) throws(ScenarioError) -> Double? {
        switch value(key) {
        case nil, .null?: return nil
        case let .number(v)?: return v
        case let other?: throw ScenarioError(path: childPath(key), message: "expected a number, found \(other.typeName)")
        }
    }

    mutating func requiredNumber(_ key: String) throws(ScenarioError) -> Double {
        guard let v = try number(key) else { throw ScenarioError(path: childPath(key), message: "required number is missing") }
        return v
    }

    /// A time in seconds within [0, `Scenario.maximumTime`].
    mutating func requiredTime(_ key: String) throws(ScenarioError) -> Double {
        let v = try requiredNumber(key)
        guard (0...Scenario.maximumTime).contains(v) else {
            throw ScenarioError(path: childPath(key), message: "\(v) is outside [0, \(Int(Scenario.maximumTime))] seconds")
        }
        return v
    }

    /// An offset or location in points within ±`CarouselLimits.maximumCoordinate`.
    mutating func requiredCoordinate(_ key: String) throws(ScenarioError) -> Double {
        let v = try requiredNumber(key)
        guard abs(v) <= CarouselLimits.maximumCoordinate else {
            throw ScenarioError(path: childPath(key), message: "\(v) is outside ±1e15 points")
        }
        return v
    }

    /// A velocity in points per second within ±`CarouselLimits.maximumSpeed`; `nil` when absent.
    mutating func speed(_ key: String) throws(ScenarioError) -> Double? {
        guard let v = try number(key) else { return nil }
        guard abs(v) <= CarouselLimits.maximumSpeed else {
            throw ScenarioError(path: childPath(key), message: "\(v) is outside ±\(Int(CarouselLimits.maximumSpeed)) pt/s")
        }
        return v
    }

    /// A number that must satisfy `check` (`reason` explains the rule).
    mutating func number(_ key: String, default fallback: Double, _ reason: String,
                         where check: (Double) -> Bool) throws(ScenarioError) -> Double {
        let v = try number(key) ?? fallback
        guard check(v) else { throw ScenarioError(path: childPath(key), message: "\(v) \(reason)") }
        return v
    }

    /// An integer (a JSON number without a fractional part); `nil` when absent or `null`.
    mutating func integer(_ key: String) throws(ScenarioError) -> Int? {
        guard let v = try number(key) else { return nil }
        guard v == v.rounded(), abs(v) < 1e15 else {
            throw ScenarioError(path: childPath(key), message: "expected an integer, found \(v)")
        }
        return Int(v)
    }

    mutating func bool(_ key: String) throws(ScenarioError) -> Bool? {
        switch value(key) {
        case nil, .null?: return nil
        case let .bool(b)?: return b
        case let other?: throw ScenarioError(path: childPath(key), message: "expected true or false, found \(other.typeName)")
        }
    }

    mutating func string(_ key: String) throws(ScenarioError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case let .string(s)?: return s
        case let other?: throw ScenarioError(path: childPath(key), message: "expected a string, found \(other.typeName)")
        }
    }

    /// A string that must be one of `choices`.
    mutating func choice(_ key: String, _ choices: [String]) throws(ScenarioError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw ScenarioError(path: childPath(key), message: "'\(s)' is not one of \(choices.joined(separator: ", "))")
        }
        return s
    }

    /// A nested object reader; `nil` when absent or `null`.
    mutating func object(_ key: String) throws(ScenarioError) -> ObjectReader? {
        switch value(key) {
        case nil, .null?: return nil
        case let v?: return try ObjectReader(v, path: childPath(key))
        }
    }

    mutating func array(_ key: String) throws(ScenarioError) -> [JSONValue]? {
        switch value(key) {
        case nil, .null?: return nil
        case let .array(a)?: return a
        case let other?: throw ScenarioError(path: childPath(key), message: "expected an array, found \(other.typeName)")
        }
    }

    /// Fails on the first key that was never asked for.
    func finish() throws(ScenarioError) {
        if let unknown = members.first(where: { !used.contains($0.0) }) {
            throw ScenarioError(path: childPath(unknown.0), message: "unknown key")
        }
    }
}
