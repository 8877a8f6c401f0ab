import CarouselTestSupport
import Testing

/// What fuzzing the scan-element type check (Fuzz/FuzzScanElementType) found, kept as tests.
@Suite(.serialized) struct ScanElementFuzzFindingsTests {
    /// `le:s16/16>>4294967295`: libiio 0.24 stores any shift that fits `unsigned int`, and the
    /// check computed `shift + bits`, which overflowed and trapped: `carouselctl sensors` and
    /// carouseld crashed on such a device (a hostile or broken iiod server sends whatever type
    /// text it likes). Now it is refused like any shift that does not fit: the warning, polling.
    @Test func aShiftNearUInt32MaxIsRefusedNotACrash() throws {
        let bed = try Mock.testbed("bmc150-accel", drop: [], replace: [
            "A: scan_elements/in_accel_x_type=": "A: scan_elements/in_accel_x_type=le:s16/16>>4294967295\\n",
        ])
        let result = try Mock.run(["sensors", "--json"], bed)
        #expect(result.status == 0, "\(result.standardError)")
        let s = try #require(try Mock.json(result.standardOutput).first)
        #expect(s["buffered"] as? Bool == false)
        let warnings = s["warnings"] as? [String] ?? []
        #expect(warnings.contains {
            $0.contains("scan_elements/in_accel_x_type 'le:s16/16>>4294967295': shift 4294967295 + 16 bits exceed 16")
        }, "\(warnings)")
    }

    /// The fuzzer's own input: a shift of 130 digits, which libiio's `%u` saturates to
    /// 4294967295.
    @Test func theFuzzersInputIsRefusedToo() throws {
        let shift = "0" + String(repeating: "8", count: 129)
        let bed = try Mock.testbed("bmc150-accel", drop: [], replace: [
            "A: scan_elements/in_accel_x_type=": "A: scan_elements/in_accel_x_type=le:s16/16>>\(shift)\\n",
        ])
        let result = try Mock.run(["sensors", "--json"], bed)
        #expect(result.status == 0, "\(result.standardError)")
        let s = try #require(try Mock.json(result.standardOutput).first)
        #expect(s["buffered"] as? Bool == false)
        #expect((s["warnings"] as? [String] ?? []).contains { $0.contains("shift 4294967295 + 16 bits exceed 16") })
    }
}
