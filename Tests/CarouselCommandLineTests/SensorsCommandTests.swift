import CarouselCommandLine
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
}
