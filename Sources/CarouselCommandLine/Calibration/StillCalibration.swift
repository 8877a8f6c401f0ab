#if canImport(Glibc)
import Glibc
#endif
import MotionFusion

/// The still-device calibration of `carouselctl calibrate` (default mode): the operator leaves
/// the device at rest in its normal position for `--duration` seconds; the mean gyro rate is the
/// gyro bias, the mean specific force gives the neutral tilt, the spreads are the noise figures.
///
/// The maths is MotionFusion's (`StillStatistics`, `TiltEstimate`); this type adds the
/// acceptance rule and the report.
///
/// Acceptance (the device must not move while it is measured), over the whole capture:
/// - every accelerometer axis has a standard deviation ≤ `accelStdLimit` (0.2 m/s², ≈ 0.02 g);
/// - every gyroscope axis has a standard deviation ≤ `gyroStdLimit` (0.05 rad/s, ≈ 2.9 °/s);
/// - the mean gyro rate is ≤ `gyroMeanLimit` (0.2 rad/s, ≈ 11.5 °/s: a larger "bias" is a
///   device turning steadily, not the zero-rate offset of a MEMS gyro);
/// - at least `minimumSamples` samples (default 20);
/// - a mean specific force of 0.7–1.3 g (`GravityMagnitude`): a driver's scale in g or a ×100
///   HID unit would otherwise be written into the file as the neutral attitude's gravity.
/// The three limits are MotionFusion's `StillnessDetector` defaults (read from it), so the
/// refusal agrees with the daemon's own notion of rest. They accept a noisy wide-bandwidth IMU at
/// rest (the NCSU captures: spreads up to 0.02 g and 0.05 rad/s) and refuse any handling or
/// tilting (the x-io example over its whole length: 2.6 m/s² and 0.70 rad/s). A device held
/// very still by hand can pass (MotionFusion's `tableRest` would refuse it, and a noisy sensor
/// with it), which is why the operator is told to put the device down.
public struct StillCalibration: Sendable {
    public var accelStdLimit: Double = StillnessDetector().accelStdLimit
    public var gyroStdLimit: Double = StillnessDetector().gyroStdLimit
    public var gyroMeanLimit: Double = StillnessDetector().gyroMeanLimit
    public var minimumSamples: Int = 20

    public init() {}

    /// What a still calibration found.
    public struct Result: Equatable, Sendable {
        public var statistics: StillStatistics
        /// Gyro bias, rad/s; nil for an accelerometer-only sensor.
        public var gyroBias: Vector3?
        /// Neutral tilt, from the mean specific force after `accelCorrection`.
        public var neutral: TiltEstimate
        /// The device axis closest to "up" (`+x` … `-z`) and the angle between it and up, degrees.
        public var upAxis: DeviceAxis
        public var upAxisAngleDegrees: Double
    }

    /// Why the capture was refused.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case tooFewSamples(count: Int, minimum: Int)
        case moved(reasons: [String])
        case noGravity
        /// The device is at rest but the accelerometer's magnitude is far from 1 g
        /// (`GravityMagnitude.problem`: the value and its likely cause).
        case implausibleGravity(String)

        public var description: String {
            switch self {
            case let .tooFewSamples(count, minimum):
                return "only \(count) samples (at least \(minimum) needed): is the sensor delivering data?"
            case let .moved(reasons):
                return "the device moved during calibration (\(reasons.joined(separator: "; "))): "
                    + "put it down on a steady surface and run calibrate again"
            case .noGravity:
                return "the mean acceleration is zero: the accelerometer reads nothing"
            case let .implausibleGravity(problem):
                return "\(problem); a calibration would take that for gravity: nothing written"
            }
        }
    }

    /// Computes the calibration of `samples`.
    /// - Parameter accelCorrection: accelerometer offset/scale to apply before computing the neutral
    ///   tilt (an earlier six-position result kept in the new file), identity by default.
    /// - Throws: `Refusal` when there are too few samples or the device moved.
    public func compute(_ samples: [IMUSample], accelCorrection: Calibration = .identity) throws(Refusal) -> Result {
        guard samples.count >= minimumSamples, let stats = StillStatistics(samples), stats.count >= minimumSamples else {
            throw .tooFewSamples(count: samples.count, minimum: minimumSamples)
        }
        var reasons: [String] = []
        let a = stats.accelStd, g = stats.gyroStd
        if max(a.x, a.y, a.z) > accelStdLimit {
            reasons.append("accelerometer spread \(fmt(max(a.x, a.y, a.z))) m/s² > \(fmt(accelStdLimit)) m/s²")
        }
        if stats.meanGyro != nil, max(g.x, g.y, g.z) > gyroStdLimit {
            reasons.append("gyroscope spread \(fmt(max(g.x, g.y, g.z))) rad/s > \(fmt(gyroStdLimit)) rad/s")
        }
        if let mean = stats.meanGyro, mean.length > gyroMeanLimit {
            reasons.append("mean rotation rate \(fmt(mean.length)) rad/s > \(fmt(gyroMeanLimit)) rad/s")
        }
        if !reasons.isEmpty { throw .moved(reasons: reasons) }
        let corrected = accelCorrection.applyToAccel(stats.meanAccel)
        guard corrected.length > 0 else { throw .noGravity }
        if let problem = GravityMagnitude.problem(magnitude: corrected.length) { throw .implausibleGravity(problem) }
        let neutral = TiltEstimate(timeSeconds: 0, up: corrected)
        let (axis, angle) = DeviceAxis.closest(to: neutral.up)
        return Result(statistics: stats, gyroBias: stats.meanGyro, neutral: neutral, upAxis: axis,
                      upAxisAngleDegrees: angle)
    }
}

