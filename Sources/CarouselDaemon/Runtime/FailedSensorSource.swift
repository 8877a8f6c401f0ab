import IIOSensors
import MotionFusion

/// A source that could not be built (a replay file that is missing or malformed): status
/// `error` with the reason, never any sample, so the daemon runs on and a reload can fix it.
final class FailedSensorSource: SensorSource {
    let name: String
    let statusMessage: String?
    private let error: SensorError

    init(name: String, error: SensorError) {
        self.name = name
        self.error = error
        self.statusMessage = error.description
    }

    var status: SensorStatus { .error }
    var sampleRateHz: Double? { nil }
    var pollDescriptor: Int32? { nil }
    /// - Throws: the error that made the source unusable.
    func start() throws(SensorError) { throw error }
    func stop() {}
    func readAvailable(into samples: inout [IMUSample]) throws(SensorError) {}
}
