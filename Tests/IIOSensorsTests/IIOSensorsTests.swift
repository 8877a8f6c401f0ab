import MotionFusion
import Testing
@testable import IIOSensors

/// Pure parts of IIOSensors: mount matrix parsing, calibration maths, rate choice, JSON.
struct MountMatrixParsingTests {
    @Test func parsesKernelFormat() {
        let m = SensorMountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m?.rows == [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
        #expect(SensorMountMatrix(parsing: " 1,0,0 ;0,1,0; 0,0,1\n") == .identity)
    }

    @Test func rejectsAllZeroRowAndMalformedText() {
        #expect(SensorMountMatrix(parsing: "1, 0, 0; 0, 0, 0; 0, 0, 1") == nil)
        #expect(SensorMountMatrix(parsing: "1, 0; 0, 1") == nil)
        #expect(SensorMountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, x") == nil)
        // A decimal comma is not a number here, whatever the locale.
        #expect(SensorMountMatrix(parsing: "0,5, 0, 0; 0, 1, 0; 0, 0, 1") == nil)
        #expect(SensorMountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, nan") == nil)
    }

    @Test func determinantOfReflectionIsMinusOne() {
        #expect(SensorMountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, 1")?.determinant == -1)
        #expect(SensorMountMatrix.identity.determinant == 1)
    }
}

struct SampleTransformTests {
    let reflection = SensorMountMatrix(rows: [[-1, 0, 0], [0, 1, 0], [0, 0, 1]])

    @Test func accelIsScaledMountedAndNegated() {
        let t = SampleTransform(
            accelAxes: [AxisCalibration(scale: 0.5, offset: 2), AxisCalibration(scale: 0.5, offset: 0),
                        AxisCalibration(scale: 0.25, offset: 0)],
            accelMatrix: reflection, gyroAxes: [], gyroMatrix: reflection, convention: .gravity)
        // ((10 + 2) · 0.5, 4 · 0.5, −40 · 0.25) = (6, 2, −10) → M → (−6, 2, −10) → negated.
        #expect(t.accel([10, 4, -40]) == Vector3(6, -2, 10))
        var s = t
        s.convention = .specificForce
        #expect(s.accel([10, 4, -40]) == Vector3(-6, 2, -10))
    }

    @Test func gyroUsesDeterminantTimesMatrix() {
        let unit = AxisCalibration(scale: 1, offset: 0)
        let t = SampleTransform(accelAxes: [unit, unit, unit], accelMatrix: reflection,
                                gyroAxes: [unit, unit, unit], gyroMatrix: reflection, convention: .gravity)
        // M · (1, 2, 3) = (−1, 2, 3); det = −1 → (1, −2, −3).
        #expect(t.gyro([1, 2, 3]) == Vector3(1, -2, -3))
    }

    @Test func largeRawValuesDoNotOverflow() {
        let a = AxisCalibration(scale: 1e-6, offset: 0)
        #expect(a.value(Int64(Int32.max) * 4) == Double(Int64(Int32.max) * 4) * 1e-6)
    }
}

struct SamplingRateTests {
    @Test func nearestListedRateAtOrAbove() {
        let available = [800, 400, 200, 100, 50, 12.5, 6.25, 1.56]
        #expect(SamplingRate.choose(requestedHz: 30, available: available) == 50)
        #expect(SamplingRate.choose(requestedHz: 50, available: available) == 50)
        #expect(SamplingRate.choose(requestedHz: 1000, available: available) == 800)
        #expect(SamplingRate.choose(requestedHz: 30, available: []) == 30)
        #expect(SamplingRate.text(12.5) == "12.5")
        #expect(SamplingRate.text(100) == "100")
    }

    @Test func sysfsNumbersIgnoreLocaleAndWhitespace() {
        #expect(parseSysfsNumber("0.009806650\n") == 0.00980665)
        #expect(parseSysfsNumber("0,0098\n") == nil)
        #expect(parseSysfsNumberList("15.620000 31.260000 62.500000\n") == [15.62, 31.26, 62.5])
        #expect(parseSysfsNumberList("[0.1 0.1 100]") == nil)
    }
}

struct SensorSelectionTests {
    func sensor(_ id: String, _ name: String, _ kind: SensorKind, label: String = "", location: String = "",
                parent: String? = nil, grandparent: String? = nil) -> SensorInfo {
        SensorInfo(id: id, name: name, label: label, path: "/sys/devices/x/\(id)", dev: "/dev/\(id)", kind: kind,
                   channels: [], mountMatrix: .identity, mountMatrixSource: .identity, gyroMountMatrix: nil,
                   samplingFrequencyHz: nil, samplingFrequencyAvailableHz: [], buffered: false, triggers: [],
                   warnings: [], location: location, parentPath: parent, grandparentPath: grandparent)
    }

    @Test func automaticSkipsBaseAndPairsByParent() throws {
        let sensors = [
            sensor("iio:device0", "accel_base", .accel, label: "accel-base", location: "base"),
            sensor("iio:device1", "lsm6dsl_accel", .accel, parent: "/sys/devices/i2c/1-006a"),
            sensor("iio:device2", "lsm6dsl_gyro", .gyro, parent: "/sys/devices/i2c/1-006a"),
        ]
        let s = try SensorSelection.choose(from: sensors, selector: nil)
        #expect(s.accel.id == "iio:device1")
        #expect(s.gyro?.id == "iio:device2")
        #expect(s.notes.count == 1)
    }

    @Test func imuPreferredAndLabelPairing() throws {
        let sensors = [
            sensor("iio:device0", "a", .accel, label: "accel-display"),
            sensor("iio:device1", "g", .gyro, label: "gyro-display"),
        ]
        #expect(try SensorSelection.choose(from: sensors, selector: "accel-display").gyro?.id == "iio:device1")
        let withIMU = sensors + [sensor("iio:device3", "bmi160", .imu)]
        #expect(try SensorSelection.choose(from: withIMU, selector: nil).accel.id == "iio:device3")
        #expect(throws: SensorError.notFound("nope")) { try SensorSelection.choose(from: sensors, selector: "nope") }
    }

    @Test func emptyJSONIsEmptyArray() {
        #expect(SensorInfo.jsonArray([]) == "[]")
        #expect(jsonNumber(-0.0) == "0")
        #expect(jsonString("a\"b\n") == "\"a\\\"b\\n\"")
    }
}
