#if canImport(Glibc)
import Glibc
#endif
@testable import CarouselCommandLine
@testable import IIOSensors
import CarouselProtocol
import Testing

/// Argument handling of `carouselctl sensors` and `record` (in process; the hardware paths are
/// covered by SensorsUmockdevTests).
struct SensorsCommandTests {
    final class Capture: @unchecked Sendable {
        var out = ""
        var err = ""
    }

    func run(_ args: [String]) -> (CarouselProtocol.ExitStatus, Capture) {
        let c = Capture()
        let io = CommandIO(out: { c.out += $0 }, err: { c.err += $0 })
        return (Carouselctl.main(args, io: io), c)
    }

    @Test func recordNeedsOutput() {
        let (status, c) = run(["record", "--duration", "1"])
        #expect(status == .usage)
        #expect(c.err.contains("--output FILE is required"))
    }

    @Test func recordRejectsBadModeRateAndDuration() {
        #expect(run(["record", "-o", "x.csv", "--mode", "fast"]).0 == CarouselProtocol.ExitStatus.usage)
        #expect(run(["record", "-o", "x.csv", "--rate", "0"]).0 == CarouselProtocol.ExitStatus.usage)
        #expect(run(["record", "-o", "x.csv", "--duration", "-1"]).0 == CarouselProtocol.ExitStatus.usage)
        #expect(run(["record", "-o", "x.csv", "--accel-convention", "up"]).0 == CarouselProtocol.ExitStatus.usage)
    }

    @Test func helpListsOptions() {
        let (status, c) = run(["sensors", "--help"])
        #expect(status == .ok)
        #expect(c.out.contains("--json") && c.out.contains("--uri URI"))
        let (s2, c2) = run(["record", "--help"])
        #expect(s2 == .ok)
        #expect(c2.out.contains("--output FILE") && c2.out.contains("--duration SECONDS") && c2.out.contains("--sensor NAME"))
    }

    @Test func outputErrorsMapToExitCodes() {
        // docs/CLI.md "EXIT STATUS": permission denied 77, other I/O 74.
        for code in [EACCES, EPERM, EROFS] {
            #expect(RecordSession.exitStatus(for: .io(device: "/x.csv", what: "open", errno: code)) == .noPermission)
        }
        #expect(RecordSession.exitStatus(for: .io(device: "/x.csv", what: "open", errno: ENOSPC)) == .ioError)
        #expect(RecordSession.exitStatus(for: .io(device: "/x.csv", what: "open", errno: EISDIR)) == .ioError)
    }

    @Test func garbageURIIsAUsageError() {
        for args in [["sensors", "--uri", "garbage"], ["record", "-o", "-", "--uri", ":"], ["sensors", "--json", "--uri", "local"]] {
            let (status, c) = run(args)
            #expect(status == .usage, "\(args)")
            #expect(c.err.contains("is not a libiio URI (local:, ip:HOST"), "\(c.err)")
        }
        #expect(IIOContext.uriProblem("ip:192.168.1.5") == nil)
        #expect(IIOContext.uriProblem("local:") == nil)
        #expect(IIOContext.uriProblem("xml:/tmp/ctx.xml") == nil)
    }

    @Test func textListingShowsControlCharactersInsteadOfSendingThem() {
        let info = SensorInfo(id: "iio:device0", name: "evil\u{1B}[2J", label: "tab\there", path: "/sys/x", dev: "",
                              kind: .accel, channels: [], mountMatrix: .identity, mountMatrixSource: .identity,
                              gyroMountMatrix: nil, samplingFrequencyHz: nil, samplingFrequencyAvailableHz: [],
                              buffered: false, triggers: [], warnings: ["bell\u{7}"], location: "", parentPath: nil,
                              grandparentPath: nil)
        let text = SensorListText.render([info], uri: "local:")
        #expect(text.hasPrefix("iio:device0: evil\\x1b[2J [tab\\x09here] (accel)\n"))
        #expect(text.contains("  warning: bell\\x07\n"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
