/// One `key = value` (or `key: value`) line of an INI text.
public struct INIEntry: Sendable, Equatable {
    /// The `[section]` the key is in (never empty: a key before any section is an error).
    public var section: String
    /// The key, whitespace stripped at both ends.
    public var key: String
    /// The value, whitespace and an inline ` ;` comment stripped.
    public var value: String
    /// The key's 1-based line number in the text.
    public var line: Int

    public init(section: String, key: String, value: String, line: Int) {
        self.section = section
        self.key = key
        self.value = value
        self.line = line
    }
}

/// One `[name]` header of an INI text.
public struct INISection: Sendable, Equatable {
    /// The name between the brackets, as libinih reads it.
    public var name: String
    /// The header's 1-based line number.
    public var line: Int

    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }
}

/// A parsed INI text: every key and every section header, in file order.
///
/// A section header may appear more than once and a key may repeat; what that means is the
/// reader's concern (the configuration loader refuses a repeated key).
public struct INIDocument: Sendable, Equatable {
    /// Every `key = value` in file order.
    public var entries: [INIEntry]
    /// Every `[section]` header in file order, including those with no keys.
    public var sections: [INISection]

    public init(entries: [INIEntry], sections: [INISection]) {
        self.entries = entries
        self.sections = sections
    }
}
