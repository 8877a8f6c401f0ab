/// A 2nd-order Butterworth low-pass applied to each axis of a `Vector3` signal (e.g. the
/// accelerometer before tilt estimation), sharing one time base. Same rules as
/// `ButterworthLowPass` for variable `dt`, duplicates, gaps and non-finite input.
public struct VectorLowPass: Sendable {
    private var x: ButterworthLowPass
    private var y: ButterworthLowPass
    private var z: ButterworthLowPass

    /// - Parameter cutoffHz: −3 dB frequency, Hz.
    public init(cutoffHz: Double, gapSeconds: Double = 1) {
        x = ButterworthLowPass(cutoffHz: cutoffHz, gapSeconds: gapSeconds)
        y = x
        z = x
    }

    /// Feeds `v` at `timeSeconds`; returns the filtered vector, or nil before any valid input.
    /// A vector with any non-finite component is ignored as a whole.
    public mutating func update(_ v: Vector3, at timeSeconds: Double) -> Vector3? {
        guard v.isFinite else { return output }
        guard let fx = x.update(v.x, at: timeSeconds), let fy = y.update(v.y, at: timeSeconds),
              let fz = z.update(v.z, at: timeSeconds) else { return nil }
        return Vector3(fx, fy, fz)
    }

    /// The current output, or nil before the first valid input.
    public var output: Vector3? {
        guard let fx = x.output, let fy = y.output, let fz = z.output else { return nil }
        return Vector3(fx, fy, fz)
    }

    public mutating func reset() {
        x.reset(); y.reset(); z.reset()
    }
}
