/// Why a mount matrix from udev or sysfs is not used (its text and the reason), for the
/// warning that names where it came from.
struct MountMatrixRefusal: Error, CustomStringConvertible {
    var description: String
}
