/// Fixed-point decimal text without Foundation's `String(format:)` (carouselctl output).
enum DecimalFormatting {
    /// `value` rounded to `decimals` places, e.g. `fixed(-1.23456, 3) == "-1.235"`. A value that
    /// rounds to zero prints without a minus sign (docs/PROTOCOL.md "Conventions": never `-0`). Non-finite
    /// values print as an empty field.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        let whole = units / divisor
        let fraction = units % divisor
        var text = units == 0 || value > 0 ? "" : "-"
        text += String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// Exact seconds from a nanosecond count, trailing zeros trimmed: 10078907 → "0.010078907",
    /// 2_500_000_000 → "2.5", 0 → "0".
    static func seconds(nanoseconds ns: Int64) -> String {
        let negative = ns < 0
        let magnitude = ns.magnitude
        let whole = magnitude / 1_000_000_000
        var fraction = magnitude % 1_000_000_000
        var text = negative ? "-" : ""
        text += String(whole)
        if fraction != 0 {
            var width = 9
            while fraction % 10 == 0 { fraction /= 10; width -= 1 }
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: width - digits.count) + digits
        }
        return text
    }
}
