#if canImport(Glibc)
import Glibc
#endif

/// The sensor a recording stands for, as a calibration file names it (`sensor`, `sensor_path`):
/// the file's name, which `ReplaySource` calls itself, and its canonical path.
///
/// One recording can be named by many paths (`data/x.csv` from a checkout, a configuration's
/// `configs/../data/x.csv`, a symbolic link); `carouselctl calibrate --replay` and a replaying
/// carouseld must name it alike, or a calibration made from the recording would never apply
/// to the daemon replaying it. The path is `realpath(3)`'s: absolute, without `.`, `..` or
/// symbolic links. A file realpath cannot resolve (gone, unreadable directory) keeps the path
/// as given.
public struct RecordingIdentity: Equatable, Sendable {
    /// The file's last path component, e.g. `demo-recording.csv`.
    public let name: String
    /// The canonical absolute path, or the path as given when it cannot be resolved.
    public let path: String

    public init(path: String) {
        name = path.split(separator: "/").last.map(String.init) ?? path
        if let resolved = realpath(path, nil) {
            self.path = String(cString: resolved)
            free(resolved)
        } else {
            self.path = path
        }
    }
}
