import CarouselConfig
import IIOSensors

extension CarouseldCommandLine {
    /// Why the configured replay recording can never play, or nil: it is loaded as the replay
    /// source loads it (`ReplaySource`, every row parsed), so a file without a single valid
    /// sample — only a header, a bad row, an unknown header — is reported with its `file:line`
    /// instead of a daemon that starts and shows `error`. Nil when the source is not `replay`
    /// or the file is unreadable (reported by `checkReferencedFiles` itself).
    static func replayRecordingProblem(_ configuration: DaemonConfiguration, path: String?) -> String? {
        let sensor = configuration.sensor
        guard sensor.source == .replay, !sensor.replayFile.isEmpty else { return nil }
        do {
            _ = try ReplaySource(path: sensor.replayFile, speed: sensor.replaySpeed, loop: sensor.replayLoop)
            return nil
        } catch {
            return "\(location(of: "sensor", "replay_file", in: path)): [sensor] replay_file: '\(sensor.replayFile)' can never play: \(error.description)"
        }
    }
}
