/// Text from outside carouselctl (a device's name from its firmware, anything a program on the
/// other end of the socket sends) made safe for the operator's terminal.
enum TerminalText {
    /// `text` with control characters (C0, DEL and C1) shown as `\xNN`, so that an escape
    /// sequence in it (`ESC ]0;…` retitling the terminal, `ESC [2J` clearing it) is printed,
    /// not obeyed.
    static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
