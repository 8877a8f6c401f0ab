/// A 2nd-order Butterworth low-pass applied to each axis of a `Vector3` signal (e.g. the
/// accelerometer before tilt estimation), sharing one time base and one design. Same rules as
/// `ButterworthLowPass` for variable `dt`, duplicates, gaps and non-finite input (a vector with
/// any non-finite component is ignored as a whole); the three axes are computed together so
/// the step bookkeeping and any redesign happen once per sample.
public struct VectorLowPass: Sendable {
    /// Cutoff frequency, Hz.
    public let cutoffHz: Double
    /// Steps longer than this restart the filter, seconds.
    public let gapSeconds: Double
    /// Relative change of the smoothed step that triggers a redesign (as `ButterworthLowPass`).
    public let redesignTolerance: Double
    /// The coefficients in use (nil until the first step is known).
    public private(set) var coefficients: BiquadCoefficients?
    /// The current output, or nil before the first valid input.
    public private(set) var output: Vector3?

    private var designStep = 0.0
    private var averageStep: Double?
    private var lastTime: Double?
    private var x1 = Vector3.zero, x2 = Vector3.zero, y1 = Vector3.zero, y2 = Vector3.zero

    /// - Parameter cutoffHz: −3 dB frequency, Hz.
    public init(cutoffHz: Double, gapSeconds: Double = 1, redesignTolerance: Double = 0.02) {
        self.cutoffHz = cutoffHz
        self.gapSeconds = gapSeconds
        self.redesignTolerance = redesignTolerance
    }

    /// Feeds `v` at `timeSeconds`; returns the filtered vector, or nil before any valid input.
    public mutating func update(_ v: Vector3, at timeSeconds: Double) -> Vector3? {
        guard v.isFinite, timeSeconds.isFinite else { return output }
        switch SampleStep.classify(previous: lastTime, now: timeSeconds, gapSeconds: gapSeconds) {
        case .duplicate:
            return output
        case .first, .gap:
            x1 = v; x2 = v; y1 = v; y2 = v
            output = v
            lastTime = timeSeconds
            return v
        case let .step(dt):
            let avg = averageStep.map { $0 + 0.05 * (dt - $0) } ?? dt
            averageStep = avg
            if coefficients == nil || abs(avg - designStep) > redesignTolerance * designStep {
                coefficients = .butterworthLowPass(cutoffHz: cutoffHz, sampleRateHz: 1 / avg)
                designStep = avg
            }
            guard let c = coefficients else { return output }
            let y = v * c.b0 + x1 * c.b1 + x2 * c.b2 - y1 * c.a1 - y2 * c.a2
            x2 = x1; x1 = v
            y2 = y1; y1 = y
            lastTime = timeSeconds
            output = y
            return y
        }
    }

    /// Forgets the state (keeps the design); the next input starts in its steady state.
    public mutating func reset() {
        output = nil
        lastTime = nil
    }
}
