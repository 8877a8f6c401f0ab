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
    private(set) var coefficients: BiquadCoefficients?
    /// The step the coefficients were designed for, seconds.
    private(set) var designStep: Double?
    private var averageStep: Double?

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
    mutating func coefficients(forStep dt: Double) -> BiquadCoefficients {
        let average = averageStep.map { $0 + 0.05 * (dt - $0) } ?? dt
        averageStep = average
        if let c = coefficients, let d = designStep, abs(average - d) <= redesignTolerance * d {
            return c
        }
        return design(step: average)
    }

    @discardableResult
    private mutating func design(step: Double) -> BiquadCoefficients {
        let c = BiquadCoefficients.butterworthLowPass(cutoffHz: cutoffHz, sampleRateHz: 1 / step)
        coefficients = c
        designStep = step
        return c
    }
}
