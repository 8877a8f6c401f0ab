/// Per-axis accelerometer offset and scale from static orientations (the classic six-position
/// method: each axis pointing up and down once), refined by least squares.
///
/// Model (as `Calibration.applyToAccel`): `a_true = (a_raw − offset) ⊙ scale`.
/// 1. Initial guess per axis `i` from the orientation with the largest `+i` reading (`r⁺`) and
///    the one with the most negative (`r⁻`): `offset_i = (r⁺ + r⁻) / 2`,
///    `scale_i = 2g / (r⁺ − r⁻)`.
/// 2. Gauss–Newton on the six unknowns minimising `Σ_k (|(m_k − offset) ⊙ scale| − g)²` over all
///    orientations' mean vectors `m_k` (all three components of each), which removes the error
///    of an orientation that is a few degrees off the axis (a sphere fit with a diagonal
///    scale). Falls back to the initial guess if the normal equations are singular.
public enum SixPositionCalibration {
    /// Fits offset (m/s²) and scale from the mean specific force of each still orientation.
    /// - Parameters:
    ///   - means: at least six mean vectors, m/s², covering +x, −x, +y, −y, +z, −z up.
    ///   - gravity: the magnitude to fit to, m/s².
    /// - Throws: `SixPositionError.missingOrientation` naming the axis direction (e.g. "-y")
    ///   that no mean points along (within 45°).
    public static func fit(means: [Vector3], gravity: Double = standardGravity) throws(SixPositionError)
        -> (offset: Vector3, scale: Vector3) {
        func component(_ v: Vector3, _ i: Int) -> Double { i == 0 ? v.x : (i == 1 ? v.y : v.z) }
        var offset = [0.0, 0.0, 0.0], scale = [1.0, 1.0, 1.0]
        for i in 0..<3 {
            let name = ["x", "y", "z"][i]
            guard let up = means.max(by: { component($0, i) < component($1, i) }),
                  let down = means.min(by: { component($0, i) < component($1, i) }) else {
                throw .missingOrientation(axis: "+" + name)
            }
            let rUp = component(up, i), rDown = component(down, i)
            // Within 45° of the axis: the axis component dominates the vector.
            guard rUp > 0, rUp > up.length * 0.7071 else { throw .missingOrientation(axis: "+" + name) }
            guard rDown < 0, -rDown > down.length * 0.7071 else { throw .missingOrientation(axis: "-" + name) }
            offset[i] = (rUp + rDown) / 2
            scale[i] = 2 * gravity / (rUp - rDown)
        }
        var p = offset + scale
        for _ in 0..<20 {
            // Normal equations JᵀJ δ = −Jᵀr.
            var jtj = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 6)
            var jtr = [Double](repeating: 0, count: 6)
            for m in means {
                let d = [m.x - p[0], m.y - p[1], m.z - p[2]]
                let c = [d[0] * p[3], d[1] * p[4], d[2] * p[5]]
                let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).squareRoot()
                guard n > 0 else { continue }
                let r = n - gravity
                var j = [Double](repeating: 0, count: 6)
                for i in 0..<3 {
                    j[i] = -c[i] * p[3 + i] / n      // ∂r/∂offset_i
                    j[3 + i] = c[i] * d[i] / n        // ∂r/∂scale_i
                }
                for a in 0..<6 {
                    jtr[a] += j[a] * r
                    for b in 0..<6 { jtj[a][b] += j[a] * j[b] }
                }
            }
            for a in 0..<6 { jtj[a][a] *= 1 + 1e-9 }  // tiny damping against exact singularity
            guard let delta = solve(jtj, jtr.map { -$0 }) else { break }
            p = zip(p, delta).map { $0 + $1 }
            if delta.map(abs).max() ?? 0 < 1e-12 { break }
        }
        guard p.allSatisfy({ $0.isFinite }), p[3] > 0, p[4] > 0, p[5] > 0 else {
            return (Vector3(offset[0], offset[1], offset[2]), Vector3(scale[0], scale[1], scale[2]))
        }
        return (Vector3(p[0], p[1], p[2]), Vector3(p[3], p[4], p[5]))
    }

    /// Gaussian elimination with partial pivoting; nil when singular.
    static func solve(_ matrix: [[Double]], _ rhs: [Double]) -> [Double]? {
        var a = matrix, b = rhs
        let n = b.count
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }),
                  abs(a[pivot][col]) > 1e-300 else { return nil }
            a.swapAt(col, pivot); b.swapAt(col, pivot)
            for row in (col + 1)..<n {
                let f = a[row][col] / a[col][col]
                for k in col..<n { a[row][k] -= f * a[col][k] }
                b[row] -= f * b[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var s = b[row]
            for k in (row + 1)..<n { s -= a[row][k] * x[k] }
            x[row] = s / a[row][row]
        }
        return x.allSatisfy({ $0.isFinite }) ? x : nil
    }
}

/// Why a six-position fit is impossible.
public enum SixPositionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No orientation has this axis direction (e.g. "-y") pointing up.
    case missingOrientation(axis: String)

    public var description: String {
        switch self {
        case let .missingOrientation(axis): return "six-position calibration: no still orientation with \(axis) up"
        }
    }
}
