#if canImport(Glibc)
import Glibc
#endif
import Testing
import CLinux
import CarouselTestSupport
import IIOSensors
import MotionFusion
import CarouselConfig
@testable import CarouselDaemon

/// `[server] sensor_proxy = on` as a real client sees it: a private system bus
/// (`dbus-daemon --config-file`, a unix:path address in a temporary directory, a policy that
/// allows everything), the built `carouseld` on it replaying a generated turn
/// (`TurningRecording`: normal for 3 s, a 0.5 s turn to right-up ending at 3.5 s, another to
/// bottom-up ending at 7 s), and Debian's own clients: `gdbus introspect`/`call`/`monitor`
/// (libglib2.0-bin) and `monitor-sensor` (iio-sensor-proxy).
@Suite(.serialized) struct SensorProxyBusTests {
    /// The tool at `path`, or a failure naming the Debian package that provides it.
    static func requireTool(_ path: String, package: String) throws {
        guard access(path, X_OK) == 0 else {
            throw TestSupportError("\(path) is missing: install the Debian package \(package) (scripts/bootstrap)")
        }
    }

    /// A started tool whose output (line-buffered through `stdbuf -oL`) goes to its log.
    static func tool(_ arguments: [String], bus: String, name: String) throws -> DaemonProcess {
        try DaemonProcess(executable: "/usr/bin/stdbuf", arguments: ["-oL"] + arguments,
                          environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus], logPath: TestTemp.path(name + ".log"))
    }

    /// Runs a tool to its end; its exit status and output.
    static func run(_ arguments: [String], bus: String, name: String) throws -> (status: Int32, out: String) {
        let p = try tool(arguments, bus: bus, name: name)
        let status = try p.wait(timeoutSeconds: 10)
        return (status, p.log)
    }

    /// A private system bus: `dbus-daemon --config-file` listening on a unix:path address in
    /// `directory`, with a policy that allows everything.
    static func startBus(in directory: String) throws -> (process: DaemonProcess, address: String) {
        try requireTool("/usr/bin/dbus-daemon", package: "dbus")
        let socket = directory + "/system_bus_socket"
        let address = "unix:path=" + socket
        try TestTemp.write("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>

            """, to: directory + "/bus.conf")
        let process = try DaemonProcess(executable: "/usr/bin/dbus-daemon",
                                        arguments: ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"],
                                        logPath: TestTemp.path("dbus-daemon.log"))
        try process.waitForSocket(socket)
        return (process, address)
    }

    /// The built carouseld with `sensor_proxy = on`, replaying `recording` once, on `bus`;
    /// returns once it serves the name.
    static func startDaemon(in directory: String, recording: String, bus: String) throws -> DaemonProcess {
        try TestTemp.write("""
            [sensor]
            source = replay
            replay_file = \(recording)
            replay_loop = no
            [server]
            socket = \(directory)/carouseld.sock
            sensor_proxy = on
            [calibration]
            file = \(directory)/no-calibration.conf

            """, to: directory + "/carouseld.conf")
        let daemon = try DaemonProcess(executable: TestPaths.product("carouseld"),
                                       arguments: ["-c", directory + "/carouseld.conf", "--foreground"],
                                       environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus], logPath: directory + "/carouseld.log")
        _ = try daemon.waitForLog(containing: "serving net.hadess.SensorProxy")
        return daemon
    }

    static func introspect(bus: String) throws -> (status: Int32, out: String) {
        try run(["gdbus", "introspect", "--system", "--dest", "net.hadess.SensorProxy",
                 "--object-path", "/net/hadess/SensorProxy"], bus: bus, name: "introspect")
    }

    @Test func monitorSensorFollowsTheReplayedTurn() throws {
        try Self.requireTool("/usr/bin/gdbus", package: "libglib2.0-bin")
        try Self.requireTool("/usr/bin/monitor-sensor", package: "iio-sensor-proxy")
        try Self.requireTool("/usr/bin/stdbuf", package: "coreutils")
        let directory = TestTemp.path("sensor-proxy-bus")
        mkdir(directory, 0o700)
        let (busDaemon, bus) = try Self.startBus(in: directory)
        defer { busDaemon.signal(SIGTERM); _ = try? busDaemon.wait() }
        let recording = directory + "/turn.csv"
        let turn = TurningRecording(turns: 2)
        try TestTemp.write(turn.nativeCSV, to: recording)
        let daemon = try Self.startDaemon(in: directory, recording: recording, bus: bus)
        defer { daemon.signal(SIGTERM); _ = try? daemon.wait() }

        // The interface as iio-sensor-proxy's clients look for it; nothing claimed yet.
        let introspect = try Self.introspect(bus: bus)
        #expect(introspect.status == 0, "\(introspect.out)")
        for line in ["interface net.hadess.SensorProxy {", "ClaimAccelerometer();", "ReleaseAccelerometer();",
                     "readonly b HasAccelerometer = true;", "readonly s AccelerometerOrientation = 'undefined';",
                     "readonly s AccelerometerTilt = 'vertical';", "readonly b HasAmbientLight = false;"] {
            #expect(introspect.out.contains(line), "no '\(line)' in: \(introspect.out)")
        }
        let claim = try Self.run(["gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path",
                                  "/net/hadess/SensorProxy", "--method", "net.hadess.SensorProxy.ClaimAccelerometer"],
                                 bus: bus, name: "claim")
        #expect(claim.status == 0 && claim.out == "()\n", "\(claim.out)")

        // The caller of that claim has left the bus, so its claim is gone: nothing reads the
        // sensor until monitor-sensor claims, and the recording starts from its first sample then.
        let monitor = try Self.tool(["gdbus", "monitor", "--system", "--dest", "net.hadess.SensorProxy"],
                                    bus: bus, name: "gdbus-monitor")
        defer { monitor.signal(SIGTERM); _ = try? monitor.wait() }
        _ = try monitor.waitForLog(containing: "is owned by")
        let sensorMonitor = try Self.tool(["monitor-sensor", "--accel"], bus: bus, name: "monitor-sensor")
        defer { sensorMonitor.signal(SIGTERM); _ = try? sensorMonitor.wait() }

        _ = try monitor.waitForLog(containing: "'AccelerometerOrientation': <'normal'>")
        let normalAt = clinux_monotonic_ns()
        _ = try monitor.waitForLog(containing: "'AccelerometerOrientation': <'right-up'>")
        let rightUpAt = clinux_monotonic_ns()
        let transcript = try sensorMonitor.waitForLog(containing: "orientation changed: bottom-up", timeoutSeconds: 15)

        let marker = "Accelerometer orientation changed: "
        let changes = transcript.split(separator: "\n").filter { $0.contains(marker) }
            .map { String($0.split(separator: " ").last ?? "") }
        #expect(changes == ["normal", "right-up", "bottom-up"], "transcript:\n\(transcript)")
        // monitor-sensor 3.4 (Debian 12) names the orientation alone; 3.7 (Debian 13) reads
        // AccelerometerTilt too: "vertical" when it asks before the daemon's first sample,
        // "tilted-up" (the recording's first pose) after it. Either way not yet an orientation.
        let header = transcript.split(separator: "\n").first { $0.hasPrefix("=== Has accelerometer") }.map(String.init)
        #expect(["=== Has accelerometer (orientation: undefined)",
                 "=== Has accelerometer (orientation: undefined, tilt: vertical)",
                 "=== Has accelerometer (orientation: undefined, tilt: tilted-up)"].contains(header ?? ""),
                "transcript:\n\(transcript)")
        print("monitor-sensor --accel against carouseld:\n\(transcript)")
        // "normal" comes with the first sample (recording time 0), right-up after the turn that
        // ends at 3.5 s (the 0.5 s dwell counts from when the in-plane angle passed 55°, mid-turn).
        let delay = Double(rightUpAt - normalAt) / 1e9 - turn.turnEndSeconds[0]
        print("orientation delay from the end of the turn to PropertiesChanged at a D-Bus client: \(delay) s")
        #expect(delay > 0 && delay < 0.6, "delay \(delay) s")
        #expect(!daemon.hasExited, "log: \(daemon.log)")
    }

    /// A bus that goes away is logged and the daemon keeps running; once the bus is back (the
    /// same address) it owns the name again, within the 2 s retry interval.
    @Test func reconnectsWhenTheBusRestarts() throws {
        try Self.requireTool("/usr/bin/gdbus", package: "libglib2.0-bin")
        try Self.requireTool("/usr/bin/stdbuf", package: "coreutils")
        let directory = TestTemp.path("sensor-proxy-restart")
        mkdir(directory, 0o700)
        var (busDaemon, bus) = try Self.startBus(in: directory)
        let recording = directory + "/turn.csv"
        try TestTemp.write(TurningRecording(turns: 1).nativeCSV, to: recording)
        let daemon = try Self.startDaemon(in: directory, recording: recording, bus: bus)
        defer { daemon.signal(SIGTERM); _ = try? daemon.wait() }

        busDaemon.signal(SIGTERM)
        _ = try busDaemon.wait()
        _ = try daemon.waitForLog(containing: "system bus connection lost")
        // The daemon still serves its socket while the bus is away.
        try daemon.waitForSocket(directory + "/carouseld.sock")
        unlink(directory + "/system_bus_socket")
        (busDaemon, bus) = try Self.startBus(in: directory)
        defer { busDaemon.signal(SIGTERM); _ = try? busDaemon.wait() }
        let deadline = clinux_monotonic_ns() + 5_000_000_000
        while daemon.log.split(separator: "\n").filter({ $0.contains("serving net.hadess.SensorProxy") }).count < 2,
              clinux_monotonic_ns() < deadline {
            _ = poll(nil, 0, 20)
        }
        let introspect = try Self.introspect(bus: bus)
        #expect(introspect.status == 0 && introspect.out.contains("readonly s AccelerometerOrientation = 'undefined';"),
                "\(introspect.out)\nlog: \(daemon.log)")
        #expect(!daemon.hasExited, "log: \(daemon.log)")
    }

    @Test func theConfigurationKeyIsOffByDefault() throws {
        #expect(try DaemonConfiguration.parse(text: "[server]\n", path: "t.conf").server.sensorProxy == false)
        #expect(try DaemonConfiguration.parse(text: "[server]\nsensor_proxy = on\n", path: "t.conf").server.sensorProxy)
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.parse(text: "[server]\nsensor_proxy = maybe\n", path: "t.conf")
        }
    }

    /// The property values from the core's state, hand-derived.
    @Test func propertiesFromTheDetectedOrientation() {
        let start = SensorProxyReading.initial
        let upright = SensorProxyReading.next(sensor: .replay, sensorRunning: true, detected: .rightUp, elevationDegrees: 10, previous: start)
        #expect(upright == SensorProxyReading(hasAccelerometer: true, orientation: "right-up", tilt: "vertical"))
        let leaning = SensorProxyReading.next(sensor: .ok, sensorRunning: true, detected: .rightUp, elevationDegrees: 45, previous: upright)
        #expect(leaning.tilt == "tilted-up")
        let down = SensorProxyReading.next(sensor: .ok, sensorRunning: true, detected: .normal, elevationDegrees: -30, previous: leaning)
        #expect(down.tilt == "tilted-down" && down.orientation == "normal")
        // Lying flat: the last edge orientation stays (iio-sensor-proxy has no flat value).
        let flat = SensorProxyReading.next(sensor: .ok, sensorRunning: true, detected: .faceUp, elevationDegrees: 80, previous: leaning)
        #expect(flat == SensorProxyReading(hasAccelerometer: true, orientation: "right-up", tilt: "face-up"))
        let under = SensorProxyReading.next(sensor: .ok, sensorRunning: true, detected: .faceDown, elevationDegrees: -80, previous: flat)
        #expect(under.orientation == "right-up" && under.tilt == "face-down")
        // No estimate (sensor stopped): undefined, the tilt kept; a broken sensor is no accelerometer.
        let gone = SensorProxyReading.next(sensor: .error, sensorRunning: true, detected: .undefined,
                                           elevationDegrees: nil, previous: flat)
        #expect(gone == SensorProxyReading(hasAccelerometer: false, orientation: "undefined", tilt: "face-up"))
        // An IIO sensor nobody reads says absent ("not started") without looking: present until
        // a claim starts it and it is found missing.
        #expect(SensorProxyReading.next(sensor: .absent, sensorRunning: false, detected: .undefined,
                                        elevationDegrees: nil, previous: start).hasAccelerometer)
        #expect(!SensorProxyReading.next(sensor: .absent, sensorRunning: true, detected: .undefined,
                                         elevationDegrees: nil, previous: start).hasAccelerometer)
    }
}
