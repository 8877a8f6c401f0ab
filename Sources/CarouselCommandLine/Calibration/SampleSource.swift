import CarouselConfig
import IIOSensors
import MotionFusion

/// Where `carouselctl calibrate` takes a capture from: a `--replay` recording, the daemon's
/// `samples` stream, or the IIO sensor read directly.
struct SampleSource {
    let args: ParsedArguments
    let client: DaemonClient?
    let settings: SensorSettings
    /// `--duration` for a recording; nil reads all of it.
    let durationSeconds: Double?
    let io: CommandIO

    /// Collects `seconds` of samples (a recording: its `--duration` or all of it), showing `label`.
    /// - Throws: `CommandError` from the source (66 missing recording, 65 bad row, 69 no sensor, …).
    func capture(seconds: Double, label: String) throws(CommandError) -> CollectedSamples {
        if let path = args.value("--replay") {
            var collected = try SampleCollection.fromRecording(path: path, durationSeconds: durationSeconds)
            if let name = args.value("--sensor") { (collected.sensorName, collected.sensorPath) = (name, "") }
            return collected
        }
        if let client {
            // A replaying daemon names its source after the recording's file (ReplaySource).
            let replay = settings.source == .replay && !settings.replayFile.isEmpty
                ? RecordingIdentity(path: settings.replayFile) : nil
            return try SampleCollection.fromDaemon(client: client, durationSeconds: seconds, io: io, label: label,
                                                   fallbackIdentity: replay.map { ($0.name, $0.path) })
        }
        let selector = args.value("--sensor") ?? (settings.device.isEmpty ? nil : settings.device)
        return try SampleCollection.fromSensor(selector: selector, uri: settings.uri, sampleRateHz: settings.sampleRateHz,
                                               mode: settings.mode, convention: settings.accelConvention, durationSeconds: seconds, io: io, label: label)
    }
}
