#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
@testable import CarouselCommandLine

/// `carouselctl tilt --score` (issue 14).
@Suite struct TiltScoreTests {
    /// A BROAD-format file whose device lies flat and still (acc = (0, 0, g), no rotation), so
    /// every estimator's up vector is exactly (0, 0, 1), while the reference is turned about x
    /// by θ: q = (cos θ/2, sin θ/2, 0, 0), reference up (0, sin θ, cos θ), error exactly θ.
    /// Rows: θ = 30° outside the movement phase (not scored), 1°, 2°, 3°, a `nan` reference
    /// (not scored), 4°. By hand: rms = √((1 + 4 + 9 + 16) / 4) = 2.739, mean 2.5,
    /// p95 at rank 0.95 · 3 = 2.85 between 3° and 4° = 3.85, max 4, scored 4.
    static func file() -> String {
        var text = "time_s,gyr_x_rad_s,gyr_y_rad_s,gyr_z_rad_s,acc_x_m_s2,acc_y_m_s2,acc_z_m_s2,opt_qw,opt_qx,opt_qy,opt_qz,movement\n"
        for (k, (theta, movement)) in [(30.0, 0), (1, 1), (2, 1), (3, 1), (.nan, 1), (4, 1)].enumerated() {
            let h = theta * Double.pi / 360
            let q = theta.isNaN ? "nan,nan,nan,nan" : "\(cos(h)),\(sin(h)),0,0"
            text += "\(Double(k) * 0.0035),0,0,0,0,0,9.80665,\(q),\(movement)\n"
        }
        return text
    }

    @Test(arguments: ["inertial", "fusion", "accel"])
    func scoreMatchesHandComputedErrors(method: String) throws {
        let path = try TiltCommandTests.temporaryFile(Self.file())
        defer { unlink(path) }
        let run = TiltCommandTests.run(["--input", path, "--format", "broad", "--method", method, "--score"])
        #expect(run.status == .ok, "\(run.err)")
        #expect(run.out == "rms_deg=2.739 mean_deg=2.500 p95_deg=3.850 max_deg=4.000 scored=4\n")
    }

    @Test func broadTrial06MatchesTheNumPyReference() throws {
        // The inclination error of the default estimator's CSV output, scored independently
        // with NumPy against the file's quaternions (the metric): 0.782 RMS, 0.626
        // mean, 1.624 p95 (numpy.percentile), 2.896 max over 34,882 rows.
        let path = try TestPaths.dataset("broad-06-fast-rotation-a/06_undisturbed_fast_rotation_A.csv")
        let run = TiltCommandTests.run(["--input", path, "--format", "broad", "--score"])
        #expect(run.status == .ok, "\(run.err)")
        #expect(run.out == "rms_deg=0.782 mean_deg=0.626 p95_deg=1.624 max_deg=2.896 scored=34882\n")
        // docs/CLI.md shows this run as its example: the same line, so the page cannot drift.
        let page = readTextFile(TestPaths.packageRoot + "/docs/CLI.md") ?? ""
        #expect(page.contains("--format broad --score\n" + run.out), "docs/CLI.md's tilt --score example differs from \(run.out)")
    }

    @Test func scoreNeedsAReference() throws {
        let path = try TiltCommandTests.temporaryFile("timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n0,0,0,9.8,0,0,0\n")
        defer { unlink(path) }
        let run = TiltCommandTests.run(["--input", path, "--score"])
        #expect(run.status == .usage)
        #expect(run.err.contains("--score needs a BROAD recording"))
        let flat = try TiltCommandTests.temporaryFile(String(Self.file().split(separator: "\n")[0...1].joined(separator: "\n")) + "\n")
        defer { unlink(flat) }
        let none = TiltCommandTests.run(["--input", flat, "--score"])
        #expect(none.status == .dataError)
        #expect(none.err.contains("no row to score"))
    }
}
