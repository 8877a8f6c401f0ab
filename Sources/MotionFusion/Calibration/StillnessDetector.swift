/// Detects that the device is at rest, for calibration (gyro bias, six-position accelerometer
/// fit, neutral tilt) and for refusing a calibration when the device moved.
///
/// Criterion over a sliding window of the last `windowSeconds`: the standard deviation of every
/// accelerometer axis is below `accelStdLimit` (m/s²), that of every gyroscope axis below
/// `gyroStdLimit` (rad/s), and the mean gyro rate below `gyroMeanLimit` (rad/s; generous, since
/// the bias is not known yet). Using the spread rather than the value makes the test
/// independent of the unknown gyro bias and accelerometer offset. Samples without a gyroscope
/// are judged on the accelerometer alone. A gap between two samples longer than the window
/// starts the window again. Running sums make each update O(1) amortised.
public struct StillnessDetector: Sendable {
    public var windowSeconds: Double
    public var accelStdLimit: Double
    public var gyroStdLimit: Double
    public var gyroMeanLimit: Double

    private var window: [IMUSample] = []
    private var head = 0
    private var sumA = Vector3.zero, sumA2 = Vector3.zero
    private var sumG = Vector3.zero, sumG2 = Vector3.zero
    private var gyroCount = 0

    /// The defaults (0.5 s window, accelerometer spread 0.2 m/s² ≈ 0.02 g, gyro spread
    /// 0.05 rad/s ≈ 2.9 °/s, mean rate 0.2 rad/s) accept a resting sensor even when it is noisy
    /// (wide-bandwidth IMUs sampled at 1 kHz, like the NCSU captures, show per-axis spreads up
    /// to 0.02 g and 0.05 rad/s and gyro offsets up to 0.06 rad/s at rest), but also a device
    /// held quite still by hand. `tableRest` requires the device to lie on a surface.
    public init(windowSeconds: Double = 0.5, accelStdLimit: Double = 0.2, gyroStdLimit: Double = 0.05,
                gyroMeanLimit: Double = 0.2) {
        self.windowSeconds = windowSeconds
        self.accelStdLimit = accelStdLimit
        self.gyroStdLimit = gyroStdLimit
        self.gyroMeanLimit = gyroMeanLimit
    }

    /// A stricter criterion for a consumer MEMS IMU lying on a table, which rejects a hand-held
    /// device: 0.5 s window, spreads 0.1 m/s² (≈ 0.01 g) and 0.02 rad/s (≈ 1.1 °/s), mean rate
    /// 0.05 rad/s (≈ 2.9 °/s, above typical MEMS gyro offsets). Measured on the x-io example:
    /// at rest the per-axis spread is ≈ 0.003 g and 0.12 °/s; held still by hand
    /// ≈ 0.01–0.015 g with gyro peaks of 9 °/s.
    public static let tableRest = StillnessDetector(windowSeconds: 0.5, accelStdLimit: 0.1, gyroStdLimit: 0.02,
                                                    gyroMeanLimit: 0.05)

    /// Index (into the samples fed so far, counting from 0) of the oldest sample in the window.
    public private(set) var windowStartIndex = 0
    private var fed = 0

    /// Feeds one sample (non-finite samples reset the window: they are not rest).
    /// - Returns: true when the window ending at this sample spans at least `windowSeconds`
    ///   (to within one sample) and meets the criterion.
    public mutating func update(_ sample: IMUSample) -> Bool {
        fed += 1
        guard sample.accel.isFinite, sample.gyro?.isFinite ?? true else {
            clear(startingAt: fed)
            return false
        }
        // Time went backwards, or the sensor was silent for longer than a window: start over at
        // this sample. A window reaching across such a gap would judge the device on the sample
        // before it and a couple after it, and call three samples an hour apart "still".
        if let last = window.last, sample.timestampNanoseconds < last.timestampNanoseconds
            || Self.elapsed(from: last.timestampNanoseconds, to: sample.timestampNanoseconds) > Int64(windowSeconds * 1e9) {
            clear(startingAt: fed - 1)
        }
        window.append(sample)
        add(sample, sign: 1)
        let newest = sample.timestampNanoseconds
        let span = Int64(windowSeconds * 1e9)
        while head < window.count - 1, Self.elapsed(from: window[head + 1].timestampNanoseconds, to: newest) >= span {
            add(window[head], sign: -1)
            head += 1
            windowStartIndex += 1
        }
        if head > 4096 { window.removeFirst(head); head = 0 }
        let count = window.count - head
        guard count >= 3, Double(Self.elapsed(from: window[head].timestampNanoseconds, to: newest)) * 1e-9 >= windowSeconds * 0.9 else {
            return false
        }
        let n = Double(count)
        let meanA = sumA / n
        let varA = sumA2 / n - meanA.scaled(by: meanA)
        guard max(varA.x, varA.y, varA.z) <= accelStdLimit * accelStdLimit else { return false }
        if gyroCount == count {
            let meanG = sumG / n
            let varG = sumG2 / n - meanG.scaled(by: meanG)
            guard max(varG.x, varG.y, varG.z) <= gyroStdLimit * gyroStdLimit, meanG.length <= gyroMeanLimit else {
                return false
            }
        }
        return true
    }

    /// `newer − older` in ns (`newer` ≥ `older`), Int64.max when that overflows: a recording's
    /// timestamps may lie anywhere, two of them up to 584 years apart.
    private static func elapsed(from older: Int64, to newer: Int64) -> Int64 {
        let (difference, overflow) = newer.subtractingReportingOverflow(older)
        return overflow ? .max : difference
    }

    private mutating func add(_ s: IMUSample, sign: Double) {
        sumA = sumA + s.accel * sign
        sumA2 = sumA2 + s.accel.scaled(by: s.accel) * sign
        if let g = s.gyro {
            sumG = sumG + g * sign
            sumG2 = sumG2 + g.scaled(by: g) * sign
            gyroCount += sign > 0 ? 1 : -1
        }
    }

    private mutating func clear(startingAt index: Int) {
        window.removeAll(keepingCapacity: true)
        head = 0
        sumA = .zero; sumA2 = .zero; sumG = .zero; sumG2 = .zero
        gyroCount = 0
        windowStartIndex = index
    }

    /// The maximal runs of samples that lie in some still window (index ranges into `samples`).
    public static func stillIntervals(in samples: [IMUSample], detector: StillnessDetector = StillnessDetector())
        -> [Range<Int>] {
        var d = detector
        var runs: [Range<Int>] = []
        var current: Range<Int>?
        for (i, s) in samples.enumerated() where d.update(s) {
            let start = d.windowStartIndex
            if let c = current, start <= c.upperBound {
                current = c.lowerBound..<(i + 1)
            } else {
                if let c = current { runs.append(c) }
                current = start..<(i + 1)
            }
        }
        if let c = current { runs.append(c) }
        return runs
    }
}
