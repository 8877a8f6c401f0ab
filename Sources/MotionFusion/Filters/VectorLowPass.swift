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
    // The time base of `update(finite:timestampNanoseconds:)`, integer nanoseconds.
    private var lastTimestamp: Int64 = 0
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
            restart(at: v)
            lastTime = timeSeconds
            return v
        }
        lastTime = timeSeconds
        return filter(v, step: dt)
    }

    /// `update(_:at:)` for `AttitudeEstimator`, which has already checked that `v` is finite (on
    /// its squared norm) and keeps time as integer nanoseconds: the step is one exact integer
    /// difference, as the estimator's own `dt`, rather than a difference of two `Double` times
    /// (which, at large times since the start, differs from it by rounding), and there is always
    /// an output. Same rules otherwise: the first sample and a step longer than `gapSeconds`
    /// restart in the steady state, a step ≤ 0 holds the output, the design follows the smoothed
    /// step. An instance is driven through one of the two entry points only (separate time bases).
    @inline(__always)
    mutating func update(finite v: Vector3, timestampNanoseconds t: Int64) -> Vector3 {
        if started {
            let dt = secondsBetween(lastTimestamp, t)
            if !(dt > 0) { return y1 }  // duplicate or out of order: held (y1 is the last output)
            if dt <= gapSeconds {
                lastTimestamp = t
                return filter(v, step: dt)
            }
        }
        restart(at: v)  // first sample, or a gap
        lastTimestamp = t
        return v
    }

    /// Starts in the steady state at `v` (no ringing, no start-up ramp).
    @inline(__always) private mutating func restart(at v: Vector3) {
        x1 = v; x2 = v; y1 = v; y2 = v
        started = true
    }

    /// One direct-form-I step of `dt` seconds (> 0).
    @inline(__always) private mutating func filter(_ v: Vector3, step dt: Double) -> Vector3 {
        let c = design.coefficients(forStep: dt)
        let y = v * c.b0 + x1 * c.b1 + x2 * c.b2 - y1 * c.a1 - y2 * c.a2
        x2 = x1; x1 = v
        y2 = y1; y1 = y
        return y
    }

    /// Forgets the state (keeps the design); the next input starts in its steady state.
    public mutating func reset() {
        started = false
    }
}
