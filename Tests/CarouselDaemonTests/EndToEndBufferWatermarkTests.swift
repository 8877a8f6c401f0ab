import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The buffer carouseld enables wakes it for every scan (docs/SENSORS.md "Latency"): under
/// umockdev the sysfs files libiio writes are plain files, so what the daemon left in
/// `buffer/watermark` and `buffer/length` is read back as the kernel would have received it.
@Suite(.serialized) struct EndToEndBufferWatermarkTests {
    static let accelPath = "/devices/pci0000:00/0000:00:16.1/i2c_designware.1/i2c-1/i2c-BSBA0150:00/iio:device0"

    /// bmc150 at 100 Hz requested (the fixture's list gives 125 Hz): watermark 1 (poll() wakes
    /// the daemon at the first scan, not after a refill's worth), and a kernel buffer of at least
    /// half a second of scans (62.5 at 125 Hz) so a late daemon loses none.
    @Test func theBufferWakesTheDaemonForEveryScan() throws {
        let bed = try UmockdevTestbed()
        try bed.add(description: readTextFile(TestPaths.fixture("umockdev/bmc150-accel.umockdev")) ?? "")
        let d = try UmockdevDaemon("watermark", testbed: bed, overrides: [
            "sensor": ["source": "iio", "device": "", "sample_rate_hz": "100", "mode": "buffered", "always_on": "yes"],
        ], verbose: true)
        defer { d.kill() }
        let c = try d.client()
        try c.send(#"{"cmd":"watch"}"#)
        _ = try c.readUntil(timeoutSeconds: 20) { $0["class"] == .string("SENSOR") && $0["status"] == .string("ok") }
        let base = bed.rootDirectory + "/sys" + Self.accelPath + "/buffer/"
        func attribute(_ name: String) -> String {
            // libiio writes the text with its terminating NUL (strlen + 1 bytes).
            String((readTextFile(base + name) ?? "").split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\0" }).first ?? "")
        }
        #expect(attribute("enable") == "1", "daemon log: \(d.process.standardErrorSoFar.suffix(600))")
        #expect(attribute("watermark") == "1")
        let length = try #require(Int(attribute("length")), "buffer/length '\(attribute("length"))'")
        #expect(Double(length) >= 125.0 / 2)
        #expect(try d.terminate() == 0)
    }
}
