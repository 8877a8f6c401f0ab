#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
@testable import CarouselCommandLine

/// `carouselctl tilt` end to end, in process.
@Suite struct TiltCommandTests {
    struct Run {
        var status: CarouselProtocol.ExitStatus
        var out: String
        var err: String
        var rows: [[Substring]] {
            out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        }
    }

    static func run(_ arguments: [String]) -> Run {
        var out = "", err = ""
        let io = CommandIO(out: { out += $0 }, err: { err += $0 })
        let status = Carouselctl.main(["tilt"] + arguments, io: io)
        return Run(status: status, out: out, err: err)
    }

    /// Writes `text` to a unique temporary file and returns its path.
    static func temporaryFile(_ text: String) throws -> String { try temporaryFile(bytes: Array(text.utf8)) }

    /// Writes `bytes` to a unique temporary file and returns its path.
    static func temporaryFile(bytes: [UInt8]) throws -> String {
        var template = Array("/tmp/carouselctl-tilt-XXXXXX.csv".utf8CString)
        let fd = mkstemps(&template, 4)
        try #require(fd >= 0)
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func degrees(_ r: Double) -> Double { r * 180 / Double.pi }

    @Test func xioAccelMethodMatchesHandComputedAngles() throws {
        let path = try TestPaths.dataset("xio-fusion-example/sensor_data.csv")
        let result = Self.run(["--input", path, "--method", "accel"])
        #expect(result.status == .ok)
        #expect(result.out.hasPrefix("time_s,roll_deg,pitch_deg\n"))
        let rows = result.rows
        try #require(rows.count == 13_514)
        // Independently of the reader: split the raw file and compute the angles of docs/FUSION.md "1. Conventions".
        let raw = try #require(readTextFile(path)).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        try #require(raw.count == 13_514 && raw.allSatisfy { $0.count >= 7 })
        for k in [0, 1, 5_000, 6_789, 13_513] {
            let ax = try #require(Double(raw[k][4])), ay = try #require(Double(raw[k][5])), az = try #require(Double(raw[k][6]))
            let roll = Self.degrees(atan2(-ax, (ay * ay + az * az).squareRoot()))
            let pitch = Self.degrees(atan2(ay, az))
            #expect(rows[k][0] == raw[k][0], "time of row \(k)")  // x-io times are seconds from 0
            #expect(abs(try #require(Double(rows[k][1])) - roll) <= 5e-7, "roll of row \(k)")
            #expect(abs(try #require(Double(rows[k][2])) - pitch) <= 5e-7, "pitch of row \(k)")
        }
    }

    /// The default estimator (`inertial`) and `fusion`: both start at the first sample; in the
    /// spin `fusion` stays within 3° of level, `inertial` within 5° (docs/FUSION.md §8: the
    /// spin's centripetal acceleration leaks through its inertial-frame low-pass).
    @Test(arguments: [([String](), 5.0), (["--method", "fusion"], 3.0)])
    func xioStartsAtFirstSampleAndStaysNearLevelInSpin(method: [String], limit: Double) throws {
        let result = Self.run(["-i", try TestPaths.dataset("xio-fusion-example/sensor_data.csv")] + method)
        #expect(result.status == .ok)
        let rows = result.rows
        try #require(rows.count > 6_700)
        // First row: initialised from the first accelerometer sample (0.001015204, −0.02045836,
        // 0.9970807) g → roll −0.058325°, pitch −1.175445°.
        #expect(rows[0] == ["0", "-0.058325", "-1.175445"])
        // During the spin (row 6700 ≈ 67.5 s, ~200 °/s) the tilt stays near level.
        let t = try #require(Double(rows[6_700][0]))
        #expect(t > 66 && t < 69)
        #expect(abs(try #require(Double(rows[6_700][1]))) < limit)
        #expect(abs(try #require(Double(rows[6_700][2])) + 1.19) < limit)
    }

    @Test func nativeZeroVectorGivesEmptyFields() throws {
        // Rows: zero vector (no data), flat, roll 30° (u = (−sin 30°, 0, cos 30°)).
        let g = 9.80665
        let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
            + "1000000000,0,0,0,,,\n1010000000,0,0,\(g),,,\n"
            + "1020000000,\(-0.5 * g),0,\(0.75.squareRoot() * g),,,\n"
        let path = try Self.temporaryFile(text)
        defer { unlink(path) }
        let result = Self.run(["--input", path, "--method", "accel", "--format", "native"])
        #expect(result.status == .ok)
        #expect(result.out == "time_s,roll_deg,pitch_deg\n0,,\n0.01,0.000000,0.000000\n0.02,30.000000,0.000000\n")
    }

    @Test func orientationColumnFollowsTheDetector() throws {
        // Held at 45° with the top edge up, u = (0, 0.707, 0.707): normal at once (the first
        // estimate); then the right edge up, u = (0.707, 0, 0.707) (θ = 90°, past the 55° that
        // normal holds to): right-up once it has held the 0.5 s dwell, at 0.6 s, not at 0.01 s.
        let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
            + "0,0,6.93,6.93,0,0,0\n10000000,6.93,0,6.93,0,0,0\n600000000,6.93,0,6.93,0,0,0\n"
        let path = try Self.temporaryFile(text)
        defer { unlink(path) }
        let result = Self.run(["--input", path, "--method", "accel", "--orientation"])
        #expect(result.status == .ok)
        #expect(result.out == "time_s,roll_deg,pitch_deg,orientation\n0,0.000000,45.000000,normal\n"
                + "0.01,-45.000000,0.000000,normal\n0.6,-45.000000,0.000000,right-up\n")
    }

