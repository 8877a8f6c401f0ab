/// A 2nd-order Butterworth low-pass applied to each axis of a `Vector3` signal (e.g. the
/// accelerometer before tilt estimation), sharing one time base and one design. Same rules as
/// `ButterworthLowPass` for variable `dt`, duplicates, gaps and non-finite input (a vector with
/// any non-finite component is ignored as a whole); the three axes are computed together so
/// the step bookkeeping and any redesign happen once per sample.
public struct VectorLowPass: Sendable {
    /// Cutoff frequency, Hz.
    public var cutoffHz: Double { design.cutoffHz }
    /// Steps longer than this restart the filter, seconds.
    public let gapSeconds: Double
    /// Relative change of the smoothed step that triggers a redesign (as `ButterworthLowPass`).
    public var redesignTolerance: Double { design.redesignTolerance }
    /// The coefficients in use (nil until the first step is known).
    public var coefficients: BiquadCoefficients? { design.coefficients }
    /// The current output, or nil before the first valid input.
    public var output: Vector3? { started ? y1 : nil }  // y1 is the last output once started

    private var design: BiquadDesign
    // Time with a flag rather than `Double?` (once per sample).
    private var lastTime = 0.0, started = false
    private var x1 = Vector3.zero, x2 = Vector3.zero, y1 = Vector3.zero, y2 = Vector3.zero

    /// - Parameter cutoffHz: −3 dB frequency, Hz.
    public init(cutoffHz: Double, gapSeconds: Double = 1, redesignTolerance: Double = 0.02) {
        self.gapSeconds = gapSeconds
        design = BiquadDesign(cutoffHz: cutoffHz, redesignTolerance: redesignTolerance)
    }

    /// Feeds `v` at `timeSeconds`; returns the filtered vector, or nil before any valid input.
    public mutating func update(_ v: Vector3, at timeSeconds: Double) -> Vector3? {
        guard v.isFinite, timeSeconds.isFinite else { return output }
        // SampleStep.classify's rules, inlined without the optional.
        let dt = timeSeconds - lastTime
        if started && !(dt > 0) { return output }  // duplicate or out of order
        if !started || dt > gapSeconds {  // first sample, or a gap: restart in steady state
            x1 = v; x2 = v; y1 = v; y2 = v
            started = true
            lastTime = timeSeconds
            return v
        }
        let c = design.coefficients(forStep: dt)
        let y = v * c.b0 + x1 * c.b1 + x2 * c.b2 - y1 * c.a1 - y2 * c.a2
        x2 = x1; x1 = v
        y2 = y1; y1 = y
        lastTime = timeSeconds
        return y
    }

    /// Forgets the state (keeps the design); the next input starts in its steady state.
    public mutating func reset() {
        started = false
    }
}
