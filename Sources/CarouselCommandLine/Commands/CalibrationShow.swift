#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import MotionFusion
import CLinux

/// `carouselctl calibration show`: the calibration file in use, parsed, with its sensor and age.
enum CalibrationShowCommand {
    static let spec = CommandSpec(
        name: "calibration show",
        summary: "Show the calibration in use: values, sensor, age.",
        discussion: """
        Reads the calibration file (--file, else [calibration] file of the config, else \
        /var/lib/carouseld/calibration.conf) and prints its values, the sensor it belongs to and \
        its age. When carouseld runs, also says whether the daemon applies it. With --json: one \
        object with file, sensor, sensor_path, created, age_s, samples, method, gyro_bias_rad_s, \
        accel_offset_m_s2, accel_scale, neutral_roll_deg, neutral_pitch_deg, gyro_noise_rad_s, \
        accel_noise_m_s2 (null when absent) and applied (null when the daemon is not running).
        Exit status: 0 shown, 65 the file is invalid (the message names the file, the key and \
        its line), 66 no calibration file (the sensor is uncalibrated) or a directory, 74 read \
        error, 77 permission denied.
        """,
        options: [
            OptionSpec("--json", help: "Print one JSON object for scripts."),
            OptionSpec("--file", short: "-f", value: "FILE", help: "Calibration file to show (default: the daemon's)."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            let settings = try OperatorSettings.load(args, io: io)
            // The running daemon knows which file it uses (its own configuration may differ
            // from the one this command reads); ask it first, quickly.
            var daemonFile: String?
            var daemonApplies = false
            var daemonAnswered = false
            var daemonSensor: (name: String, path: String)?
            if let client = try? DaemonClient(socketPath: settings.socketPath(args), timeoutSeconds: 2) {
                if let status = try? client.request(ControlRequest.status, cmd: "status", expecting: ["STATUS"]),
                   let calibration = status["calibration"] {
                    daemonAnswered = true
                    daemonFile = calibration["file"]?.stringValue
                    daemonApplies = calibration["applied"]?.boolValue == true
                    if let name = status["sensor_name"]?.stringValue {
                        daemonSensor = (name, status["sensor_path"]?.stringValue ?? "")
                    }
                }
                client.close()
            }
            let path = args.value("--file") ?? daemonFile ?? settings.configuration.calibration.file
            let text: String
            do throws(TextFile.Failure) {
                text = try TextFile.read(path: path, limit: CalibrationFile.maximumFileBytes)
            } catch {
                if case .notFound = error {
                    throw CommandError(.noInput, "no calibration file at \(path): the sensor is uncalibrated (run 'carouselctl calibrate')")
                }
                throw error.commandError
            }
            let file: CalibrationFile
            do throws(CalibrationFileError) {
                file = try CalibrationFile.parse(text: text, path: path)
            } catch {
                throw CommandError(.dataError, error.description)
            }
            let now = clinux_realtime_ns() / 1_000_000_000
            let age = ISO8601UTC.parse(file.created).map { now - $0 }
            // Whether the daemon applies it: only when one answered.
            let applied: Bool? = daemonAnswered ? (daemonFile == path && daemonApplies) : nil
            if args.has("--json") {
                io.out(CalibrationJSON.render(file, path: path, ageSeconds: age, applied: applied) + "\n")
                return .ok
            }
            var out = "calibration \(path)\n"
            out += CalibrationReport.row("sensor:", CalibrationReport.sensorText(file))
            out += CalibrationReport.row("created:", file.created.isEmpty ? "?" : file.created
                                         + (age.map { " (\(ISO8601UTC.age(seconds: $0)) ago)" } ?? ""))
            out += CalibrationReport.row("samples:", "\(file.samples)\(file.method.isEmpty ? "" : " (\(file.method))")")
            out += CalibrationReport.body(file)
            if let applied {
                out += CalibrationReport.row("carouseld:", applied ? "applies it"
                    : notAppliedReason(file, path: path, daemonFile: daemonFile, daemonSensor: daemonSensor))
            }
            if !file.unknownKeys.isEmpty {
                out += CalibrationReport.row("other keys:", file.unknownKeys.joined(separator: ", "))
            }
            io.out(out)
            return .ok
        }
    )

    /// Why a daemon that answered does not apply the calibration at `path`: another file, a
    /// file made for another sensor, or (same file, same sensor) a version it has not read,
    /// such as a file written while it could not be told to reload.
    static func notAppliedReason(_ file: CalibrationFile, path: String, daemonFile: String?,
                                 daemonSensor: (name: String, path: String)?) -> String {
        guard let daemonFile, daemonFile == path else {
            return "does not apply it: it uses \(daemonFile ?? "no calibration file")"
        }
        guard let daemonSensor else { return "does not apply it: it has no sensor selected yet" }
        guard file.belongs(toSensor: daemonSensor.name, path: daemonSensor.path) else {
            let sensor = daemonSensor.path.isEmpty ? daemonSensor.name : "\(daemonSensor.name) (\(daemonSensor.path))"
            return "does not apply it: the file is for another sensor than its \(sensor)"
        }
        return "does not apply it: it has not read this version of the file (run 'carouselctl reload')"
    }
}
