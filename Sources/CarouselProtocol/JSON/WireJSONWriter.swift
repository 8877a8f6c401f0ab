/// Appends compact JSON to a byte buffer. Hand-written because STATE frames are encoded once per
/// frame for every watcher, and because docs/PROTOCOL.md "Conventions" demands finite numbers and no `-0`.
///
/// Usage: `var w = WireJSONWriter(); w.beginObject(); w.key("class"); w.string("ACK"); w.endObject()`.
/// Commas are inserted automatically.
public struct WireJSONWriter: Sendable {
    /// The encoded bytes so far.
    public private(set) var bytes: [UInt8]
    // One flag per open container: whether it already holds an element.
    private var needsComma: [Bool] = []
    private var afterKey = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if afterKey { afterKey = false; return }
        if let last = needsComma.last {
            if last { bytes.append(UInt8(ascii: ",")) }
            needsComma[needsComma.count - 1] = true
        }
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    /// Writes an object key; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func string(_ value: String) { separate(); appendQuoted(value) }
    public mutating func bool(_ value: Bool) { separate(); appendASCII(value ? "true" : "false") }
    public mutating func null() { separate(); appendASCII("null") }

    public mutating func int(_ value: Int) { separate(); appendASCII(String(value)) }
    public mutating func int64(_ value: Int64) { separate(); appendASCII(String(value)) }
    public mutating func uint64(_ value: UInt64) { separate(); appendASCII(String(value)) }

    /// Writes a number: NaN and ±infinity become 0 (docs/PROTOCOL.md "Conventions": numbers are always finite),
    /// `-0` becomes `0`, integral values within ±2⁵³ are written without a fraction, others with
    /// Swift's shortest round-tripping representation (which is valid JSON).
    public mutating func number(_ value: Double) {
        separate()
        appendASCII(WireJSONWriter.format(value))
    }

    /// The JSON text of a number under the rules of `number(_:)`.
    public static func format(_ value: Double) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        if value.rounded(.towardZero) == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.description
    }

    /// Writes an optional number, `null` when nil.
    public mutating func number(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    /// Writes an array of numbers.
    public mutating func numbers(_ values: [Double]) {
        beginArray()
        for v in values { number(v) }
        endArray()
    }

    /// Copies already-encoded JSON (e.g. a shared `items` array) as the next value.
    public mutating func raw(_ json: [UInt8]) { separate(); bytes.append(contentsOf: json) }

    private mutating func appendASCII(_ s: String) { bytes.append(contentsOf: s.utf8) }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(0x5C); bytes.append(b)
            case UInt8(ascii: "\\"): bytes.append(0x5C); bytes.append(b)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(WireJSONWriter.hexDigits[Int(b >> 4)])
                bytes.append(WireJSONWriter.hexDigits[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
