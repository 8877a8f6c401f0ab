import CarouselTestSupport
import Testing
@testable import IIOSensors

/// The selection rule (docs/SENSORS.md "Selection and pairing") on described sensors: a
/// convertible's two accelerometers, every `device` form, the warning for a selector that
/// matches more than one accelerometer.
struct SensorSelectionRuleTests {
    /// A sensor as discovery describes it; HID hubs put each IIO device under its own platform
    /// device (`HID-SENSOR-200073.N.auto`) under the hub's HID device.
    func sensor(_ n: Int, _ name: String, _ kind: SensorKind, hub: String, label: String = "",
                location: String = "") -> SensorInfo {
        let parent = "/sys/devices/virtual/misc/uhid/\(hub)/HID-SENSOR-\(kind == .gyro ? "200076" : "200073").\(n).auto"
        return SensorInfo(id: "iio:device\(n)", name: name, label: label, path: "\(parent)/iio:device\(n)",
                          dev: "/dev/iio:device\(n)", kind: kind, channels: [], mountMatrix: .identity,
                          mountMatrixSource: .identity, gyroMountMatrix: nil, samplingFrequencyHz: nil,
                          samplingFrequencyAvailableHz: [], buffered: true, triggers: [], warnings: [],
                          location: location, parentPath: parent, grandparentPath: "/sys/devices/virtual/misc/uhid/\(hub)")
    }

    /// The guest's two hubs: the base (accelerometer only) plugged first, then the display
    /// (accelerometer + gyroscope).
    func convertible(baseLocation: String = "", displayLocation: String = "") -> [SensorInfo] {
        [sensor(0, "accel_3d", .accel, hub: "0006:1209:0002.0001", location: baseLocation),
         sensor(1, "accel_3d", .accel, hub: "0006:1209:0001.0002", location: displayLocation),
         sensor(2, "gyro_3d", .gyro, hub: "0006:1209:0001.0002", location: displayLocation)]
    }

    @Test func withoutLocationTheAccelerometerWithAGyroscopeWins() throws {
        let s = try SensorSelection.choose(from: convertible(), selector: nil)
        #expect(s.accel.id == "iio:device1")
        #expect(s.gyro?.id == "iio:device2")
        #expect(s.ambiguity == nil)
    }

    @Test func theBaseIsNeverReadWhileADisplayAccelerometerIsPresent() throws {
        // The base has the gyroscope here: location still comes first.
        let sensors = [sensor(0, "bmi160", .imu, hub: "a", location: "base"),
                       sensor(1, "accel_3d", .accel, hub: "b", location: "display")]
        let s = try SensorSelection.choose(from: sensors, selector: nil)
        #expect(s.accel.id == "iio:device1")
        #expect(s.gyro == nil)
        #expect(s.notes == ["bmi160 (iio:device0) skipped: its label/location says keyboard base, not display"])
        // An accelerometer of unknown location comes before the base too.
        let unknown = [sensor(0, "bmi160", .imu, hub: "a", location: "base"), sensor(1, "accel_3d", .accel, hub: "b")]
        #expect(try SensorSelection.choose(from: unknown, selector: nil).accel.id == "iio:device1")
    }

    @Test func theBaseAloneIsReadWithANote() throws {
        let s = try SensorSelection.choose(from: [sensor(0, "accel_3d", .accel, hub: "a", location: "base")], selector: nil)
        #expect(s.accel.id == "iio:device0")
        #expect(s.notes.count == 1)
        #expect(s.notes.first?.contains("no other accelerometer is present") == true)
    }

    @Test func displayBeforeUnknownEvenWithoutAGyroscope() throws {
        let sensors = [sensor(0, "bmi160", .imu, hub: "a"), sensor(1, "accel_3d", .accel, hub: "b", location: "display")]
        #expect(try SensorSelection.choose(from: sensors, selector: nil).accel.id == "iio:device1")
    }

    @Test func aGyroscopeInTheSameParentDeviceWins() throws {
        // Same location: the accelerometer whose gyroscope shares its parent (one hub) wins over
        // the lower-numbered one without, whatever the order of discovery.
        let sensors = convertible(baseLocation: "display", displayLocation: "display")
        #expect(try SensorSelection.choose(from: sensors, selector: nil).accel.id == "iio:device1")
        #expect(try SensorSelection.choose(from: sensors.reversed(), selector: nil).accel.id == "iio:device1")
    }

    @Test func tiesGoToTheLowestDeviceNumber() throws {
        let sensors = [sensor(10, "accel_3d", .accel, hub: "a"), sensor(2, "accel_3d", .accel, hub: "b")]
        // Discovery sorts by number; the rule keeps that order among equals.
        #expect(try SensorSelection.choose(from: sensors.reversed(), selector: nil).accel.id == "iio:device2")
    }

