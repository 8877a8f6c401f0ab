/// The tilt estimator the daemon and `carouselctl tilt` run: validates each sample, measures
/// `dt` from the integer timestamps, optionally low-passes the accelerometer, and runs one of
/// the three estimators (`EstimationMethod`).
///
/// Contract:
/// - Time: `dt` comes from `timestampNanoseconds` differences (exact for any clock origin);
///   estimates carry `timeSeconds` = seconds since the first sample this estimator saw.
/// - Start: every method starts from the first valid accelerometer sample (no start-up ramp).
/// - "No data": a sample whose acceleration is zero or not finite yields `nil` and changes
///   nothing (the attitude holds); so does every sample before the first valid one. Never NaN.
/// - Duplicates (`dt = 0`) and out-of-order samples (`dt < 0`) return the current estimate
///   unchanged. A step longer than `gapSeconds` restarts the estimator from that sample's
///   accelerometer (gyro integration across a gap would be meaningless); the gyro bias is kept.
public struct AttitudeEstimator: Sendable {
    /// Settings of the estimator (config section `[filter]`).
    public struct Configuration: Equatable, Sendable {
        public var method: EstimationMethod
        /// Accelerometer correction rate, 1/s (inverse time constant; for `.inertial`, of its
        /// low-pass at a turn rate of 2.25 rad/s, `InertialFrameFilter`); unused by `.accel`.
        public var gain: Double
        /// `.fusion` only: accelerometer rejected beyond this angle from the estimate, degrees
        /// (`.inertial` needs no rejection: see `InertialFrameFilter`).
        public var accelerationRejectionDegrees: Double
        /// Butterworth low-pass of the accelerometer before estimation, Hz; nil or ≤ 0: off.
        public var lowpassCutoffHz: Double?
        /// A step longer than this restarts the estimator, seconds.
        public var gapSeconds: Double
        /// `.fusion` only: integral gain of the gyro-bias estimate, 1/s²; nil: `FusionFilter`'s
        /// default (≈ gain² / 4, critically damped); 0: proportional correction only.
        public var integralGain: Double?

        /// Default gain per method, 1/s: 0.5 (a 2 s time constant; for `.inertial` at 2.25 rad/s)
        /// for `.inertial`, `.fusion` and `.complementary`.
        public static func defaultGain(for method: EstimationMethod) -> Double { 0.5 }

        /// - Parameter gain: nil selects `defaultGain(for: method)`.
        public init(method: EstimationMethod = .inertial, gain: Double? = nil, accelerationRejectionDegrees: Double = 10,
                    lowpassCutoffHz: Double? = nil, gapSeconds: Double = 0.5, integralGain: Double? = nil) {
            self.method = method
            self.gain = gain ?? Self.defaultGain(for: method)
            self.accelerationRejectionDegrees = accelerationRejectionDegrees
            self.lowpassCutoffHz = lowpassCutoffHz
            self.gapSeconds = gapSeconds
            self.integralGain = integralGain
        }
    }

