import CarouselPosix
import CLinux
import MotionFusion
#if canImport(Glibc)
import Glibc
#endif

/// Reads the `[calibration] file` (docs/CONFIGURATION.md "[calibration]") and decides which correction the
/// pipeline gets.
///
/// The rules (docs/CONFIGURATION.md "[calibration]"): a missing file means no calibration, quietly (a fresh
/// install has none until `carouselctl calibrate` runs); a malformed or unreadable file is a
/// warning naming `file:line` and the previous calibration stays; a calibration made for another
/// sensor (name and sysfs path, `CalibrationFile.belongs(toSensor:path:)`) is not applied, with
/// a warning.
enum CalibrationLoader {
    /// The outcome of reading the file.
    enum Outcome: Equatable {
        /// No file configured, or the file does not exist.
        case missing
        case loaded(CalibrationFile)
        /// Unreadable or malformed: the message names the file (and line).
        case failed(String)
    }

    /// Reads and parses `path`: a regular file of at most `CalibrationFile.maximumFileBytes` (a FIFO would stop
    /// the daemon's loop waiting for a writer; a longer file is not a calibration file).
    static func read(path: String) -> Outcome {
        guard !path.isEmpty else { return .missing }
        let text: String
        do {
            text = String(decoding: try BoundedFile.read(path, limit: CalibrationFile.maximumFileBytes), as: UTF8.self)
        } catch .system(let e) where e.rawValue == ENOENT {
            return .missing
        } catch .system(let e) {
            return .failed(SystemError("open \(path)", errno: e).description)
        } catch {
            return .failed("\(path): cannot be read: \(error.reason)")
        }
        do {
            return .loaded(try CalibrationFile.parse(text: text, path: path))
        } catch {
            return .failed(error.description)
        }
    }

    /// The sensor a calibration must belong to: the IIO accelerometer's `name` and sysfs path, or
    /// for a replay the recording's file name and canonical path (`RecordingIdentity`, as
    /// `carouselctl calibrate` writes them from the recording or from a replaying daemon). nil
    /// while an IIO sensor is not selected yet.
    struct SensorIdentity: Equatable {
        var name: String
        var path: String
    }

    /// The correction to apply and whether it comes from the file, given the last good file and
    /// the current sensor. `mismatch` is set when the file belongs to another sensor.
    static func effective(file: CalibrationFile?, sensor: SensorIdentity?)
        -> (calibration: Calibration, applied: Bool, mismatch: Bool) {
        guard let file, let sensor else { return (.identity, false, false) }
        guard file.belongs(toSensor: sensor.name, path: sensor.path) else { return (.identity, false, true) }
        return (file.calibration, true, false)
    }
}
