/// The attitude estimator the daemon uses in place of the configured one, as SENSOR and STATUS
/// report it (`estimator {configured, used, lowpass_hz}`, docs/PROTOCOL.md "Server messages"):
/// a sensor without a gyroscope cannot feed `inertial`, `fusion`, `complementary` or `madgwick`,
/// so its samples go through `accel` and a low-pass instead. Absent while the configured
/// estimator is the one in use.
public struct WireEstimator: Sendable, Equatable {
    /// `[filter] method` as configured (`inertial`, `fusion`, …).
    public var configured: String
    /// The estimator the samples go through (`accel`).
    public var used: String
    /// The low-pass cutoff in front of it, Hz.
    public var lowpassHz: Double
    /// Why (one phrase, e.g. "the sensor has no gyroscope").
    public var reason: String

    public init(configured: String, used: String, lowpassHz: Double, reason: String) {
        self.configured = configured
        self.used = used
        self.lowpassHz = lowpassHz
        self.reason = reason
    }

    /// One sentence for a log, a SENSOR `message` or `carouselctl status`:
    /// "the sensor has no gyroscope: [filter] method inertial replaced by accel with a 3 Hz low-pass".
    public var sentence: String {
        var hz = lowpassHz.description
        if hz.hasSuffix(".0") { hz.removeLast(2) }
        return "\(reason): [filter] method \(configured) replaced by \(used) with a \(hz) Hz low-pass"
    }

    func write(to w: inout WireJSONWriter) {
        w.beginObject()
        w.key("configured"); w.string(configured)
        w.key("used"); w.string(used)
        w.key("lowpass_hz"); w.number(lowpassHz)
        w.key("reason"); w.string(reason)
        w.endObject()
    }
}
