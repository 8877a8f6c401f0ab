#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// Coefficients of a biquad `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`.
public struct BiquadCoefficients: Equatable, Sendable {
    public var b0, b1, b2, a1, a2: Double

    /// 2nd-order Butterworth low-pass, bilinear transform with the cutoff prewarped so that the
    /// digital filter's −3 dB point is exactly `cutoffHz` (what SciPy's `butter(2, fc, fs=fs)`
    /// computes): `K = tan(π f_c / f_s)`, `n = 1 / (1 + √2 K + K²)`, `b0 = b2 = K² n`,
    /// `b1 = 2 b0`, `a1 = 2 (K² − 1) n`, `a2 = (1 − √2 K + K²) n`.
    /// The cutoff is limited to 0.45 · `sampleRateHz` (tan diverges at Nyquist).
    public static func butterworthLowPass(cutoffHz: Double, sampleRateHz: Double) -> BiquadCoefficients {
        let fc = min(max(cutoffHz, 0), 0.45 * sampleRateHz)
        let k = tan(Double.pi * fc / sampleRateHz)
        let k2 = k * k
        let root2 = 2.0.squareRoot()
        let n = 1 / (1 + root2 * k + k2)
        let b0 = k2 * n
        return BiquadCoefficients(b0: b0, b1: 2 * b0, b2: b0, a1: 2 * (k2 - 1) * n, a2: (1 - root2 * k + k2) * n)
    }
}

/// 2nd-order Butterworth low-pass biquad driven by real timestamps.
///
/// Direct form I (`y = b0 x + b1 x₁ + b2 x₂ − a1 y₁ − a2 y₂`), whose state is made of past
/// inputs and outputs, so coefficients can be redesigned between samples without a transient.
/// At a fixed rate with zero initial state (`reset(to: 0, at: t₀ − dt)`) it reproduces SciPy's
/// `lfilter(b, a, x)` to rounding.
///
/// Variable `dt`: the design rate follows a smoothed sample step (a one-pole average of `dt`
/// with weight 0.05, so single jittered or dropped samples barely move it); coefficients are
/// recomputed when that average departs by more than `redesignTolerance` (relative) from the
/// step they were designed for (`BiquadDesign`). At a steady rate they are never recomputed.
/// `dt ≤ 0` (duplicate or out-of-order timestamp) and non-finite inputs are ignored (the output
/// is held); a step longer than `gapSeconds` restarts the filter at the new input (steady state
/// `x₁ = x₂ = y₁ = y₂ = x`), so a gap causes neither ringing nor NaN. The first sample also
/// starts in that steady state (no start-up ramp) unless `reset(to:at:)` primed it.
public struct ButterworthLowPass: Sendable {
    /// Cutoff frequency, Hz.
    public var cutoffHz: Double { design.cutoffHz }
    /// Steps longer than this restart the filter, seconds.
    public var gapSeconds: Double
    /// Relative change of the smoothed step that triggers a redesign.
    public var redesignTolerance: Double { design.redesignTolerance }
    /// The coefficients in use (nil until the first step is known).
    public var coefficients: BiquadCoefficients? { design.coefficients }
    /// The step the coefficients were designed for, seconds.
    public var designStep: Double? { design.designStep }
    /// The current output, or nil before the first valid input.
    public private(set) var output: Double?

    private var design: BiquadDesign
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
    private var lastTime: Double?

    /// - Parameters:
    ///   - cutoffHz: −3 dB frequency, Hz.
    ///   - nominalSampleRateHz: the rate to design for before any step is measured, if known.
    public init(cutoffHz: Double, nominalSampleRateHz: Double? = nil, gapSeconds: Double = 1,
                redesignTolerance: Double = 0.02) {
        self.gapSeconds = gapSeconds
        design = BiquadDesign(cutoffHz: cutoffHz, redesignTolerance: redesignTolerance,
                              nominalStep: nominalSampleRateHz.flatMap { $0 > 0 ? 1 / $0 : nil })
    }

    /// Primes the state as the steady state at `value`, the last sample being at `timeSeconds`.
    /// `reset(to: 0, at: −0.01)` then samples at `k / 100` s gives SciPy's zero initial state.
    public mutating func reset(to value: Double, at timeSeconds: Double) {
        x1 = value; x2 = value; y1 = value; y2 = value
        output = value
        lastTime = timeSeconds
    }

    /// Forgets the state (keeps the design).
    public mutating func reset() {
        output = nil
        lastTime = nil
    }

    /// Feeds `x` observed at `timeSeconds`; returns the output (nil only before any valid input).
    @discardableResult
    public mutating func update(_ x: Double, at timeSeconds: Double) -> Double? {
        guard x.isFinite, timeSeconds.isFinite else { return output }
        switch SampleStep.classify(previous: lastTime, now: timeSeconds, gapSeconds: gapSeconds) {
        case .duplicate:
            return output
        case .first, .gap:
            reset(to: x, at: timeSeconds)
            return x
        case let .step(dt):
            let c = design.coefficients(forStep: dt)
            let y = c.b0 * x + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
            x2 = x1; x1 = x
            y2 = y1; y1 = y
            lastTime = timeSeconds
            output = y
            return y
        }
    }
}
