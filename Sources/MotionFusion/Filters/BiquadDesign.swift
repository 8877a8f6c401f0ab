/// The sample-rate bookkeeping shared by the timestamped Butterworth filters
/// (`ButterworthLowPass`, `VectorLowPass`): which coefficients to use for a step of `dt`.
///
/// The design follows a smoothed step (a one-pole average of `dt` with weight 0.05, so single
/// jittered or dropped samples barely move it) and is recomputed only when that average departs
/// by more than `redesignTolerance` (relative) from the step the coefficients were designed for.
/// At a steady rate the coefficients are computed once.
struct BiquadDesign: Sendable {
    /// −3 dB frequency, Hz.
    let cutoffHz: Double
    /// Relative change of the smoothed step that triggers a redesign.
    let redesignTolerance: Double
    /// The coefficients in use (nil until a step is known).
    var coefficients: BiquadCoefficients? { designed ? current : nil }
    /// The step the coefficients were designed for, seconds.
    var designStep: Double? { designed ? currentStep : nil }
    // Plain values with a flag rather than optionals: this runs once per sample. The smoothed
    // step exists exactly when coefficients do (both are set by the first step or the nominal
    // one), so `designed` flags both.
    private var current = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)
    private var currentStep = 0.0, designed = false
    // `redesignTolerance · currentStep`, computed with each design.
    private var redesignLimit = 0.0
    private var averageStep = 0.0

    /// - Parameter nominalStep: the step to design for before any is measured, seconds, if known.
    init(cutoffHz: Double, redesignTolerance: Double, nominalStep: Double? = nil) {
        self.cutoffHz = cutoffHz
        self.redesignTolerance = redesignTolerance
        if let step = nominalStep, step > 0 {
            averageStep = step
            design(step: step)
        }
    }

    /// Accounts for a step of `dt` seconds (> 0) and returns the coefficients to use for it.
    @inline(__always) mutating func coefficients(forStep dt: Double) -> BiquadCoefficients {
        guard designed else {
            averageStep = dt
            return design(step: dt)
        }
        let average = averageStep + 0.05 * (dt - averageStep)
        averageStep = average
        if abs(average - currentStep) <= redesignLimit {
            return current
        }
        return design(step: average)
    }

    @discardableResult
    private mutating func design(step: Double) -> BiquadCoefficients {
        let c = BiquadCoefficients.butterworthLowPass(cutoffHz: cutoffHz, sampleRateHz: 1 / step)
        current = c
        currentStep = step
        redesignLimit = redesignTolerance * step
        designed = true
        return c
    }
}
