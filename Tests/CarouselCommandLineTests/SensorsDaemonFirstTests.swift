#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CarouselTestSupport
import Testing
@testable import CarouselCommandLine

/// `carouselctl sensors` asks a running carouseld first (it holds the IIO buffer) and reads the
/// sensors itself only when no daemon answers on the socket (issue 6).
@Suite(.serialized) struct SensorsDaemonFirstTests {
    /// A sensor the testbeds do not have, so output that names it came from the daemon.
    static let daemonSensors = """
        [{"name":"daemon-held-imu","label":"","path":"/sys/bus/iio/devices/iio:device3","dev":"/dev/iio:device3",\
        "type":"imu","channels":[{"name":"accel_x","index":0,"type":"le:s16/16>>0","scale":0.0023,"offset":0}],\
        "mount_matrix":[[0,1,0],[-1,0,0],[0,0,1]],"mount_matrix_source":"udev","sampling_frequency_hz":100,\
        "sampling_frequency_available_hz":[50,100],"buffered":true,"triggers":["bmi160-dev3"],"warnings":["hello"]}]
        """

    static func fake() throws -> FakeDaemon {
        try FakeDaemon { request in
            if case .sensors = request { return [ServerMessage.sensors(json: daemonSensors).encodedLine()] }
            return FakeDaemon.standard(request)
        }
    }

    @Test func aRunningDaemonAnswersEvenWhenSensorsArePresent() throws {
        let daemon = try Self.fake()
        defer { daemon.stop() }
        // Under a testbed holding an mma8452: the list is still the daemon's.
        let bed = try Mock.testbed("mma8452")
        let result = try Mock.run(["sensors", "--json", "--socket", daemon.socketPath], bed)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let sensors = try Mock.json(result.standardOutput)
        try #require(sensors.count == 1)
        #expect(sensors[0]["name"] as? String == "daemon-held-imu")
        #expect(sensors[0]["mount_matrix"] as? [[Double]] == [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
        #expect(sensors[0]["sampling_frequency_available_hz"] as? [Double] == [50, 100])
        #expect(daemon.requests == [.sensors])
    }

    @Test func daemonListAsText() throws {
        let daemon = try Self.fake()
        defer { daemon.stop() }
        let run = runCtl(["sensors", "--socket", daemon.socketPath])
        #expect(run.status == .ok, "stderr: \(run.err)")
        #expect(run.out == """
            iio:device3: daemon-held-imu (imu)
              path: /sys/bus/iio/devices/iio:device3
              dev: /dev/iio:device3
              channels:
                accel_x: index 0, type le:s16/16>>0, scale 0.0023, offset 0.0
              mount matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1 (udev)
              sampling frequency: 100.0 Hz (available: 50.0 100.0)
              buffered: yes, triggers: bmi160-dev3
              warning: hello
            (via carouseld on \(daemon.socketPath))

            """)
    }

    @Test func withoutADaemonTheSensorsAreReadDirectly() throws {
        let bed = try Mock.testbed("mma8452")
        let socket = "/tmp/carouselctl-no-daemon-\(getpid()).sock"
        let result = try Mock.run(["sensors", "--json", "--socket", socket], bed)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let sensors = try Mock.json(result.standardOutput)
        try #require(sensors.count == 1)
        #expect(sensors[0]["name"] as? String == "mma8452")
        #expect(sensors[0]["dev"] as? String == "/dev/iio:device0")
    }
}
