import CarouselProtocol
import Glibc

/// Prints measurements as a human table (stdout) or as NDJSON, one object per measurement with
/// `name`, `unit`, `value` (= `median`), `runs`, `median`, `min`, `max`, plus `target` and
/// `meets_target` when the figure has a target.
struct Reporter {
    var json: Bool

    func section(_ title: String) {
        guard !json else { return }
        print("\n== \(title)")
        print(pad("measurement", 60) + pad("median", 14, right: true) + pad("min", 12, right: true)
              + pad("max", 12, right: true) + "  " + pad("unit", 14) + "runs  target")
    }

    func note(_ text: String) {
        if json { return }
        print("   " + text)
    }

    func report(_ m: Measurement) {
        if json {
            // The protocol's writer: finite numbers, no -0, escaped strings (docs/PROTOCOL.md "Conventions").
            var w = WireJSONWriter()
            w.beginObject()
            w.key("name"); w.string(m.name)
            w.key("unit"); w.string(m.unit)
            w.key("value"); w.number(m.value)
            w.key("runs"); w.int(m.runs)
            w.key("median"); w.number(m.median)
            w.key("min"); w.number(m.minimum)
            w.key("max"); w.number(m.maximum)
            if let t = m.target { w.key("target"); w.string(t) }
            if let ok = m.meetsTarget { w.key("meets_target"); w.bool(ok) }
            w.endObject()
            print(w.text)
        } else {
            var verdict = ""
            if let t = m.target { verdict = t + (m.meetsTarget == true ? "  ok" : "  MISSED") }
            print(pad(m.name, 60) + pad(Self.human(m.median), 14, right: true)
                  + pad(Self.human(m.minimum), 12, right: true) + pad(Self.human(m.maximum), 12, right: true)
                  + "  " + pad(m.unit, 14) + pad(String(m.runs), 6) + verdict)
        }
        fflush(nil)
    }

    private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        guard n < width else { return s + " " }
        let fill = String(repeating: " ", count: width - n)
        return right ? fill + s : s + fill
    }


    /// Four significant digits, no exponent for the ranges we print.
    static func human(_ v: Double) -> String {
        guard v.isFinite else { return "n/a" }
        let a = abs(v)
        let decimals: Int
        switch a {
        case 1000...: decimals = 0
        case 100..<1000: decimals = 1
        case 10..<100: decimals = 2
        case 1..<10: decimals = 3
        default: decimals = 4
        }
        return fixed(v, decimals)
    }

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBufferPointer { p in
            withVaList([decimals, v]) { vsnprintf(p.baseAddress, 64, "%.*f", $0) }
        }
        guard count > 0 else { return "\(v)" }
        return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
