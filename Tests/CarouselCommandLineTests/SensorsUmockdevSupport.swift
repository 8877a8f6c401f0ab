#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import Foundation

/// Helpers for the umockdev end-to-end tests of `carouselctl sensors` and `record`.
enum Mock {
    static let ctl = TestPaths.product("carouselctl")

    /// A testbed holding the devices of `Tests/Fixtures/umockdev/NAME.umockdev`.
    static func testbed(_ fixture: String?) throws -> UmockdevTestbed {
        let bed = try UmockdevTestbed()
        if let fixture { try bed.add(file: TestPaths.fixture("umockdev/\(fixture).umockdev")) }
        return bed
    }

    /// Runs carouselctl to completion under the testbed.
    static func run(_ args: [String], _ bed: UmockdevTestbed, timeout: Double = 30) throws -> UmockdevProcess.Result {
        try UmockdevProcess(ctl, args, testbed: bed).waitForExit(timeoutSeconds: timeout)
    }

    /// The device block of `fixture` whose `P:` line ends with `suffix` (for re-plugging it).
    static func block(_ fixture: String, endingWith suffix: String) -> String {
        let text = readTextFile(TestPaths.fixture("umockdev/\(fixture).umockdev")) ?? ""
        let blocks = text.split(separator: "\n\n").map(String.init)
        return blocks.first { b in b.split(separator: "\n").contains { $0.hasPrefix("P: ") && $0.hasSuffix(suffix) } } ?? ""
    }

    struct NoRow: Error { var line: String? }

    /// The next output line of `p`, parsed as a native CSV row.
    /// - Throws: a timeout, or `NoRow` when output ended or the line is not a row.
    static func nextRow(_ p: UmockdevProcess) throws -> (Int64, [Double], [Double]?) {
        let line = try p.readLine(timeoutSeconds: 20)
        guard let line, let r = row(line) else { throw NoRow(line: line) }
        return r
    }

    /// Parses `--json` output.
    static func json(_ text: String) throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return value as? [[String: Any]] ?? []
    }

    /// One native CSV row → (timestamp, accel, gyro?).
    static func row(_ line: String) -> (Int64, [Double], [Double]?)? {
        let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 7, let t = Int64(f[0]) else { return nil }
        let a = f[1...3].compactMap(Double.init)
        let g = f[4...6].compactMap(Double.init)
        return (t, a, g.count == 3 ? g : nil)
    }
}

/// Little- and big-endian encodings of scan fields.
enum Scan {
    static func le(_ v: Int64, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: v) >> (8 * UInt64($0))) }
    }
    static func be(_ v: Int64, bytes: Int) -> [UInt8] { le(v, bytes: bytes).reversed() }
    /// A 16-bit value in the low half of a 32-bit little-endian word, junk in the high half
    /// (HID sensor hubs with 32-bit reports).
    static func le16in32(_ v: Int64, junk: UInt16 = 0xBEEF) -> [UInt8] {
        le(v, bytes: 2) + le(Int64(junk), bytes: 2)
    }
    /// A 12-bit value left-aligned in 16 bits (`s12/16>>4`) with junk in the low nibble.
    static func s12(_ v: Int64, junk: Int64 = 0x5) -> Int64 { (v << 4) | junk }
}

/// `a ≈ b` per component within `tolerance`.
func close(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-9) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}
