#if canImport(Glibc)
import Glibc // libm only: MotionFusion imports no Foundation (docs/ARCHITECTURE.md "Modules (SwiftPM targets)")
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides `DeviceOrientation` from the fused attitude's up vector, with hysteresis and a dwell
/// time so that carrying, tapping or a quick wobble never changes it.
///
/// The rule, on the unit up vector `u` of each estimate (device frame, `TiltEstimate`):
/// - elevation `e = asin(u_z)`, degrees: how far the screen faces the sky (90: lying face up);
/// - in-plane angle `θ = atan2(u_x, u_y)`, degrees: which edge points up (0 top, 90 right,
///   ±180 bottom, −90 left).
///
/// The *candidate* for a sample, given the current orientation:
/// 1. `face-up` while `e > faceDegrees` (entering) or, once face up, while
///    `e > faceDegrees − hysteresisDegrees`; `face-down` the same with `−e`.
/// 2. Otherwise the current edge orientation while `θ` is within `45° + hysteresisDegrees` of
///    its centre (so a tablet held at 50° between portrait and landscape keeps what it shows).
/// 3. Otherwise the edge orientation whose centre is nearest to `θ`.
///
/// The orientation changes to a candidate only once that same candidate has held for
/// `dwellSeconds` of estimate time without interruption. The first estimate sets the
/// orientation at once (there is nothing to keep). iio-sensor-proxy, by contrast, switches on the
/// first accelerometer reading past its 35° thresholds and never reports a flat device; a raw
/// accelerometer also sees every jolt, while the fused up vector does not (docs/ORIENTATION.md
/// compares the two on recordings).
///
/// Pure: the caller supplies estimates in time order; time going backwards restarts the dwell.
public struct OrientationDetector: Sendable {
    /// The detector's settings (config `[orientation]`), each with its range.
    public struct Configuration: Equatable, Sendable {
        /// Elevation of the up vector above the screen plane beyond which the device is
        /// `face-up`/`face-down`, degrees, 30 … 85.
        public var faceDegrees: Double
        /// Margin a state must be left by before another is a candidate, degrees, 0 … 30.
        public var hysteresisDegrees: Double
        /// How long a new candidate must hold before the orientation changes, seconds, 0 … 10.
        public var dwellSeconds: Double

        /// Accepted `faceDegrees`, degrees (`[tilt] orientation_face_deg`).
        public static let faceDegreesRange: ClosedRange<Double> = 30...85
        /// Accepted `hysteresisDegrees`, degrees (`[tilt] orientation_hysteresis_deg`).
        public static let hysteresisDegreesRange: ClosedRange<Double> = 0...30
        /// Accepted `dwellSeconds`, seconds (`[tilt] orientation_dwell_s`).
        public static let dwellSecondsRange: ClosedRange<Double> = 0...10

        /// Defaults: face 65°, hysteresis 10°, dwell 0.5 s (docs/ORIENTATION.md says why).
        public init(faceDegrees: Double = 65, hysteresisDegrees: Double = 10, dwellSeconds: Double = 0.5) {
            self.faceDegrees = faceDegrees
            self.hysteresisDegrees = hysteresisDegrees
            self.dwellSeconds = dwellSeconds
        }
    }

    /// The thresholds and dwell this detector decides with.
    public let configuration: Configuration
    /// The orientation decided so far (`undefined` before the first estimate).
    public private(set) var orientation: DeviceOrientation = .undefined
    /// The candidate waiting out its dwell, and the estimate time it first appeared, seconds.
    private var pending: DeviceOrientation?
    private var pendingSince = 0.0

    /// A detector with no orientation yet (`undefined` until its first estimate).
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Feeds one estimate.
    /// - Returns: the orientation after it (changed or not).
    @discardableResult
    public mutating func update(_ estimate: TiltEstimate) -> DeviceOrientation {
        let candidate = Self.candidate(up: estimate.up, current: orientation, configuration: configuration)
        let time = estimate.timeSeconds
        if orientation == .undefined || candidate == orientation {
            orientation = candidate
            pending = nil
            return orientation
        }
        if pending != candidate || time < pendingSince {
            pending = candidate
            pendingSince = time
        }
        if time - pendingSince >= configuration.dwellSeconds {
            orientation = candidate
            pending = nil
        }
        return orientation
    }

    /// Forgets the orientation (`undefined`), e.g. when the sensor stops.
    public mutating func reset() {
        orientation = .undefined
        pending = nil
    }

    /// The candidate for the unit up vector `up` while `current` holds (rules 1–3 above).
    public static func candidate(up: Vector3, current: DeviceOrientation, configuration: Configuration) -> DeviceOrientation {
        let degrees = 180 / Double.pi
        let elevation = asin(min(1, max(-1, up.z))) * degrees
        let face = configuration.faceDegrees
        let margin = configuration.hysteresisDegrees
        if elevation > (current == .faceUp ? face - margin : face) { return .faceUp }
        if -elevation > (current == .faceDown ? face - margin : face) { return .faceDown }
        let theta = atan2(up.x, up.y) * degrees
        if let centre = current.inPlaneCentreDegrees, angularDistance(theta, centre) <= 45 + margin {
            return current
        }
        // Nearest centre: the quadrant of θ, boundaries at ±45° and ±135°.
        if abs(theta) <= 45 { return .normal }
        if abs(theta) >= 135 { return .bottomUp }
        return theta > 0 ? .rightUp : .leftUp
    }

    /// |a − b| folded into [0, 180], degrees.
    static func angularDistance(_ a: Double, _ b: Double) -> Double {
        let d = abs((a - b).truncatingRemainder(dividingBy: 360))
        return d > 180 ? 360 - d : d
    }
}
