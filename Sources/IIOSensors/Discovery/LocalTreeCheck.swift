#if canImport(Glibc)
import Glibc
#endif

/// Finds what makes libiio 0.24's local backend refuse the whole sysfs tree: it fails
/// `iio_create_local_context` for all devices (`EINVAL`, `EFBIG`) when one device has a
/// `scan_elements/*_index` that is not an integer (it is parsed with `strtol`), a file in
/// `scan_elements/` other than `*_en`, `*_index` and `*_type`, or a `name` or `label` of 1024
/// bytes or more (read into a 1024-byte buffer). Those are named, so the error says which device
/// and attribute to look at instead of only an errno.
enum LocalTreeCheck {
    /// The malformed attributes under the device directories `syspaths`, as
    /// `iio:device0: scan_elements/in_accel_x_index 'abc' is not an integer`.
    static func causes(in syspaths: [String]) -> [String] {
        var causes: [String] = []
        for path in syspaths {
            let id = path.split(separator: "/").last.map(String.init) ?? path
            let attributes = SysfsAttributes(syspath: path, deviceName: id)
            for file in ["name", "label"] {
                if let bytes = attributes.bytes(file), bytes.count >= 1024 {
                    causes.append("\(id): \(file) is \(bytes.count) bytes, libiio reads at most 1023")
                }
            }
            for file in entries(path + "/scan_elements") {
                if file.hasSuffix("_index") {
                    let text = attributes.read("scan_elements/" + file) ?? ""
                    if Int(text.trimmingCharacters(in: " \t\n\0")) == nil {
                        causes.append("\(id): scan_elements/\(file) '\(printable(text))' is not an integer")
                    }
                } else if !file.hasSuffix("_en") && !file.hasSuffix("_type") {
                    causes.append("\(id): scan_elements/\(printable(file)) is not an _en, _index or _type file")
                }
            }
        }
        return causes
    }

    /// The names in `directory`, without `.` and `..`; empty when it cannot be read.
    private static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
