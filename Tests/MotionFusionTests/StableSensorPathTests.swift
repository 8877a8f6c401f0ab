import Testing
@testable import MotionFusion

/// The paths are the system suite's (tests/system): the uhid sensor hub's accelerometer before
/// and after a reboot, found as the second HID device and then the first, its IIO number 0 then 1.
@Suite struct StableSensorPathTests {
    static let calibrated = "/sys/devices/virtual/misc/uhid/0006:1209:0001.0002/HID-SENSOR-200073.2.auto/iio:device0"
    static let afterReboot = "/sys/devices/virtual/misc/uhid/0006:1209:0001.0001/HID-SENSOR-200073.2.auto/iio:device1"

    @Test func dropsTheKernelsOrderNumbers() {
        #expect(StableSensorPath.stable(Self.calibrated) == "/sys/devices/virtual/misc/uhid/0006:1209:0001/HID-SENSOR-200073.auto")
        #expect(StableSensorPath.stable(Self.afterReboot) == StableSensorPath.stable(Self.calibrated))
        #expect(StableSensorPath.same(Self.calibrated, Self.afterReboot))
        // An Intel ISH hub's gyroscope, instance and auto id both renumbered.
        #expect(StableSensorPath.same(
            "/sys/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0003/HID-SENSOR-200076.11.auto/iio:device4",
            "/sys/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001/HID-SENSOR-200076.3.auto/iio:device2"))
        // An I²C sensor: only the IIO number goes.
        #expect(StableSensorPath.stable("/sys/devices/platform/soc/fe804000.i2c/i2c-1/1-0068/iio:device0")
                == "/sys/devices/platform/soc/fe804000.i2c/i2c-1/1-0068")
    }

    @Test func otherHardwareStaysOther() {
        // Another product on the same bus, another sensor usage of the hub, another I²C address.
        #expect(!StableSensorPath.same(Self.calibrated,
                                       "/sys/devices/virtual/misc/uhid/0006:1209:0002.0001/HID-SENSOR-200073.2.auto/iio:device0"))
        #expect(!StableSensorPath.same(Self.calibrated,
                                       "/sys/devices/virtual/misc/uhid/0006:1209:0001.0002/HID-SENSOR-200076.3.auto/iio:device1"))
        #expect(!StableSensorPath.same("/sys/devices/platform/soc/fe804000.i2c/i2c-1/1-0068/iio:device0",
                                       "/sys/devices/platform/soc/fe804000.i2c/i2c-1/1-0069/iio:device0"))
    }

    @Test func pathsWithoutAParentAreComparedWhole() {
        // The /sys/bus link has no parent to name the hardware; a recording's path is a file.
        #expect(StableSensorPath.stable("/sys/bus/iio/devices/iio:device0") == "/sys/bus/iio/devices/iio:device0")
        #expect(!StableSensorPath.same("/sys/bus/iio/devices/iio:device0", "/sys/bus/iio/devices/iio:device1"))
        #expect(StableSensorPath.stable("/var/lib/rec.0001.auto/iio:device0") == "/var/lib/rec.0001.auto/iio:device0")
        // Look-alikes that are not the kernel's numbering keep their digits.
        #expect(StableSensorPath.withoutInstance("0006:1209:0001.00G2") == "0006:1209:0001.00G2")
        #expect(StableSensorPath.withoutInstance("name.auto") == "name.auto")
        #expect(StableSensorPath.withoutInstance("x.2a.auto") == "x.2a.auto")
        #expect(!StableSensorPath.isIIODevice("iio:device") && !StableSensorPath.isIIODevice("iio:deviceX"))
    }
}