    @Test func everyDeviceForm() throws {
        let sensors = convertible()
        let display = sensors[1]
        for form in ["/sys/bus/iio/devices/iio:device1", "/sys/bus/iio/devices/iio:device1/", "/sys/class/iio/iio:device1",
                     display.path, display.path + "/", "iio:device1", "/dev/iio:device1"] {
            let s = try SensorSelection.choose(from: sensors, selector: form)
            #expect(s.accel.id == "iio:device1", "device = \(form)")
            #expect(s.gyro?.id == "iio:device2", "device = \(form)")
            #expect(s.ambiguity == nil, "device = \(form)")
        }
        #expect(try SensorSelection.choose(from: sensors, selector: "/sys/bus/iio/devices/iio:device0").accel.id == "iio:device0")
        #expect(throws: SensorError.notFound("/sys/bus/iio/devices/iio:device7")) {
            try SensorSelection.choose(from: sensors, selector: "/sys/bus/iio/devices/iio:device7")
        }
        #expect(throws: SensorError.notFound("/sys/bus/iio/devices/iio:device2 is a gyroscope without accelerometer; select the accelerometer")) {
            try SensorSelection.choose(from: sensors, selector: "/sys/bus/iio/devices/iio:device2")
        }
    }

    @Test func locationSelectors() throws {
        let located = convertible(baseLocation: "base", displayLocation: "display")
        #expect(try SensorSelection.choose(from: located, selector: "display").accel.id == "iio:device1")
        let base = try SensorSelection.choose(from: located, selector: "base")
        #expect(base.accel.id == "iio:device0")
        #expect(base.gyro == nil)
        #expect(base.notes.isEmpty)
        // Only the base says where it is: `display` is the accelerometer not in the base.
        let baseOnly = convertible(baseLocation: "base")
        #expect(try SensorSelection.choose(from: baseOnly, selector: "display").accel.id == "iio:device1")
        // Nothing says base: `base` matches nothing.
        #expect(throws: SensorError.notFound("base")) { try SensorSelection.choose(from: convertible(), selector: "base") }
        // Nothing says anything: `display` is chosen among both by the rule, with the warning.
        let unlabelled = try SensorSelection.choose(from: convertible(), selector: "display")
        #expect(unlabelled.accel.id == "iio:device1")
        #expect(unlabelled.ambiguity != nil)
    }

    @Test func labelsSayWhereTheyAre() throws {
        // `label` (accel-display / accel-base) as discovery turns it into a location.
        let sensors = [sensor(0, "bmi323", .accel, hub: "a", label: "accel-base", location: "base"),
                       sensor(1, "bmi323", .accel, hub: "b", label: "accel-display", location: "display")]
        #expect(try SensorSelection.choose(from: sensors, selector: nil).accel.id == "iio:device1")
        #expect(try SensorSelection.choose(from: sensors, selector: "accel-base").accel.id == "iio:device0")
        #expect(try SensorSelection.choose(from: sensors, selector: "base").accel.id == "iio:device0")
    }

    @Test func aNameMatchingTwoAccelerometersWarnsNamingEveryCandidate() throws {
        let sensors = convertible(baseLocation: "base")
        let s = try SensorSelection.choose(from: sensors, selector: "accel_3d")
        #expect(s.accel.id == "iio:device1")
        #expect(s.gyro?.id == "iio:device2")
        let expected = "device = 'accel_3d' matches 2 accelerometers: "
            + "accel_3d (iio:device1) at \(sensors[1].path) (location unknown, with gyroscope gyro_3d (iio:device2)), "
            + "accel_3d (iio:device0) at \(sensors[0].path) (base, no gyroscope); reading accel_3d (iio:device1) by the "
            + "selection rule (display before unknown before base, then one with a gyroscope, then the lowest number)"
        #expect(s.ambiguity == expected)
        // One match: no warning.
        #expect(try SensorSelection.choose(from: Array(sensors.prefix(1)), selector: "accel_3d").ambiguity == nil)
    }

    /// Every form docs/CONFIGURATION.md shows for `device` selects what it says, on a
    /// convertible whose display accelerometer is `iio:device0` (label `accel-display`) and whose
    /// base is `iio:device1` (label `accel-base`); a form added to the page without a case here fails.
    @Test func everyFormConfigurationMdShowsWorks() throws {
        let text = try #require(readTextFile(TestPaths.packageRoot + "/docs/CONFIGURATION.md"))
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `device` |") }.map(String.init))
        let sensors = [sensor(0, "accel_3d", .accel, hub: "0006:1209:0001.0001", label: "accel-display", location: "display"),
                       sensor(1, "accel_3d", .accel, hub: "0006:1209:0002.0002", label: "accel-base", location: "base"),
                       sensor(2, "gyro_3d", .gyro, hub: "0006:1209:0001.0001")]
        let expected: [String: String?] = [
            "accel_3d": "iio:device0", "accel-display": "iio:device0", "/sys/bus/iio/devices/iio:device0": "iio:device0",
            "/sys/devices/…/iio:device0": nil, "iio:device0": "iio:device0", "/dev/iio:device0": "iio:device0",
            "display": "iio:device0", "base": "iio:device1", "ACCEL_LOCATION": nil, "device": nil, "iio:deviceN": nil,
        ]
        let parts = row.split(separator: "`", omittingEmptySubsequences: false)
        let forms = stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
        #expect(forms.count >= 8, "\(forms)")
        for form in forms {
            let want = try #require(expected[form], "docs/CONFIGURATION.md shows `\(form)` for device: add it to this test")
            guard let want else { continue }  // not a value (the key, the udev property), or a shape with "…"
            #expect(try SensorSelection.choose(from: sensors, selector: form).accel.id == want, "device = \(form)")
        }
        // The "…" shape, with a real path.
        #expect(try SensorSelection.choose(from: sensors, selector: sensors[0].path).accel.id == "iio:device0")
    }
}
