#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import MotionFusion
import CarouselTestSupport
@testable import CarouselCommandLine

/// What an in-process `carouselctl` run printed.
struct CtlRun {
    var status: ExitStatus
    var out: String
    var err: String
}

/// Runs `Carouselctl.main` in this process with captured output. The operator's answers are
/// `input`, one line each (then end of input); `interactive` says whether standard input counts
/// as a terminal (so `calibrate` asks before writing).
func runCtl(_ arguments: [String], environment: [String: String] = [:], input: [String] = [],
            interactive: Bool = false) -> CtlRun {
    final class Box: @unchecked Sendable { var out = ""; var err = ""; var input: [String] = [] }
    let box = Box()
    box.input = input
    let io = CommandIO(out: { box.out += $0 }, err: { box.err += $0 }, environment: environment,
                       readLine: { box.input.isEmpty ? nil : box.input.removeFirst() }, isInteractive: interactive)
    let status = Carouselctl.main(arguments, io: io)
    return CtlRun(status: status, out: box.out, err: box.err)
}

/// A fresh directory under /tmp, unique per call.
func makeTempDirectory(_ label: String) -> String {
    var template = Array("/tmp/carouselctl-\(label)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "open \(path) failed")
    _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count - 1) }
    close(fd)
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// A daemon config in `dir` whose socket (not served) and calibration file are in `dir`, so tests
/// never touch /etc, /run or /var/lib.
func writeTestConfig(in dir: String, socket: String? = nil, displayRotation: Int = 0) -> String {
    let path = dir + "/carouseld.conf"
    writeFile(path, """
    [server]
    socket = \(socket ?? dir + "/no-daemon.sock")

    [tilt]
    display_rotation = \(displayRotation)

    [calibration]
    file = \(dir)/calibration.conf

    """)
    return path
}

/// The x-io example recording's rows as read by hand (independent of MotionFusion's reader):
/// time s, gyro deg/s, accel g.
struct XioRow {
    var time: Double
    var gyroDegPerS: (Double, Double, Double)
    var accelG: (Double, Double, Double)
}

func readXioRows() throws -> [XioRow] {
    guard let text = readTextFile(try TestPaths.dataset("xio-fusion-example/sensor_data.csv")) else { return [] }
    var rows: [XioRow] = []
    for line in text.split(separator: "\n").dropFirst() {
        let f = line.split(separator: ",").map { Double($0.trimmingCharacters()) ?? .nan }
        guard f.count >= 7 else { continue }
        rows.append(XioRow(time: f[0], gyroDegPerS: (f[1], f[2], f[3]), accelG: (f[4], f[5], f[6])))
    }
    return rows
}

extension Substring {
    func trimmingCharacters() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\r" { s = s.dropLast() }
        return s
    }
}

/// Parses a calibration file written by a test run.
func readCalibration(_ path: String) throws -> CalibrationFile {
    guard let text = readTextFile(path) else { throw CommandError(.noInput, "missing \(path)") }
    return try CalibrationFile.parse(text: text, path: path)
}

/// The six NCSU captures, in X+ X- Y+ Y- Z+ Z- order.
func ncsuFiles() throws -> [String] {
    try ["xplus", "xminus", "yplus", "yminus", "zplus", "zminus"].map {
        try TestPaths.dataset("ncsu-airbrakes-six-orientations/\($0).csv")
    }
}
