#if canImport(Glibc)
import Glibc // asin
#endif
import CarouselProtocol
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
    /// Elevation of the up vector above the screen plane in the device frame, degrees
    /// (`asin(u_z)`: 90 lying face up, 0 upright); nil from pipelines that do not estimate it.
    public var elevationDegrees: Double?
    public init(rollDegrees: Double, pitchDegrees: Double, driveDegrees: Double,
                orientation: DeviceOrientation = .undefined, elevationDegrees: Double? = nil) {
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.driveDegrees = driveDegrees
        self.orientation = orientation
        self.elevationDegrees = elevationDegrees
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
    /// The rotation the display client says its picture has (`set_display_rotation`); used
    /// with `display_rotation = auto`, ignored with a fixed one.
    func setDisplayRotation(_ rotation: DisplayRotation)
    /// The sensor is no longer read (nobody watches, or it is replaced): the orientation held
    /// so far is stale, since the device may be turned before the next sample, so the next
    /// estimate starts the detection afresh instead of waiting out a dwell against it.
    func sensorStopped()
    /// The estimator the last sample went through in place of the configured one (an
    /// accelerometer-only sample under a gyro method), nil when it went through the configured one.
    var estimatorSubstitution: WireEstimator? { get }
}

extension TiltPipeline {
    /// Pipelines without a display mapping (test doubles, benchmarks) ignore it.
    public func setDisplayRotation(_ rotation: DisplayRotation) {}
    /// Pipelines without an orientation detector (test doubles, benchmarks) hold nothing.
    public func sensorStopped() {}
    /// Pipelines with one estimator (test doubles, benchmarks) never substitute one.
    public var estimatorSubstitution: WireEstimator? { nil }
}

/// The real pipeline: `Calibration.apply` → `AttitudeEstimator` → `TiltInputMapper`, and the
/// `OrientationDetector` on the same estimates (the device frame, not relative to neutral).
///
/// With `display_rotation = auto` (`followsDisplay`) the mapper's rotation is the display
/// client's (`setDisplayRotation`) once it has said one, else the detected orientation's
/// (`DeviceOrientation.displayRotation`: `face-up`, `face-down` and `undefined` keep the last).
///
/// Accelerometer-only sensors use the accelerometer estimator (docs/FUSION.md "5. Attitude estimators"): the
/// gyro filters correct toward the accelerometer with a time constant of seconds (gain 0.5/s), which with no
/// gyro to carry fast motion would make a tilt take over a second to show. For samples without a gyroscope
/// the pipeline therefore switches to `.accel` with a Butterworth low-pass (the configured `lowpass_hz`, else
/// `accelOnlyCutoffHz`) to keep a resting device's noise below the publishing threshold.
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
    private let followsDisplay: Bool
    private var clientRotation: DisplayRotation?
    private var lastWasAccelOnly = false

    /// - Parameter followsDisplay: `display_rotation = auto`: the mapper's rotation follows the
    ///   display client, else the detected orientation; false keeps `mapper`'s.
    public init(calibration: Calibration, estimator: AttitudeEstimator.Configuration, mapper: TiltInputMapper,
                orientation: OrientationDetector.Configuration = OrientationDetector.Configuration(),
                followsDisplay: Bool = false) {
        self.calibration = calibration
        self.configuration = estimator
        self.estimator = AttitudeEstimator(estimator)
        self.mapper = mapper
        self.orientation = OrientationDetector(orientation)
        self.followsDisplay = followsDisplay
    }

    /// The rotation the mapper uses now.
    public var displayRotation: DisplayRotation { mapper.displayRotation }

    /// The display client's rotation (`set_display_rotation`); taken only with
    /// `display_rotation = auto`, where it wins over the detected orientation from then on (the core gives it to every new pipeline).
    public func setDisplayRotation(_ rotation: DisplayRotation) {
        guard followsDisplay else { return }
        clientRotation = rotation
        mapper.displayRotation = rotation
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
        if followsDisplay, clientRotation == nil, let rotation = held.displayRotation {
            mapper.displayRotation = rotation
        }
        let input = mapper.map(estimate)
        return TiltReading(rollDegrees: input.rollDegrees, pitchDegrees: input.pitchDegrees,
                           driveDegrees: input.driveDegrees, orientation: held,
                           elevationDegrees: asin(max(-1, min(1, estimate.up.z))) * 180 / Double.pi)
    }

    public func sensorStopped() {
        orientation.reset()
    }

    public var estimatorSubstitution: WireEstimator? {
        guard lastWasAccelOnly, let used = accelOnlyEstimator?.configuration else { return nil }
        return WireEstimator(configured: configuration.method.rawValue, used: used.method.rawValue,
                             lowpassHz: used.lowpassCutoffHz ?? Self.accelOnlyCutoffHz, reason: "the sensor has no gyroscope")
    }

    public func recenter() -> Bool {
        let current = lastWasAccelOnly ? accelOnlyEstimator?.estimate : estimator.estimate
        guard let estimate = current else { return false }
        mapper.recenter(on: estimate)
        return true
    }
}
