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

    /// Names in a directory, sorted, without `.` and `..`.
    static func files(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
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

/// Scan field encodings (shared with other suites through CarouselTestSupport).
typealias Scan = UmockdevScanShort

enum UmockdevScanShort {
    static func le(_ v: Int64, bytes: Int) -> [UInt8] { UmockdevScan.le(v, bytes: bytes) }
    static func be(_ v: Int64, bytes: Int) -> [UInt8] { UmockdevScan.be(v, bytes: bytes) }
    static func le16in32(_ v: Int64) -> [UInt8] { UmockdevScan.le16in32(v) }
    static func s12(_ v: Int64) -> Int64 { UmockdevScan.leftAligned12(v) }
}

/// `a ≈ b` per component within `tolerance`.
func close(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-9) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}
