import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ORIENTATION across a stop of the sensor, with the real pipeline: the daemon replays a device
/// lying flat for 1 s and then held on an edge (turned 60° about y, so the up vector's elevation
/// is 30°, far below the 65° of `face-up`), from its start each time the sensor starts.
@Suite(.serialized) struct EndToEndOrientationTests {
    static func flatThenEdgeRecording() throws -> String {
        let path = TestTemp.path("flat-then-edge.csv")
        let g = 9.80665, angle = 60 * Double.pi / 180
        var text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<100 { text += "\(k * 10_000_000),0,0,\(g),0,0,0\n" }
        for k in 100..<300 { text += "\(k * 10_000_000),\(g * sin(angle)),0,\(g * cos(angle)),0,0,0\n" }
        try TestTemp.write(text, to: path)
        return path
    }

    static func orientations(_ lines: [WireJSON]) -> [String] {
        lines.filter { $0["class"] == .string("ORIENTATION") }.compactMap { $0["orientation"]?.stringValue }
    }

    /// A watcher that comes after the sensor was stopped gets `undefined`, then the orientation
    /// of the first new samples (`face-up`) at once: not the edge the device was on when the
    /// last watcher left, which a dwell would otherwise hold for another 0.5 s.
    @Test func aNewWatchDoesNotReportTheOrientationFromBeforeTheSensorStopped() throws {
        let recording = try Self.flatThenEdgeRecording()
        defer { unlink(recording) }
        let daemon = try E2EDaemon("orientation-restart", overrides: E2EDaemon.steadyRollSensor(recording))
        let c = try daemon.client()
        try c.send(#"{"cmd":"watch","orientation":true}"#)
        let first = Self.orientations(try c.readUntil {
            $0["class"] == .string("ORIENTATION") && !["undefined", "face-up"].contains($0["orientation"]?.stringValue ?? "")
        })
        let edge = try #require(first.last)
        #expect(first.first == "undefined" && first.dropFirst().first == "face-up", "\(first)")
        #expect(edge == "left-up" || edge == "right-up", "\(first)")

        // Nobody watches: the sensor stops. The next watch starts it again, from the flat start.
        try c.send(#"{"cmd":"watch","enable":false}"#)
        _ = try c.readUntil { $0["class"] == .string("WATCH") }
        try c.send(#"{"cmd":"watch","orientation":true}"#)
        let again = Self.orientations(try c.readUntil {
            $0["class"] == .string("ORIENTATION") && $0["orientation"] != .string("undefined")
        })
        #expect(again == ["undefined", "face-up"], "after the restart: \(again)")
        #expect(try daemon.stop() == 0)
    }
}
