import CarouselEngine
import CarouselProtocol
import IIOSensors
import MotionFusion
import Testing
@testable import CarouselDaemon

/// `recenter_tilt` reads the sensor on demand and never recenters on a stale estimate; a reload
/// keeps what clients set at runtime.
@Suite struct DaemonCoreRecenterReloadTests {
    let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))

    @Test func recenterBeforeAnyoneWatchedReadsTheSensorThenAnswersInOrder() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        #expect(!h.core.needsSamples)
        h.send(#"{"cmd":"recenter_tilt"}"#, from: c)
        h.send(#"{"cmd":"poll"}"#, from: c)
        // Nothing yet: the request waits for a sample, and the poll behind it waits too; the
        // shell is to stop reading the connection meanwhile.
        #expect(h.read(c).isEmpty)
        #expect(h.core.needsSamples)
        #expect(!h.core.acceptsInput(from: c))
        var due: [ClientID] = []
        h.core.takeClientsToFlush(into: &due)
        due = []
        #expect(h.core.nextDeadline == h.now + DaemonCore.recenterWaitNanoseconds)
        // The shell starts the (replay) sensor; its first sample gives an estimate of −14°.
        h.core.sensorStarted(now: h.now)
        h.tilt.roll = -14
        h.now += 30 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        // The wait is over: the connection is due in the shell, which reads it again.
        #expect(h.core.acceptsInput(from: c))
        h.core.takeClientsToFlush(into: &due)
        #expect(due == [c])
        let got = h.read(c)
        #expect(h.tilt.recentered == 1)
        #expect(try got.first == WireJSONParser.parse(#"{"class":"ACK","cmd":"recenter_tilt"}"#))
        #expect(got.dropFirst().first?["class"] == .string("STATE"))
        #expect(got.dropFirst().first?["tilt"]?["roll_deg"] == .number(0))
        // Answered: nobody needs the sensor any more.
        #expect(!h.core.needsSamples)
    }

    @Test func recenterAfterTheLastWatcherLeftWaitsForAFreshEstimate() throws {
        var h = CoreHarness()
        let w = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: w)
        h.core.sensorStarted(now: h.now)
        h.tilt.roll = 2
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        h.core.clientDisconnected(w)
        h.core.sensorStopped(now: h.now)
        // The estimator still holds the 2° of a sensor run that ended: not a reason to recenter.
        let c = h.connect()
        _ = h.read(c)
        h.now += 5_000 * CoreHarness.ms
        h.send(#"{"cmd":"recenter_tilt"}"#, from: c)
        #expect(h.read(c).isEmpty)
        #expect(h.tilt.recentered == 0)
        h.core.sensorStarted(now: h.now)
        h.now += 10 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        #expect(h.tilt.recentered == 1)
        #expect(h.read(c).map { $0["class"] } == [.string("ACK")])
    }

    @Test func recenterFailsClearlyWhenTheSensorCannotDeliverOrStaysSilent() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        // Absent once started: refused at once, naming why.
        h.core.sensorChanged(status: .absent, name: nil, message: "no sensor matches 'x'", now: h.now)
        h.send(#"{"cmd":"recenter_tilt"}"#, from: c)
        #expect(h.read(c).isEmpty)
        h.core.sensorStarted(now: h.now)
        let refused = try #require(h.read(c).first)
        #expect(try refused == WireJSONParser.parse(
            #"{"class":"ERROR","code":"unavailable","message":"no tilt estimate: the sensor is absent (no sensor matches 'x')","cmd":"recenter_tilt"}"#))
        // Running and ok but silent: refused when the wait is over, not before.
        h.core.sensorChanged(status: .ok, name: "accel", message: nil, now: h.now)
        _ = h.read(c)
        h.send(#"{"cmd":"recenter_tilt"}"#, from: c)
        let start = h.now
        let got = h.run(until: start + 3_000 * CoreHarness.ms, reading: c)
        #expect(got.count == 1)
        #expect(got.first?.0 == start + DaemonCore.recenterWaitNanoseconds)
        #expect(got.first?.1["message"] == .string("no tilt estimate: the sensor delivered no sample within 2 s (sensor ok)"))
        #expect(h.tilt.recentered == 0)
    }

    /// A reload applies the file to what no client changed and keeps what one did.
    @Test func aReloadKeepsRuntimeOverridesAndAppliesTheRest() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_count","count":5}"#, from: c)
        h.send(#"{"cmd":"scroll_to","index":3,"animated":false}"#, from: c)
        h.send(#"{"cmd":"set_tilt","max_deg":20}"#, from: c)
        _ = h.read(c)
        // The file says 20 items, item width 200 (pitch 210), dead zone 5°, max 25°.
        var file = CarouselConfiguration(geometry: CarouselGeometry(
            viewport: CarouselSize(width: 375, height: 200), item: CarouselSize(width: 200, height: 160),
            spacing: 10, count: 20))
        file.tilt.deadZoneDegrees = 5
        file.tilt.maxDegrees = 25
        h.core.reconfigure(file, now: h.now)
        h.send(#"{"cmd":"poll"}"#, from: c)
        var state = try #require(h.read(c).last)
        #expect(state["count"] == .number(5))      // set_count kept
        #expect(state["offset"] == .number(630))   // item 3 at the file's pitch 210
        #expect(h.core.engine.tiltSettings.maxDegrees == 20)
        #expect(h.core.engine.tiltSettings.deadZoneDegrees == 5)
        // A display client's geometry survives a reload that changes the file's geometry.
        h.send(#"{"cmd":"set_geometry","viewport":{"width":800,"height":400},"item":{"width":300,"height":200},"spacing":20}"#, from: c)
        _ = h.read(c)
        file.geometry.item = CarouselSize(width: 250, height: 160)
        h.core.reconfigure(file, now: h.now)
        h.send(#"{"cmd":"poll"}"#, from: c)
        state = try #require(h.read(c).last)
        #expect(state["offset"] == .number(960))   // item 3 at the client's pitch 320
        #expect(h.core.engine.geometry.viewport == CarouselSize(width: 800, height: 400))
    }
}
