/// The part of an IIO device's sysfs path that names the same hardware from one boot or plug
/// to the next, for matching a calibration to its sensor (`CalibrationFile.belongs`).
///
/// Three parts of such a path are numbered by the kernel in the order things appear, not by
/// what they are, and each has been seen to change under the same sensor:
/// - the last component, `iio:deviceN`: IIO numbers devices as their drivers probe, which
///   varies between boots when several probe at once (a HID sensor hub's accelerometer and
///   gyroscope swapped 0 and 1 across a reboot in the system suite);
/// - a HID device's instance, the `.NNNN` of `BBBB:VVVV:PPPP.NNNN` (bus, vendor, product, then
///   a counter of HID devices added since boot): a hub plugged again, or found later at boot,
///   gets the next number;
/// - an automatically numbered platform device's `.N.auto` (as the HID sensor hub's
///   `HID-SENSOR-200073.N.auto` children are), a counter likewise.
///
/// `stable` drops the first, and the numbers of the other two, from a path under
/// `/sys/devices`. A path whose parent is `/sys/bus/iio/devices` (a link, no parent to name
/// the hardware) and any other path, such as a recording's, are returned unchanged.
public enum StableSensorPath {
    /// The path with the kernel's order-dependent numbers removed, as above:
    /// `/sys/devices/virtual/misc/uhid/0006:1209:0001.0002/HID-SENSOR-200073.2.auto/iio:device0`
    /// → `/sys/devices/virtual/misc/uhid/0006:1209:0001/HID-SENSOR-200073.auto`.
    public static func stable(_ path: String) -> String {
        guard path.hasPrefix("/sys/devices/") else { return path }
        var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let last = components.last, isIIODevice(last) { components.removeLast() }
        return components.map(withoutInstance).joined(separator: "/")
    }

    /// Whether two paths name the same sensor by their stable parts.
    public static func same(_ a: String, _ b: String) -> Bool {
        a == b || stable(a) == stable(b)
    }

    /// `iio:device` followed by decimal digits.
    static func isIIODevice(_ component: String) -> Bool {
        let prefix = "iio:device"
        guard component.hasPrefix(prefix) else { return false }
        let digits = component.dropFirst(prefix.count)
        return !digits.isEmpty && digits.allSatisfy { $0 >= "0" && $0 <= "9" }
    }

    /// A HID instance `BBBB:VVVV:PPPP.NNNN` (four hex digits each) without `.NNNN`; a name
    /// ending `.N.auto` (N decimal) as `.auto`; anything else unchanged.
    static func withoutInstance(_ component: String) -> String {
        let chars = Array(component)
        if chars.count == 19, [4, 9].allSatisfy({ chars[$0] == ":" }), chars[14] == ".",
           chars.indices.filter({ ![4, 9, 14].contains($0) }).allSatisfy({ chars[$0].isHexDigit }) {
            return String(chars[0..<14])
        }
        let suffix = ".auto"
        if component.hasSuffix(suffix) {
            let head = component.dropLast(suffix.count)
            if let dot = head.lastIndex(of: "."), dot != head.startIndex {
                let number = head[head.index(after: dot)...]
                if !number.isEmpty && number.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
                    return String(head[..<dot]) + suffix
                }
            }
        }
        return component
    }
}
