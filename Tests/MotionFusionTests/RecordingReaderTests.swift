import Testing
import CarouselTestSupport
@testable import MotionFusion

@Suite struct RecordingReaderTests {
    @Test func detectsEveryDatasetHeader() throws {
        let cases: [(String, RecordingFormat)] = [
            ("xio-fusion-example/sensor_data.csv", .xio),
            ("xio-gait-tracking-short-walk/short_walk.csv", .xio),
            ("broad-trial01-slow-rotation/01_undisturbed_slow_rotation_A.csv", .broad),
            ("ncsu-airbrakes-six-orientations/xplus.csv", .ncsu),
        ]
        for (path, expected) in cases {
            let text = try #require(readTextFile(try TestPaths.dataset(path)))
            let header = try #require(text.split(separator: "\n").first)
            #expect(RecordingFormat.detect(header: header) == expected, "\(path)")
        }
        #expect(RecordingFormat.detect(header: RecordingFormat.nativeHeader) == .native)
        #expect(RecordingFormat.detect(header: "a,b,c") == nil)
    }

    @Test func xioConvertsDegreesPerSecondAndG() throws {
        let text = try #require(readTextFile(try TestPaths.dataset("xio-fusion-example/sensor_data.csv")))
        let samples = try RecordingReader.parse(text: text)
        #expect(samples.count == 13_514)
        // Row 2 of the file: 0.010078907,0.01654156,-0.3308571,0.04700107,0.001496836,-0.01803474,0.9990417,…
        let s = samples[1]
        #expect(s.timestampNanoseconds == 10_078_907)
        #expect(abs(s.accel.z - 0.9990417 * 9.80665) < 1e-12)
        #expect(abs(s.accel.y - -0.01803474 * 9.80665) < 1e-12)
        let g = try #require(s.gyro)
        #expect(abs(g.y - -0.3308571 * Double.pi / 180) < 1e-15)
    }

    @Test func ncsuKeepsRawRowsOnlyAndConvertsG() throws {
        let text = try #require(readTextFile(try TestPaths.dataset("ncsu-airbrakes-six-orientations/xplus.csv")))
        let samples = try RecordingReader.parse(text: text)
        #expect(samples.count == 1_519)  // raw rows, per the dataset README
        // Line 3 is the first raw row: 0.99283612,-0.03946202,0.03641900 g; gyro 0.00536354,0.03680181,-0.00029719 rad/s
        #expect(samples[0].timestampNanoseconds == 1_730_147_660_436_724_498)
        #expect(abs(samples[0].accel.x - 0.99283612 * 9.80665) < 1e-12)
        #expect(samples[0].gyro == Vector3(0.00536354, 0.03680181, -0.00029719))
    }

