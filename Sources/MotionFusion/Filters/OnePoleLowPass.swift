#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// First-order (one-pole) low-pass filter defined by its cutoff frequency, driven by real
/// timestamps.
///
/// For a step of `dt` seconds: `y ← y + α (x − y)`, `α = 1 − exp(−2π f_c dt)`, the exact
/// discretisation of the RC low-pass `τ ẏ = x − y`, `τ = 1 / (2π f_c)`, for an input held
/// constant over the step. At a fixed rate this is the exponential moving average
/// `y[n] = (1 − α) y[n−1] + α x[n]`; e.g. `α = 0.2` at `dt = 0.01` s (the reference's
/// `ema_alpha0.8_g`) is `f_c = −ln(0.8) / (2π · 0.01) ≈ 3.5514 Hz` (`cutoffHz(alpha:dt:)`).
///
/// Robustness: the first sample initialises the output (no start-up ramp) unless `reset(to:at:)`
/// primed it; `dt ≤ 0` (duplicate or out-of-order timestamp) and non-finite inputs are ignored
/// (the output is held); a step longer than `gapSeconds` restarts the filter at the new input.
/// The output is never NaN.
public struct OnePoleLowPass: Sendable {
    /// Cutoff frequency, Hz (> 0).
    public var cutoffHz: Double
    /// Steps longer than this restart the filter, seconds.
    public var gapSeconds: Double
    /// The current output, or nil before the first valid input.
    public private(set) var output: Double?
    private var lastTime: Double?

    public init(cutoffHz: Double, gapSeconds: Double = 1) {
        self.cutoffHz = cutoffHz
        self.gapSeconds = gapSeconds
    }

    /// The cutoff that gives smoothing factor `alpha` (weight of the new input) at step `dt`.
    public static func cutoffHz(alpha: Double, dt: Double) -> Double {
        -log(1 - alpha) / (2 * Double.pi * dt)
    }

    /// Primes the state as if the output had been `value` at `timeSeconds` (e.g. `y[−1] = 0`
    /// one step before the first sample, as SciPy's zero initial state).
    public mutating func reset(to value: Double, at timeSeconds: Double) {
        output = value
        lastTime = timeSeconds
    }

    /// Forgets the state; the next input initialises the output.
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
            output = x
        case let .step(dt):
            let y = output ?? x
            let alpha = oneMinusExpNegative(2 * Double.pi * max(0, cutoffHz) * dt)
            output = y + alpha * (x - y)
        }
        lastTime = timeSeconds
        return output
    }
}
