import CarouselProtocol
import MotionFusion
import Testing
@testable import CarouselDaemon

/// ORIENTATION reaches the watchers that asked for it, once per change; STATUS carries it;
/// `set_display_rotation` reaches the pipeline, also a pipeline that replaces it.
@Suite struct DaemonCoreOrientationTests {
    static let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 9.81, 0))

    @Test func onlyWatchersThatAskedGetOneLinePerChange() throws {
        var h = CoreHarness()
        let asking = h.connect(), plain = h.connect()
        _ = h.read(asking); _ = h.read(plain)
        h.send(#"{"cmd":"watch","orientation":true}"#, from: asking)
        h.send(#"{"cmd":"watch"}"#, from: plain)
        let first = h.read(asking)
        #expect(first.first?["orientation"]?.boolValue == true)  // WATCH echoes it
        // After its first STATE: the current ORIENTATION, then the current SENSOR every watcher gets.
        #expect(try first.suffix(2).first == WireJSONParser.parse(#"{"class":"ORIENTATION","orientation":"undefined"}"#))
        #expect(first.last?["class"]?.stringValue == "SENSOR")
        #expect(!h.read(plain).contains { $0["class"]?.stringValue == "ORIENTATION" })

        h.tilt.orientation = .leftUp
        h.now += 10 * CoreHarness.ms
        h.core.samplesArrived([Self.sample], now: h.now)
        h.core.samplesArrived([Self.sample], now: h.now + CoreHarness.ms)  // same: nothing new
        let changes = h.read(asking).filter { $0["class"]?.stringValue == "ORIENTATION" }
        #expect(changes.map { $0["orientation"]?.stringValue } == ["left-up"])
        #expect(!h.read(plain).contains { $0["class"]?.stringValue == "ORIENTATION" })

        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"status"}"#, from: c)
        #expect(h.read(c).first?["orientation"]?.stringValue == "left-up")

        // The sensor stopping drops the estimate: undefined.
        h.core.sensorStopped(now: h.now + 2 * CoreHarness.ms)
        #expect(h.read(asking).filter { $0["class"]?.stringValue == "ORIENTATION" }.map { $0["orientation"]?.stringValue }
                == ["undefined"])
    }

    @Test func displayRotationReachesThePipelineAndItsReplacement() {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_display_rotation","degrees":180}"#, from: c)
        #expect(h.read(c).last?["class"]?.stringValue == "ACK")
        #expect(h.tilt.displayRotations == [.degrees180])
        let replacement = ScriptedTilt()
        h.core.tiltPipeline = replacement
        #expect(replacement.displayRotations == [.degrees180])
    }
}
