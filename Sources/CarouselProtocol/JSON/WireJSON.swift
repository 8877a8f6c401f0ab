/// A parsed JSON value (RFC 8259). Numbers are kept as `Double`, which represents every integer
/// a request may carry (|n| ≤ 2⁵³) exactly.
public enum WireJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([WireJSON])
    /// Members in document order; a repeated key keeps its last value on lookup.
    case object([(String, WireJSON)])

    public static func == (lhs: WireJSON, rhs: WireJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            // Key order is not part of the contract (docs/PROTOCOL.md "Conventions").
            guard a.count == b.count else { return false }
            for (key, value) in a where b.last(where: { $0.0 == key })?.1 != value { return false }
            return true
        default: return false
        }
    }

    /// The member named `key` of an object (the last one if repeated), else nil.
    public subscript(key: String) -> WireJSON? {
        guard case let .object(members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// The element at `index` of an array, else nil.
    public subscript(index: Int) -> WireJSON? {
        guard case let .array(elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? { if case let .string(s) = self { return s } else { return nil } }
    public var doubleValue: Double? { if case let .number(n) = self { return n } else { return nil } }
    public var boolValue: Bool? { if case let .bool(b) = self { return b } else { return nil } }
    public var arrayValue: [WireJSON]? { if case let .array(a) = self { return a } else { return nil } }
    public var objectValue: [(String, WireJSON)]? { if case let .object(o) = self { return o } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The value as an `Int` when it is a number with no fractional part within ±2⁵³, else nil.
    public var intValue: Int? {
        guard case let .number(n) = self, n.rounded(.towardZero) == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }

    /// A short name of the value's JSON type, for error messages ("expected a number, got a string").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
