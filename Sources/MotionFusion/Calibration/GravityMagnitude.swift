/// Whether an accelerometer at rest reads about 1 g (docs/SENSORS.md "Implausible magnitudes"):
/// carouseld takes `(raw + offset) · scale` exactly as the kernel gives it, so a driver whose
/// `scale` is in g (fxos8700: 1 g reads 1.0 "m/s²") or a HID hub whose unit codes Linux does
/// not understand (scale 1.0 and the exponent dropped: 100 × in m/s²) shows up as a magnitude
/// far from 9.81 m/s² while the device does not move.
public enum GravityMagnitude {
    /// The magnitudes at rest taken as gravity, in g: 0.7–1.3 (a tilt is still right outside
    /// it, but calibration and the fusion's norm checks are not).
    public static let plausibleG: ClosedRange<Double> = 0.7...1.3

    /// Why `magnitude` (m/s², the mean at rest) is not gravity, in one sentence with the value
    /// and the likely cause; nil when it is within `plausibleG`.
    public static func problem(magnitude: Double) -> String? {
        let g = magnitude / standardGravity
        guard magnitude.isFinite, !plausibleG.contains(g) else { return nil }
        return "at rest the accelerometer reads \(fixed(magnitude, 2)) m/s² (\(fixed(g, 3)) g), not 1 g (9.81 m/s²): "
            + likelyCause(g: g)
    }

    /// The likely cause of a resting magnitude of `g` times gravity.
    static func likelyCause(g: Double) -> String {
        if (0.08...0.125).contains(g) {
            return "likely cause: the driver reports its scale in g, not m/s² (as fxos8700's does)"
        }
        if (80...125).contains(g) {
            return "likely cause: a HID sensor hub whose unit codes Linux does not understand (HID's 0xE011), so the kernel "
                + "uses scale 1.0 and drops the unit exponent (100 × the value)"
        }
        if g < 0.05 {
            return "likely cause: a scale or offset that cancels the reading, or a sensor that is not measuring"
        }
        return "likely cause: a wrong in_accel_scale (see carouselctl sensors)"
    }

    /// `value` with `decimals` decimals (no Foundation).
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return value.description }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (value * scale).rounded() / scale
        var s = (r == 0 ? 0 : r).description
        if s.contains("e") { return value.description }
        if let dot = s.firstIndex(of: ".") {
            let have = s.distance(from: dot, to: s.endIndex) - 1
            if have < decimals { s += String(repeating: "0", count: decimals - have) }
        }
        return s
    }
}

/// Watches the accelerometer of one sensor for a resting magnitude far from gravity: windows of
/// `windowNanoseconds` (3 s) in which the magnitude moves by at most 5 % of its mean and the
/// gyroscope (when there is one) stays under 0.1 rad/s count as rest; the first resting window
/// decides: a `GravityMagnitude.problem` is reported once, a plausible one ends the watch.
public struct GravityMagnitudeWatch: Sendable {
    public static let windowNanoseconds: Int64 = 3_000_000_000
    private var start: Int64?
    private var count = 0
    private var sum = 0.0
    private var low = Double.infinity, high = -Double.infinity
    private var moved = false
    /// Whether a resting window was seen (the watch is over).
    public private(set) var decided = false

    public init() {}

    /// Adds one sample; returns the problem when this sample ends the first resting window and
    /// its mean magnitude is implausible, else nil.
    public mutating func add(_ sample: IMUSample) -> String? {
        guard !decided else { return nil }
        let m = sample.accel.length
        guard m.isFinite else { return nil }
        let t = sample.timestampNanoseconds
        if start == nil { start = t }
        count += 1
        sum += m
        low = min(low, m)
        high = max(high, m)
        if let gyro = sample.gyro, gyro.length > 0.1 { moved = true }
        guard let s = start, t &- s >= Self.windowNanoseconds else { return nil }
        let mean = sum / Double(count)
        let resting = !moved && count >= 3 && high - low <= 0.05 * mean
        self = GravityMagnitudeWatch()
        guard resting else { return nil }
        decided = true
        return GravityMagnitude.problem(magnitude: mean)
    }
}
