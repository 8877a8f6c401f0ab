import Testing
@testable import MotionFusion

/// A resting accelerometer far from 1 g (docs/SENSORS.md "Implausible magnitudes").
@Suite struct GravityMagnitudeTests {
    @Test func problemsNameTheMagnitudeAndTheLikelyCause() throws {
        // fxos8700: 1 g reads 1.0 "m/s²" (0.10197 g).
        let inG = try #require(GravityMagnitude.problem(magnitude: 1.0))
        #expect(inG.hasPrefix("at rest the accelerometer reads 1.00 m/s² (0.102 g), not 1 g (9.81 m/s²): "))
        #expect(inG.hasSuffix("likely cause: the driver reports its scale in g, not m/s² (as fxos8700's does)"))
        // A HID hub with unit codes Linux 6.1 does not understand: 100 × 9.80665.
        let hid = try #require(GravityMagnitude.problem(magnitude: 980.665))
        #expect(hid.contains("(100.000 g)") && hid.contains("0xE011"))
        let other = try #require(GravityMagnitude.problem(magnitude: 4.9))
        #expect(other.hasSuffix("likely cause: a wrong in_accel_scale (see carouselctl sensors)"))
        // 0.7–1.3 g is gravity.
        #expect(GravityMagnitude.problem(magnitude: 0.7 * standardGravity) == nil)
        #expect(GravityMagnitude.problem(magnitude: 1.3 * standardGravity) == nil)
        #expect(GravityMagnitude.problem(magnitude: 0.69 * standardGravity) != nil)
        #expect(GravityMagnitude.problem(magnitude: .nan) == nil)
    }

    static func samples(_ magnitude: (Int) -> Double, gyro: Vector3? = nil, count: Int) -> [IMUSample] {
        (0..<count).map { k in IMUSample(timestampNanoseconds: Int64(k) * 20_000_000, accel: Vector3(0, 0, magnitude(k)), gyro: gyro) }
    }

    @Test func theWatchDecidesOnTheFirstResting3sWindowOnce() {
        // 50 Hz at 1.0 m/s²: the sample at 3.00 s closes the first window and reports it once.
        var watch = GravityMagnitudeWatch()
        let reports = Self.samples({ _ in 1.0 }, count: 400).compactMap { watch.add($0) }
        #expect(reports.count == 1)
        #expect(reports.first?.contains("1.00 m/s²") == true)
        #expect(watch.decided)
        // A plausible resting window ends the watch without a word.
        var fine = GravityMagnitudeWatch()
        #expect(Self.samples({ _ in 9.8 }, count: 400).compactMap { fine.add($0) }.isEmpty)
        #expect(fine.decided)
    }

    @Test func aMovingDeviceIsNotJudged() {
        // The magnitude swings by 40 % (handled), or the gyroscope turns: no window is rest.
        var swinging = GravityMagnitudeWatch()
        #expect(Self.samples({ k in k % 2 == 0 ? 0.8 : 1.2 }, count: 400).compactMap { swinging.add($0) }.isEmpty)
        #expect(!swinging.decided)
        var turning = GravityMagnitudeWatch()
        #expect(Self.samples({ _ in 1.0 }, gyro: Vector3(0, 0, 0.5), count: 400).compactMap { turning.add($0) }.isEmpty)
        #expect(!turning.decided)
    }
}