    public let configuration: Configuration
    // All three filters are stored non-optionally and `configuration.method` picks one: an
    // optional (or an enum with payloads) made Swift copy the filter state out and back on
    // every sample (outlined copies, ~20 % of the instructions per sample in callgrind).
    private var accelOnly = AccelerometerTilt()
    private var complementary: ComplementaryFilter
    private var fusion: FusionFilter
    private var inertial: InertialFrameFilter
    private var lowpass: VectorLowPass
    private let lowpassEnabled: Bool
    // Timestamps with explicit flags rather than `Int64?` (same reason, fewer branches).
    private var firstTimestamp: Int64 = 0, hasFirstTimestamp = false
    private var lastTimestamp: Int64 = 0, hasLastTimestamp = false
    /// The latest estimate (held through "no data" samples), or nil before the first valid sample.
    public var estimate: TiltEstimate? {
        hasEstimate ? TiltEstimate(timeSeconds: estimateTime, unitUp: estimateUp) : nil
    }
    // `estimate` as plain values and a flag (no optional to test and rebuild per sample).
    private var estimateTime = 0.0, estimateUp = Vector3(0, 0, 1), hasEstimate = false

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        complementary = ComplementaryFilter(gain: configuration.gain)
        fusion = FusionFilter(gain: configuration.gain,
                              rejectionAngle: configuration.accelerationRejectionDegrees * Double.pi / 180,
                              integralGain: configuration.integralGain)
        inertial = InertialFrameFilter(gain: configuration.gain)
        if let fc = configuration.lowpassCutoffHz, fc > 0 {
            lowpass = VectorLowPass(cutoffHz: fc, gapSeconds: configuration.gapSeconds)
            lowpassEnabled = true
        } else {
            lowpass = VectorLowPass(cutoffHz: 1, gapSeconds: configuration.gapSeconds)  // unused
            lowpassEnabled = false
        }
    }

    /// Convenience: `AttitudeEstimator(Configuration(method:gain:…))`.
    public init(method: EstimationMethod, gain: Double? = nil, accelerationRejectionDegrees: Double = 10,
                lowpassCutoffHz: Double? = nil) {
        self.init(Configuration(method: method, gain: gain, accelerationRejectionDegrees: accelerationRejectionDegrees,
                                lowpassCutoffHz: lowpassCutoffHz))
    }

    /// The gyro bias the `.inertial` or `.fusion` filter tracks, rad/s (zero for the others).
    public var gyroBias: Vector3 {
        switch configuration.method {
        case .inertial: inertial.gyroBias
        case .fusion: fusion.gyroBias
        case .complementary, .accel: .zero
        }
    }

    /// Feeds one sample (SI units, device frame, calibration already applied if any).
    /// - Returns: the estimate after this sample, or nil for "no data" (see the type's contract).
    public mutating func update(_ sample: IMUSample) -> TiltEstimate? {
        let timestamp = sample.timestampNanoseconds
        if !hasFirstTimestamp {
            firstTimestamp = timestamp
            hasFirstTimestamp = true
        }
        let time = Self.seconds(from: firstTimestamp, to: timestamp)
        // Zero or non-finite raw acceleration: "no data", checked before the low-pass so that
        // such a sample neither reaches the filter state nor yields a smoothed estimate.
        // On the squared norm: > 0 and finite exactly when the norm is, without a square root
        // (and a finite squared norm means three finite components, what the low-pass needs).
        let raw = sample.accel
        let rawNorm2 = raw.dot(raw)
        guard rawNorm2 > 0, rawNorm2.isFinite else { return nil }

        var accel = raw
        var norm2 = rawNorm2
        if lowpassEnabled {
            accel = lowpass.update(finite: raw, timestampNanoseconds: timestamp)
            norm2 = accel.dot(accel)
        }
        let norm = norm2.squareRoot()
        guard norm > 0, norm.isFinite else { return nil }  // zero vector: no direction, "no data"
        let direction = accel * (1 / norm)  // one division, not three

        var dt = 0.0
        var restart = !hasEstimate
        if hasLastTimestamp {
            let step = Self.seconds(from: lastTimestamp, to: timestamp)
            if step > configuration.gapSeconds { restart = true }
            if step > 0 { dt = step }
        }
        if dt > 0 || !hasLastTimestamp {
            lastTimestamp = timestamp
            hasLastTimestamp = true
        }
        if !restart, dt == 0 {
            estimateTime = max(estimateTime, time)
            return TiltEstimate(timeSeconds: estimateTime, unitUp: estimateUp)
        }

        var up = direction
        switch configuration.method {
        case .inertial:
            if restart {
                inertial.initialise(accel: accel)
            } else {
                up = inertial.update(accel: accel, direction: direction, norm: norm, gyro: sample.gyro, dt: dt)
            }
        case .fusion:
            if restart {
                fusion.initialise(accelDirection: direction)
            } else {
                // Non-finite rates: each filter ignores them (checks isFinite).
                up = fusion.update(direction: direction, norm: norm, gyro: sample.gyro, dt: dt)
            }
        case .complementary:
            if restart { complementary.reset() }
            up = complementary.update(accelDirection: direction, gyro: sample.gyro, dt: dt)
        case .accel:
            up = accelOnly.update(accelDirection: direction)
        }
        estimateTime = time
        estimateUp = up
        hasEstimate = true
        return TiltEstimate(timeSeconds: time, unitUp: up)
    }

    /// `b − a` in seconds. A difference beyond Int64 (timestamps 292 years apart, only from a
    /// corrupt file) is computed in `Double` instead of wrapping around to a small step.
    @inline(__always) static func seconds(from a: Int64, to b: Int64) -> Double { secondsBetween(a, b) }

    /// Forgets the attitude and the time base (the fusion filter keeps its gyro bias).
    public mutating func reset() {
        accelOnly.reset()
        complementary.reset()
        fusion.reset()
        inertial.reset()
        lowpass.reset()
        hasFirstTimestamp = false
        hasLastTimestamp = false
        hasEstimate = false
    }
}
