import MotionFusion

/// `carouselctl tilt --score`: the inclination error of the estimates against a BROAD file's
/// optical reference, free of I/O.
///
/// A row is scored when its `movement` column is 1 and its reference quaternion
/// `opt_qw, opt_qx, opt_qy, opt_qz` is finite (marker dropouts are `nan`) and the estimator has
/// an estimate for it. The reference up vector is the third row of the quaternion's rotation
/// matrix, `(2(xz − wy), 2(yz + wx), 1 − 2(x² + y²))` (the datasets' README convention); the
/// error is the angle between it and the estimated up vector, degrees. This is the metric of
/// D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD—A Benchmark for Robust Inertial
/// Orientation Estimation", Data 6(7), 2021 (inclination error over the movement phase).
struct TiltScore {
    /// Column indices of the reference in a BROAD header.
    struct Columns {
        let qw: Int, qx: Int, qy: Int, qz: Int, movement: Int
        let count: Int

        /// nil when a column is missing.
        init?(header: Substring) {
            let names = header.split(separator: ",", omittingEmptySubsequences: false).map { TiltScore.trimmed($0) }
            func index(_ name: String) -> Int? { names.firstIndex { $0 == name } }
            guard let qw = index("opt_qw"), let qx = index("opt_qx"), let qy = index("opt_qy"),
                  let qz = index("opt_qz"), let movement = index("movement") else { return nil }
            self.qw = qw; self.qx = qx; self.qy = qy; self.qz = qz; self.movement = movement
            count = names.count
        }
    }

    let columns: Columns
    /// Errors of the scored rows so far, degrees.
    private(set) var errors: [Double] = []

    init(columns: Columns) { self.columns = columns }

    /// The reference up vector of a data line, or nil when the line is not scored (not in the
    /// movement phase, reference missing, wrong field count).
    func referenceUp(line: Substring) -> Vector3? {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == columns.count else { return nil }
        func number(_ i: Int) -> Double? { Double(TiltScore.trimmed(fields[i])) }
        guard number(columns.movement) == 1,
              let w = number(columns.qw), let x = number(columns.qx),
              let y = number(columns.qy), let z = number(columns.qz) else { return nil }
        let up = Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
        guard up.isFinite, up.dot(up) > 0 else { return nil }
        return up
    }

    /// `s` without leading and trailing spaces, carriage returns and byte-order marks.
    static func trimmed(_ s: Substring) -> Substring {
        let skip: (Character) -> Bool = { $0 == " " || $0 == "\r" || $0 == "\u{FEFF}" }
        guard let first = s.firstIndex(where: { !skip($0) }), let last = s.lastIndex(where: { !skip($0) }) else { return "" }
        return s[first...last]
    }

    /// Scores one data line with the estimate made from it (nil: no estimate, not scored).
    mutating func add(line: Substring, estimate: TiltEstimate?) {
        guard let estimate, let reference = referenceUp(line: line) else { return }
        errors.append(estimate.up.angle(to: reference) * 180 / Double.pi)
    }

    /// Summary figures, degrees.
    struct Summary: Equatable {
        var rms: Double, mean: Double, p95: Double, max: Double, scored: Int
    }

    /// RMS, mean, 95th percentile (linear interpolation between the order statistics at rank
    /// `0.95 · (n − 1)`, NumPy's default) and maximum of the errors; nil when nothing was scored.
    var summary: Summary? {
        guard !errors.isEmpty else { return nil }
        let n = Double(errors.count)
        let rms = (errors.reduce(0) { $0 + $1 * $1 } / n).squareRoot()
        let mean = errors.reduce(0, +) / n
        let sorted = errors.sorted()
        let rank = 0.95 * (n - 1)
        let low = Int(rank.rounded(.down))
        let high = Swift.min(low + 1, sorted.count - 1)
        let p95 = sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
        return Summary(rms: rms, mean: mean, p95: p95, max: sorted[sorted.count - 1], scored: errors.count)
    }

    /// `rms_deg=R mean_deg=M p95_deg=P max_deg=X scored=N`, angles to 3 decimals.
    static func line(_ s: Summary) -> String {
        "rms_deg=\(DecimalFormatting.fixed(s.rms, decimals: 3)) mean_deg=\(DecimalFormatting.fixed(s.mean, decimals: 3)) "
            + "p95_deg=\(DecimalFormatting.fixed(s.p95, decimals: 3)) max_deg=\(DecimalFormatting.fixed(s.max, decimals: 3)) scored=\(s.scored)"
    }
}
