import CarouselTestSupport
import Testing
@testable import CarouselDaemon

/// `--check-config` said OK for a replay recording that can never play (issue 15, defect 6):
/// the daemon then started and showed `error`. The recording is now loaded as the replay source
/// loads it, and a file without one valid sample is a configuration error naming file:line.
@Suite struct CheckConfigRecordingTests {
    /// Writes `replay.conf` (`replay_file` on line 3) and the recording; runs `--check-config`.
    func check(_ recording: String) -> (result: ServiceTestSupport.ProcessResult, config: String, csv: String) {
        let directory = ServiceTestSupport.temporaryDirectory()
        let config = directory + "/replay.conf", csv = directory + "/rec.csv"
        #expect(ServiceTestSupport.writeFile(config, "[sensor]\nsource = replay\nreplay_file = rec.csv\n"))
        #expect(ServiceTestSupport.writeFile(csv, recording))
        return (CarouseldCommandLineProcessTests.run(["--check-config", "-c", config]), config, csv)
    }

    static let header = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"

    @Test func aHeaderWithoutSamplesIsRejected() {
        let (result, config, csv) = check(Self.header + "\n")
        #expect(result.status == 78)
        #expect(result.standardError == "carouseld: \(config):3: [sensor] replay_file: '\(csv)' can never play: \(csv): no samples\n")
    }

    @Test func aBadRowIsRejectedWithItsLine() {
        let (result, config, csv) = check(Self.header + "1000000,0,0,9.81,,,\n2000000,0,zero,9.81,,,\n")
        #expect(result.status == 78)
        #expect(result.standardError.hasPrefix("carouseld: \(config):3: [sensor] replay_file: '\(csv)' can never play: \(csv):3: "),
                "\(result.standardError)")
    }

    @Test func anUnknownHeaderIsRejected() {
        let (result, _, csv) = check("time,x,y,z\n1,2,3,4\n")
        #expect(result.status == 78)
        #expect(result.standardError.contains("can never play: \(csv):1: unrecognised header 'time,x,y,z'"), "\(result.standardError)")
    }

    @Test func oneValidSampleIsEnough() {
        let (result, config, _) = check(Self.header + "1000000,0,0,9.81,,,\n")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(config): configuration OK\n")
    }
}
