/// What is wrong with an INI text, by 1-based line number.
public enum INIError: Error, Sendable, Equatable {
    /// libinih could not parse the line (no `=`/`:`, an unclosed `[`), or the line holds a NUL.
    /// `text` is the line, whitespace stripped, NUL shown as `\0`, at most 80 characters.
    case syntax(line: Int, text: String)
    /// The line is longer than libinih's line buffer allows (`maximum` bytes, not counting the
    /// line ending); libinih would split it and misread the rest, so it is refused.
    case lineTooLong(line: Int, maximum: Int)
    /// An indented line after a key: libinih reads it as a continuation of `key`'s value, which
    /// this reader refuses so that an accidental indent cannot change a value unseen.
    case continuationLine(line: Int, section: String, key: String)
    /// A key before the first `[section]` header.
    case keyOutsideSection(line: Int, key: String)
    /// The value of `key` is not UTF-8 text: a byte that is not UTF-8 reads as U+FFFD, so a path
    /// or a name written in Latin-1 would silently become another one.
    case valueNotUTF8(line: Int, section: String, key: String)

    /// What `valueNotUTF8` means, for messages.
    public static let notUTF8Text = "the value is not UTF-8 text (a byte that is not UTF-8, shown as U+FFFD, "
        + "would silently change it); write the file in UTF-8"

    /// What `continuationLine` means, for messages: `section` and `key` are the key above, whose
    /// value libinih would extend, not the indented line's own key (a file with every key
    /// indented fails at its second key).
    public static func indentedLineText(section: String, key: String) -> String {
        "line starts with whitespace: keys must not be indented (libinih would read this line as more of the value of "
            + "[\(section)] \(key) above); start it at the beginning of the line"
    }

    /// The line the problem is on.
    public var line: Int {
        switch self {
        case .syntax(let line, _), .lineTooLong(let line, _),
             .continuationLine(let line, _, _), .keyOutsideSection(let line, _), .valueNotUTF8(let line, _, _):
            return line
        }
    }
}

/// Why an INI file could not be read.
public enum INIFileError: Error, Sendable, Equatable {
    /// No file at `path` (`ENOENT`).
    case missing(path: String)
    /// The file exists but could not be read: `errno` from open(2)/read(2), `EISDIR` for a
    /// directory, or `EFBIG` when it is larger than `INIReader.maximumFileBytes`.
    case unreadable(path: String, errno: Int32)
    /// Neither a regular file nor a directory: `kind` says what (`a FIFO`, `a character
    /// device`). A FIFO's open would wait for a writer, for a daemon reloading for ever.
    case notRegularFile(path: String, kind: String)
}
