import MotionFusion

/// The tilt the daemon publishes and feeds to the engine, relative to the neutral attitude.
public struct TiltReading: Equatable, Sendable {
    /// Roll and pitch relative to neutral in display coordinates, degrees (STATE `tilt`).
    public var rollDegrees: Double
    public var pitchDegrees: Double
    /// The signed angle the engine takes as roll, degrees (`TiltInput.driveDegrees`).
    public var driveDegrees: Double
    /// Which way up the device is held (`OrientationDetector` on the same estimate).
    public var orientation: DeviceOrientation
    public init(rollDegrees: Double, pitchDegrees: Double, driveDegrees: Double,
                orientation: DeviceOrientation = .undefined) {
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.driveDegrees = driveDegrees
        self.orientation = orientation
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

/// The real pipeline: `Calibration.apply` → `AttitudeEstimator` → `TiltInputMapper`, and the
/// `OrientationDetector` on the same estimates (the device frame, not relative to neutral).
///
/// Accelerometer-only sensors use the accelerometer estimator (DESIGN §5): the gyro filters
/// correct toward the accelerometer with a time constant of seconds (gain 0.5/s), which with no
/// gyro to carry fast motion would make a tilt take over a second to show. For samples without
/// a gyroscope the pipeline therefore switches to `.accel` with a Butterworth low-pass (the
/// configured `lowpass_hz`, else `accelOnlyCutoffHz`) to keep a resting device's noise below
/// the publishing threshold.
public final class MotionTiltPipeline: TiltPipeline {
    /// Low-pass cutoff for accelerometer-only sensors when none is configured, Hz: a 2nd-order
    /// Butterworth at 3 Hz settles a step in about 0.2 s.
    public static let accelOnlyCutoffHz = 3.0

    private let calibration: Calibration
    private let configuration: AttitudeEstimator.Configuration
    private var estimator: AttitudeEstimator
    private var accelOnlyEstimator: AttitudeEstimator?
    private var mapper: TiltInputMapper
    private var orientation: OrientationDetector
    private var lastWasAccelOnly = false

    public init(calibration: Calibration, estimator: AttitudeEstimator.Configuration, mapper: TiltInputMapper,
                orientation: OrientationDetector.Configuration = OrientationDetector.Configuration()) {
        self.calibration = calibration
        self.configuration = estimator
        self.estimator = AttitudeEstimator(estimator)
        self.mapper = mapper
        self.orientation = OrientationDetector(orientation)
    }

    public func process(_ sample: IMUSample) -> TiltReading? {
        let calibrated = calibration.apply(to: sample)
        let estimate: TiltEstimate?
        if calibrated.gyro == nil && configuration.method != .accel {
            if accelOnlyEstimator == nil {
                var accel = configuration
                accel.method = .accel
                if accel.lowpassCutoffHz == nil || (accel.lowpassCutoffHz ?? 0) <= 0 {
                    accel.lowpassCutoffHz = Self.accelOnlyCutoffHz
                }
                accelOnlyEstimator = AttitudeEstimator(accel)
            }
            lastWasAccelOnly = true
            estimate = accelOnlyEstimator?.update(calibrated)
        } else {
            lastWasAccelOnly = false
            estimate = estimator.update(calibrated)
        }
        guard let estimate else { return nil }
        let held = orientation.update(estimate)
        let input = mapper.map(estimate)
        return TiltReading(rollDegrees: input.rollDegrees, pitchDegrees: input.pitchDegrees,
                           driveDegrees: input.driveDegrees, orientation: held)
    }

    public func recenter() -> Bool {
        let current = lastWasAccelOnly ? accelOnlyEstimator?.estimate : estimator.estimate
        guard let estimate = current else { return false }
        mapper.recenter(on: estimate)
        return true
    }
}