    /// docs/CLI.md's `--orientation` example runs on the bundled recording: the header and each
    /// row whose orientation differs from the row before (its awk filter) are the page's lines.
    @Test func theDocumentedOrientationExampleIsWhatTheBundledRecordingGives() throws {
        let result = Self.run(["--input", TestPaths.packageRoot + "/data/demo-recording.csv", "--method", "accel", "--orientation"])
        #expect(result.status == .ok, "\(result.err)")
        var shown: [String] = []
        var last = ""
        for (n, line) in result.out.split(separator: "\n").enumerated() {
            let orientation = String(line.split(separator: ",", omittingEmptySubsequences: false).last ?? "")
            if n == 0 || orientation != last { shown.append(String(line)) }
            last = orientation
        }
        let page = readTextFile(TestPaths.packageRoot + "/docs/CLI.md") ?? ""
        let command = "$ carouselctl tilt --input data/demo-recording.csv --method accel --orientation | awk -F, "
            + "'NR == 1 || $4 != last { print; last = $4 }'\n"
        #expect(page.contains(command + shown.joined(separator: "\n") + "\n```"), "docs/CLI.md should show:\n\(shown.joined(separator: "\n"))")
        #expect(shown.count == 5)
    }

    @Test func errorsUseTheRightExitStatus() throws {
        var r = Self.run(["--input", "/nonexistent/recording.csv"])
        #expect(r.status == .noInput && r.err.contains("/nonexistent/recording.csv"))
        r = Self.run([])
        #expect(r.status == .usage)
        // The recording given as an argument, as most tools take it: the message says where it goes.
        r = Self.run(["data/demo-recording.csv"])
        #expect(r.status == .usage)
        #expect(r.err == "carouselctl: tilt: unexpected argument 'data/demo-recording.csv' (give the input file with --input data/demo-recording.csv)\n")
        r = Self.run(["--input", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--method", "kalman"])
        #expect(r.status == .usage)
        r = Self.run(["--input", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--gain", "fast"])
        #expect(r.status == .usage)

        let bad = try Self.temporaryFile("timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n0,0,0,9.8,,,\n10,0,zero,9.8,,,\n")
        defer { unlink(bad) }
        r = Self.run(["--input", bad])
        #expect(r.status == .dataError)
        #expect(r.err.contains("\(bad):3:") && r.err.contains("accel_y"))
        #expect(r.out.isEmpty)
        // Forcing a format the header does not match: line 1.
        r = Self.run(["--input", bad, "--format", "xio"])
        #expect(r.status == .dataError && r.err.contains("\(bad):1:"))
    }

    @Test func autoFormatReadsEveryDataset() throws {
        for (path, rows) in [("ncsu-airbrakes-six-orientations/yminus.csv", 1_384),
                             ("xio-gait-tracking-short-walk/short_walk.csv", 16_539)] {
            let r = Self.run(["--input", try TestPaths.dataset(path), "--lowpass-hz", "10", "--method", "complementary", "--gain", "1"])
            #expect(r.status == .ok, "\(path): \(r.err)")
            #expect(r.rows.count == rows, "\(path)")
            #expect(!r.out.contains("nan") && !r.out.contains(",,"), "\(path)")
        }
    }

    @Test func crlfBomDirectoryAndTimestampEdges() throws {
        let g = 9.80665
        let header = "\u{FEFF}timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\r\n"
        // CRLF with a BOM: read like LF. Rows: flat; duplicate time with another reading (held);
        // older than the previous (held, time_s as recorded); 1 hour later at roll 30°
        // (gap: restart from the accelerometer at once).
        let rows = ["1000000000,0,0,\(g),0,0,0", "1010000000,0,0,\(g),0,0,0", "1010000000,\(-0.5 * g),0,\(0.75.squareRoot() * g),0,0,0",
                    "1005000000,\(-0.5 * g),0,\(0.75.squareRoot() * g),0,0,0", "3601010000000,\(-0.5 * g),0,\(0.75.squareRoot() * g),0,0,0"]
        let path = try Self.temporaryFile(header + rows.joined(separator: "\r\n") + "\r\n")
        defer { unlink(path) }
        let r = Self.run(["--input", path])
        #expect(r.status == .ok, "\(r.err)")
        #expect(r.out == "time_s,roll_deg,pitch_deg\n0,0.000000,0.000000\n0.01,0.000000,0.000000\n0.01,0.000000,0.000000\n"
            + "0.005,0.000000,0.000000\n3600.01,30.000000,0.000000\n")

        // Timestamps further apart than Int64 nanoseconds: an error, not a wrapped 1 ns step.
        let far = try Self.temporaryFile("timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n9223372036854775807,0,0,9.8,,,\n-9223372036854775808,0,0,9.8,,,\n")
        defer { unlink(far) }
        let f = Self.run(["--input", far])
        #expect(f.status == .dataError && f.err.contains("\(far):3:") && f.err.contains("292 years"))

        // A directory is not an input file (66), a binary file without newlines is bad data (65).
        let d = Self.run(["--input", "/tmp"])
        #expect(d.status == .noInput && d.err.contains("/tmp: is a directory"))
        let blob = try Self.temporaryFile(bytes: [UInt8](repeating: 0x41, count: LineReader.maximumLineBytes + 1))
        defer { unlink(blob) }
        let b = Self.run(["--input", blob])
        #expect(b.status == .dataError && b.err.contains("\(blob):1:"))
    }
}
