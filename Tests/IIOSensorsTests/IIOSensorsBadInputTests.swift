#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import MotionFusion
import Testing
@testable import IIOSensors

/// Absurd sysfs text and absurd rates: refused with a reason, never trapped on or silently
/// turned into a different number.
struct SysfsTextTests {
    @Test func numbersAreDecimalOnly() {
        // Double(_:) alone would read "0x10" as 16, and "nan"/"inf" as non-finite values.
        for bad in ["0x10", "nan", "inf", "-inf", "infinity", "1e400", "", " ", "1_000", "0,5", "abc", "1e", ".", "+", "0.5 0.7", "0.5\n0.7"] {
            #expect(parseSysfsNumber(bad) == nil, "'\(bad)'")
        }
        #expect(parseSysfsNumber(".5\n") == 0.5)
        #expect(parseSysfsNumber("5.") == 5)
        #expect(parseSysfsNumber("+0.25") == 0.25)
        #expect(parseSysfsNumber("-1.5e-3\n") == -0.0015)
        #expect(parseSysfsNumber("1E2") == 100)
        #expect(parseSysfsNumberList("12.5 0x10 50") == nil)
        #expect(parseSysfsNumberList("") == [])
    }

    @Test func rawValuesAreInt64Integers() {
        #expect(parseSysfsInteger("2147483647\n") == 2_147_483_647)
        #expect(parseSysfsInteger("-2147483648\n") == -2_147_483_648)
        #expect(parseSysfsInteger("-9223372036854775808") == Int64.min)
        // Out of Int64, fractions, exponents, hex: refused (Int64(Double) would trap or truncate).
        for bad in ["9223372036854775808", "99999999999999999999", "1e30", "1.5", "0x10", "", "nan", "-"] {
            #expect(parseSysfsInteger(bad) == nil, "'\(bad)'")
        }
    }

    @Test func extremeRawTimesLargeScaleStaysDouble() {
        // (2147483647 + 0) · 1e9 = 2.147483647e18 and (−2147483648 + 0.5) · 1e9, exactly in Double.
        let a = AxisCalibration(scale: 1e9, offset: 0)
        #expect(a.value(2_147_483_647) == 2.147483647e18)
        #expect(AxisCalibration(scale: 1e9, offset: 0.5).value(-2_147_483_648) == -2.1474836475e18)
        // A scale that overflows gives a non-finite value, which the readers skip.
        #expect(!AxisCalibration(scale: 1e300, offset: 0).value(Int64.max).isFinite)
    }

    @Test func rateBoundsKeepTimersArmed() {
        #expect(SamplingRate.isPlausible(12.5))
        #expect(SamplingRate.isPlausible(1e6))
        for bad in [0, -5, 1e300, Double.nan, Double.infinity] { #expect(!SamplingRate.isPlausible(bad), "\(bad)") }
        // 1 / 100 Hz = 10 ms; a garbage rate is clamped to 1 MHz (1 µs) or 0.1 Hz (10 s),
        // never a 0 period (which disarms a timerfd) nor an Int64 overflow.
        #expect(SamplingRate.periodNanoseconds(100) == 10_000_000)
        #expect(SamplingRate.periodNanoseconds(1e300) == 1_000)
        #expect(SamplingRate.periodNanoseconds(0) == 10_000_000_000)
        #expect(SamplingRate.periodNanoseconds(.nan) == 10_000_000_000)
    }

    @Test func logTextStaysOnOneLine() {
        #expect(printable("0.5\n0.7\n") == "0.5\\n0.7")
        #expect(printable("a\u{1}b\u{7F}") == "a\\x01b\\x7f")
        #expect(printable("accel \"display\" ☃") == "accel \"display\" ☃")
    }

    @Test func singularMountMatrixIsRefused() throws {
        let twoEqualRows = try MountMatrix(parsing: "1, 1, 0; 1, 1, 0; 0, 0, 1")
        #expect(SensorDiscovery.singular(twoEqualRows)?.contains("singular") == true)
        #expect(SensorDiscovery.singular(try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1")) == nil)
    }

    @Test func mountMatricesMustBeDecimalRotations() throws {
        // A 45° turn about y (entries ±0.7071) is a rotation; 1.5 is no cosine; a hex entry and
        // a control character in the text are named, escaped.
        let turned = try SensorDiscovery.checkedMountMatrix("0.7071, 0, 0.7071; 0, 1, 0; -0.7071, 0, 0.7071").get()
        #expect(turned.rowArrays == [[0.7071, 0, 0.7071], [0, 1, 0], [-0.7071, 0, 0.7071]])
        func refusal(_ text: String) -> String? {
            if case let .failure(r) = SensorDiscovery.checkedMountMatrix(text) { return r.description }
            return nil
        }
        #expect(refusal("1.5, 0, 0; 0, 1, 0; 0, 0, 1") == "mount matrix '1.5, 0, 0; 0, 1, 0; 0, 0, 1': entry 1.5 is outside -1…1, so this is no rotation")
        #expect(refusal("1, 0, 0; 0, 0x1, 0; 0, 0, 1") == "mount matrix '1, 0, 0; 0, 0x1, 0; 0, 0, 1': '0x1' is not a decimal number")
        #expect(refusal("1, 0, 0; 0, 1, 0\u{1B}") == "mount matrix '1, 0, 0; 0, 1, 0\\x1b': expected 3 rows of 3 numbers ('a, b, c; d, e, f; g, h, i')")
        #expect(refusal("1, 1, 0; 1, 1, 0; 0, 0, 1")?.contains("is singular") == true)
    }

    @Test func warningsAreListedOnce() {
        #expect(["a", "b", "a", "c", "b"].uniqued() == ["a", "b", "c"])
    }

    @Test func ioErrorsSpellOutErrno() {
        let e = SensorError.io(device: "/x/y.csv.partial-1", what: "open", errno: ENOENT)
        #expect(e.description == "/x/y.csv.partial-1: open failed (errno 2: No such file or directory)")
    }
}
