import MotionFusion

/// The six-position accelerometer calibration of `carouselctl calibrate --six-position` /
/// `--from-files`: one capture per axis direction pointing up, in the order
/// `+x, -x, +y, -y, +z, -z`.
///
/// Per capture, only the samples inside still windows count (MotionFusion's
/// `StillnessDetector.stillIntervals`: a capture may start or end with handling, like the NCSU
/// recordings that lift the device and put it back). Their mean is the pose's specific force;
/// `SixPositionCalibration.fit` turns the six means into per-axis offset and scale (least
/// squares on |a| = g). The gyro bias is the sample-weighted mean gyro rate of all still parts.
public enum SixPositionRun {
    /// The pose order of `--from-files` and of the interactive prompts.
    public static let poses: [DeviceAxis] = [.plusX, .minusX, .plusY, .minusY, .plusZ, .minusZ]

    /// Stillness within a pose: 0.3 s windows, accelerometer spread ≤ 0.3 m/s², gyro spread
    /// ≤ 0.1 rad/s, mean rate ≤ 0.3 rad/s. Looser than the still calibration's rule because only
    /// the accelerometer mean matters here and a bench may vibrate (the NCSU captures reach a
    /// per-axis std of 0.022 g at rest, MotionFusion's NCSU test uses the same detector); the
    /// mean over hundreds of samples averages that noise out.
    public static let poseDetector = StillnessDetector(windowSeconds: 0.3, accelStdLimit: 0.3, gyroStdLimit: 0.1,
                                                       gyroMeanLimit: 0.3)

    /// One pose's still mean.
    public struct Pose: Equatable, Sendable {
        public var axis: DeviceAxis
        public var statistics: StillStatistics
        /// The calibrated mean's component along `axis`, m/s² (≈ g after a good fit).
        public var calibratedUp: Double
    }

    public struct Result: Equatable, Sendable {
        public var offset: Vector3
        public var scale: Vector3
        public var gyroBias: Vector3?
        public var poses: [Pose]
        /// Total still samples used.
        public var sampleCount: Int
        /// Mean of the per-axis noise figures over the poses.
        public var accelNoise: Vector3
        public var gyroNoise: Vector3?
    }

    /// Why the six captures cannot be used; names the pose and its source.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Fits offset and scale.
    /// - Parameters:
    ///   - captures: six sample arrays in `poses` order, each with a name (file path or "pose 1")
    ///     for messages.
    ///   - detector: the stillness criterion (`poseDetector`).
    /// - Throws: `Failure` when a capture has no still window, its still mean does not point
    ///   within 45° of its pose's axis, or the fit is impossible.
    public static func compute(_ captures: [(name: String, samples: [IMUSample])],
                               detector: StillnessDetector = poseDetector) throws(Failure) -> Result {
        guard captures.count == poses.count else {
            throw Failure(message: "six-position calibration needs 6 captures (+x -x +y -y +z -z), got \(captures.count)")
        }
        var stats: [StillStatistics] = []
        for (i, capture) in captures.enumerated() {
            let axis = poses[i]
            let runs = StillnessDetector.stillIntervals(in: capture.samples, detector: detector)
            let still = runs.flatMap { capture.samples[$0] }
            guard let s = StillStatistics(still), s.count >= 10 else {
                throw Failure(message: "\(capture.name): no still interval (the device never rested for "
                    + "\(detector.windowSeconds) s) in the \(axis.rawValue)-up capture")
            }
            let (found, angle) = DeviceAxis.closest(to: s.meanAccel)
            guard found == axis, angle < 45 else {
                throw Failure(message: "\(capture.name): expected \(axis.rawValue) up, but \(found.rawValue) points up "
                    + "(\(fmt(angle, digits: 3))° off): captures must be given in the order +x -x +y -y +z -z")
            }
            stats.append(s)
        }
        let fit: (offset: Vector3, scale: Vector3)
        do {
            fit = try SixPositionCalibration.fit(means: stats.map(\.meanAccel))
        } catch {
            throw Failure(message: error.description)
        }
        let correction = Calibration(accelOffset: fit.offset, accelScale: fit.scale)
        var poseResults: [Pose] = []
        var total = 0, gyroCount = 0
        var gyroSum = Vector3.zero, accelNoise = Vector3.zero, gyroNoise = Vector3.zero
        for (i, s) in stats.enumerated() {
            let up = correction.applyToAccel(s.meanAccel).dot(poses[i].vector)
            poseResults.append(Pose(axis: poses[i], statistics: s, calibratedUp: up))
            total += s.count
            accelNoise = accelNoise + s.accelStd / Double(stats.count)
            if let g = s.meanGyro {
                gyroSum = gyroSum + g * Double(s.count)
                gyroCount += s.count
                gyroNoise = gyroNoise + s.gyroStd / Double(stats.count)
            }
        }
        return Result(offset: fit.offset, scale: fit.scale,
                      gyroBias: gyroCount > 0 ? gyroSum / Double(gyroCount) : nil,
                      poses: poseResults, sampleCount: total, accelNoise: accelNoise,
                      gyroNoise: gyroCount > 0 ? gyroNoise : nil)
    }
}
