import CarouselConfig
import CarouselService
import IIOSensors
import MotionFusion

/// Builds the `SensorSource` that `[sensor]` asks for; the rest of the daemon never asks which
/// kind it has.
enum SensorFactory {
    /// - Parameter log: each sensor event with its level.
    static func make(_ settings: SensorSettings, log: @escaping LogSink) -> SensorSource {
        switch settings.source {
        case .iio:
            let configuration = IIOSourceConfiguration(
                uri: settings.uri.isEmpty ? nil : settings.uri,
                device: settings.device.isEmpty ? nil : settings.device,
                sampleRateHz: settings.sampleRateHz, mode: settings.mode,
                accelConvention: settings.accelConvention,
                watchHotplug: true)
            // libiio's network backend blocks up to 5 s per call when iiod hangs: a remote
            // sensor is read on its own thread (docs/SENSORS.md "Remote sensors").
            if settings.uri.hasPrefix("ip:") { return RemoteSensorSource(configuration: configuration, log: log) }
            return IIOSensorSource(configuration: configuration, log: log)
        case .replay:
            // ReplaySource keeps the recording's sample spacing at any replay_speed (the estimator
            // integrates over sample time; the engine runs on the loop's clock: docs/SENSORS.md).
            do {
                return try ReplaySource(path: settings.replayFile, speed: settings.replaySpeed, loop: settings.replayLoop)
            } catch {
                let name = settings.replayFile.split(separator: "/").last.map(String.init) ?? settings.replayFile
                log(.error, "replay \(settings.replayFile): \(error)")
                return FailedSensorSource(name: name, error: error)
            }
        }
    }

    /// The identity a calibration file must match (`CalibrationLoader.SensorIdentity`): the
    /// selected IIO accelerometer's `name` and sysfs path, or for a replay the recording's file
    /// name and configured path; nil while no IIO sensor is selected (not started, absent).
    static func identity(of source: SensorSource, settings: SensorSettings) -> CalibrationLoader.SensorIdentity? {
        if let device = source.selectedDevice {
            return CalibrationLoader.SensorIdentity(name: device.name, path: device.path)
        }
        guard settings.source == .replay, !settings.replayFile.isEmpty else { return nil }
        return CalibrationLoader.SensorIdentity(name: source.name, path: RecordingIdentity(path: settings.replayFile).path)
    }
}