/// A signed device axis (`+x` right, `+y` toward the top edge, `+z` out of the screen).
public enum DeviceAxis: String, Sendable, CaseIterable {
    case plusX = "+x", minusX = "-x", plusY = "+y", minusY = "-y", plusZ = "+z", minusZ = "-z"

    public var vector: Vector3 {
        switch self {
        case .plusX: return Vector3(1, 0, 0)
        case .minusX: return Vector3(-1, 0, 0)
        case .plusY: return Vector3(0, 1, 0)
        case .minusY: return Vector3(0, -1, 0)
        case .plusZ: return Vector3(0, 0, 1)
        case .minusZ: return Vector3(0, 0, -1)
        }
    }

    public var opposite: DeviceAxis {
        switch self {
        case .plusX: return .minusX
        case .minusX: return .plusX
        case .plusY: return .minusY
        case .minusY: return .plusY
        case .plusZ: return .minusZ
        case .minusZ: return .plusZ
        }
    }

    /// The axis nearest to the unit vector `u` and the angle between them, degrees.
    public static func closest(to u: Vector3) -> (DeviceAxis, Double) {
        let best = allCases.max { $0.vector.dot(u) < $1.vector.dot(u) } ?? .plusZ
        let cosine = min(1, max(-1, best.vector.dot(u) / max(u.length, 1e-300)))
        return (best, acos(cosine) * 180 / Double.pi)
    }
}

/// Checks the axis found pointing up against the configuration (docs/FUSION.md "1. Conventions": Linux drivers and
/// hwdb report gravity, so IIOSensors negates the accelerometer with `accel_convention = gravity`;
/// a wrong convention makes the device look upside down).
///
/// With `display_rotation` r (degrees clockwise that the content is turned, as in
/// configs/carouseld.conf), the top edge of the displayed content points along device
/// `+y` (0), `+x` (90), `-y` (180), `-x` (270). A device in use stands with the content's top up
/// or lies face up (`+z` up). So the warnings are:
/// - `-z` up: the screen faces the floor, or the accelerometer sign is inverted;
/// - the axis opposite the content's top is up: the content would be upside down.
public enum UpAxisCheck {
    /// The content's top direction for a display rotation (0, 90, 180, 270), nil for others.
    public static func contentTop(displayRotation: Int?) -> DeviceAxis? {
        switch displayRotation {
        case 0: return .plusY
        case 90: return .plusX
        case 180: return .minusY
        case 270: return .minusX
        default: return nil
        }
    }

    /// Warnings (empty when the axis is plausible).
    /// - Parameter displayRotation: nil for `auto`: the picture follows the device, so no edge
    ///   is wrong.
    public static func warnings(upAxis: DeviceAxis, accelConvention: String, displayRotation: Int?) -> [String] {
        let hint = "check [sensor] accel_convention (now \(accelConvention); the other choice is "
            + "\(accelConvention == "gravity" ? "specific-force" : "gravity")) and the sensor's mount matrix"
        var result: [String] = []
        if upAxis == .minusZ {
            result.append("the accelerometer says -z points up: the screen faces the floor, or the sign is inverted; \(hint)")
        }
        if let top = contentTop(displayRotation: displayRotation), upAxis == top.opposite {
            result.append("the accelerometer says \(upAxis.rawValue) points up: with display_rotation \(displayRotation ?? 0) "
                + "the content's top edge (\(top.rawValue)) points down, so it would show upside down; \(hint), "
                + "or [tilt] display_rotation")
        }
        return result
    }
}

func fmt(_ v: Double, digits: Int = 4) -> String {
    // Rounded to `digits` significant decimals for messages; shortest form otherwise.
    guard v.isFinite else { return "\(v)" }
    if v == 0 { return "0" }
    let magnitude = abs(v)
    var decimals = digits
    var m = magnitude
    while m >= 10, decimals > 0 { m /= 10; decimals -= 1 }
    while m < 1, decimals < 12 { m *= 10; decimals += 1 }
    var scale = 1.0
    for _ in 0..<max(0, decimals - 1) { scale *= 10 }
    let rounded = (v * scale).rounded() / scale
    if rounded == 0 { return "0" }
    let text = rounded.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
}
