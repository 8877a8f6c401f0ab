import MotionFusion

/// The tilt the daemon publishes and feeds to the engine, relative to the neutral attitude.
public struct TiltReading: Equatable, Sendable {
    /// Roll and pitch relative to neutral in display coordinates, degrees (STATE `tilt`).
    public var rollDegrees: Double
    public var pitchDegrees: Double
    /// The signed angle the engine takes as roll, degrees (`TiltInput.driveDegrees`).
    public var driveDegrees: Double
    public init(rollDegrees: Double, pitchDegrees: Double, driveDegrees: Double) {
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.driveDegrees = driveDegrees
    }
}

/// Samples in, tilt out: the daemon's view of MotionFusion, so the core can be tested with a
/// scripted pipeline.
public protocol TiltPipeline: AnyObject {
    /// Feeds one sample (after scale, offset and mount matrix, before user calibration).
    /// - Returns: the tilt after this sample, or nil while there is no estimate ("no data").
    func process(_ sample: IMUSample) -> TiltReading?
    /// Makes the current attitude the neutral one (`recenter_tilt`); false without an estimate.
    func recenter() -> Bool
}

/// The real pipeline: `Calibration.apply` → `AttitudeEstimator` → `TiltInputMapper`.
public final class MotionTiltPipeline: TiltPipeline {
    private let calibration: Calibration
    private var estimator: AttitudeEstimator
    private var mapper: TiltInputMapper

    public init(calibration: Calibration, estimator: AttitudeEstimator.Configuration, mapper: TiltInputMapper) {
        self.calibration = calibration
        self.estimator = AttitudeEstimator(estimator)
        self.mapper = mapper
    }

    public func process(_ sample: IMUSample) -> TiltReading? {
        guard let estimate = estimator.update(calibration.apply(to: sample)) else { return nil }
        let input = mapper.map(estimate)
        return TiltReading(rollDegrees: input.rollDegrees, pitchDegrees: input.pitchDegrees,
                           driveDegrees: input.driveDegrees)
    }

    public func recenter() -> Bool {
        guard let estimate = estimator.estimate else { return false }
        mapper.recenter(on: estimate)
        return true
    }
}
