/// ISO 8601 timestamps in UTC with second resolution (`2026-11-29T12:05:42Z`), the `created`
/// field of the calibration file, without Foundation.
///
/// Day arithmetic: Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms (proleptic
/// Gregorian calendar, eras of 400 years).
public enum ISO8601UTC {
    /// Formats seconds since the Unix epoch.
    public static func format(epochSeconds: Int64) -> String {
        let days = floorDiv(epochSeconds, 86_400)
        let secondOfDay = epochSeconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (also with a fractional second, `+00:00` for `Z`, or a space
    /// for `T`). Returns nil for anything else (other offsets are not written by carouselctl).
    public static func parse(_ text: String) -> Int64? {
        var s = Substring(text)
        if s.hasSuffix("Z") { s = s.dropLast() } else if s.hasSuffix("+00:00") { s = s.dropLast(6) } else { return nil }
        let u = Array(s.utf8)
        guard u.count >= 19, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54 || u[10] == 0x20, u[13] == 0x3A, u[16] == 0x3A
        else { return nil }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r {
                guard u[i] >= 0x30, u[i] <= 0x39 else { return nil }
                v = v * 10 + Int64(u[i] - 0x30)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
              let mi = num(14..<16), let se = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61 else { return nil }
        if u.count > 19 {
            guard u[19] == 0x2E, u.count > 20, num(20..<u.count) != nil else { return nil }
        }
        return days(fromCivil: y, mo, d) * 86_400 + h * 3600 + mi * 60 + se
    }

    /// A short human age: `42 s`, `5 min`, `3 h`, `12 days`.
    public static func age(seconds: Int64) -> String {
        if seconds < 0 { return "in the future (clock skew?)" }
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        if seconds < 172_800 { return "\(seconds / 3600) h" }
        return "\(seconds / 86_400) days"
    }

    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