    @Test func broadKeepsSIUnits() throws {
        let text = "time_s,gyr_x_rad_s,gyr_y_rad_s,gyr_z_rad_s,acc_x_m_s2,acc_y_m_s2,acc_z_m_s2,opt_qw,opt_qx,opt_qy,opt_qz,movement\n"
            + "0.0035,-0.001,0.002,0.007,-0.23,-0.33,9.89,nan,nan,nan,nan,0\r\n"
        let samples = try RecordingReader.parse(text: text, format: .broad)
        #expect(samples == [IMUSample(timestampNanoseconds: 3_500_000, accel: Vector3(-0.23, -0.33, 9.89),
                                      gyro: Vector3(-0.001, 0.002, 0.007))])
    }

    @Test func malformedRowsNameTheirLine() {
        let header = RecordingFormat.nativeHeader + "\n"
        #expect(throws: RecordingError.malformedRow(line: 3, reason: "accel_y: 'x' is not a finite number")) {
            try RecordingReader.parse(text: header + "1,0,0,9.8,,,\n2,0,x,9.8,,,\n")
        }
        #expect(throws: RecordingError.malformedRow(line: 2, reason: "expected 7 fields, found 4")) {
            try RecordingReader.parse(text: header + "1,0,0,9.8\n")
        }
        #expect(throws: RecordingError.malformedRow(line: 2, reason: "gyroscope fields partly empty (1 of 3 given)")) {
            try RecordingReader.parse(text: header + "1,0,0,9.8,0.1,,\n")
        }
        #expect(throws: RecordingError.malformedRow(line: 2, reason: "timestamp_ns: '1.5' is not an integer nanosecond count")) {
            try RecordingReader.parse(text: header + "1.5,0,0,9.8,,,\n")
        }
        #expect(throws: RecordingError.malformedRow(line: 2, reason: "accel_x: 'nan' is not a finite number")) {
            try RecordingReader.parse(text: header + "1,nan,0,9.8,,,\n")
        }
        #expect(throws: RecordingError.unknownHeader(line: 1, text: "time,ax")) {
            try RecordingReader.parse(text: "time,ax\n1,2\n")
        }
        #expect(throws: RecordingError.empty) { try RecordingReader.parse(text: "") }
        let xio = "Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n"
        #expect(throws: RecordingError.malformedRow(line: 3, reason: "gyroscope fields partly empty (2 of 3 given)")) {
            // x-io rows must carry a gyroscope: one missing field is malformed.
            try RecordingReader.parse(text: xio + "0,1,2,3,0,0,1\n0.01,1,,3,0,0,1\n")
        }
    }

    @Test func ncsuPartialRawBlockIsMalformed() throws {
        let text = try #require(readTextFile(try TestPaths.dataset("ncsu-airbrakes-six-orientations/xplus.csv")))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Blank the scaledAccelY field (column 6) of line 3 (a raw row).
        var fields = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[5] = ""
        lines[2] = fields.joined(separator: ",")
        #expect(throws: RecordingError.malformedRow(line: 3, reason: "raw block partly empty (5 of 6 accelerometer/gyroscope fields)")) {
            try RecordingReader.parse(text: lines.joined(separator: "\n"))
        }
    }

    @Test func nativeWriterRoundTrips() throws {
        let samples = [
            IMUSample(timestampNanoseconds: 123_456_789_012, accel: Vector3(0.1, -9.80665, 1e-7), gyro: Vector3(-0.0, 0.5, -3.25)),
            IMUSample(timestampNanoseconds: 123_466_789_012, accel: Vector3(1.0 / 3.0, 2, 3), gyro: nil),
        ]
        #expect(NativeRecordingWriter.header == "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z")
        #expect(NativeRecordingWriter.line(for: samples[0]) == "123456789012,0.1,-9.80665,1e-07,0,0.5,-3.25")
        #expect(NativeRecordingWriter.line(for: samples[1]) == "123466789012,0.3333333333333333,2.0,3.0,,,")
        let text = ([NativeRecordingWriter.header] + samples.map(NativeRecordingWriter.line(for:))).joined(separator: "\n") + "\n"
        let back = try RecordingReader.parse(text: text)
        #expect(back == samples)
    }

    @Test func lineParserStreams() throws {
        let parser = try RecordingLineParser(header: RecordingFormat.nativeHeader[...])
        #expect(parser.format == .native)
        #expect(try parser.parse(line: "", lineNumber: 2) == nil)
        #expect(try parser.parse(line: "5,1,2,3,,,\r", lineNumber: 3) == IMUSample(timestampNanoseconds: 5, accel: Vector3(1, 2, 3)))
    }

    @Test func crlfLineEndingsAndByteOrderMark() throws {
        // Windows line endings: "\r\n" is one Character in Swift, so splitting at "\n" alone
        // left the whole file as one (unrecognised) header line.
        let header = "\u{FEFF}" + RecordingFormat.nativeHeader + "\r\n"
        let samples = try RecordingReader.parse(text: header + "1,0,0,9.5,,,\r\n2,0.5,0,9.5,0.25,0,0\r\n")
        #expect(samples == [IMUSample(timestampNanoseconds: 1, accel: Vector3(0, 0, 9.5)),
                            IMUSample(timestampNanoseconds: 2, accel: Vector3(0.5, 0, 9.5), gyro: Vector3(0.25, 0, 0))])
        #expect(throws: RecordingError.malformedRow(line: 3, reason: "accel_y: 'y' is not a finite number")) {
            try RecordingReader.parse(text: header + "1,0,0,9.5,,,\r\n2,0,y,9.5,,,\r\n")
        }
        #expect(RecordingReader.lines(of: "a\r\nb\nc\r\n") == ["a", "b", "c", ""])
    }

    @Test func messagesQuoteBinaryTextSafely() {
        // A binary file's "header" must not reach the terminal raw: escapes, line breaks.
        #expect(throws: RecordingError.unknownHeader(line: 1, text: "\\x1B[2J\\x07a\\x7Fb\u{FFFD}")) {
            try RecordingReader.parse(text: "\u{1B}[2J\u{07}a\u{7F}b\u{FFFD}\n1\n")
        }
        #expect(RecordingError.printable("tab\there\r") == "tab\\x09here\\x0D")
        let long = String(repeating: "9", count: 50) + "x"
        #expect(throws: RecordingError.malformedRow(line: 2, reason: "accel_x: '\(String(repeating: "9", count: 40))…' is not a finite number")) {
            try RecordingReader.parse(text: RecordingFormat.nativeHeader + "\n1,\(long),0,9.8,,,\n")
        }
    }
}
