import CarouselEngine
import CarouselProtocol
import IIOSensors
import MotionFusion
import Testing
@testable import CarouselDaemon

/// A tilt pipeline that answers every sample with a scripted roll (degrees).
final class ScriptedTilt: TiltPipeline {
    var roll: Double = 0
    var orientation = DeviceOrientation.undefined
    var recentered = 0
    var displayRotations: [DisplayRotation] = []
    func process(_ sample: IMUSample) -> TiltReading? {
        TiltReading(rollDegrees: roll, pitchDegrees: 0, driveDegrees: roll, orientation: orientation)
    }
    func setDisplayRotation(_ rotation: DisplayRotation) { displayRotations.append(rotation) }
    func recenter() -> Bool { recentered += 1; roll = 0; return true }
}

/// Drives a `DaemonCore` with a scripted clock (nanoseconds) and reads what each client got.
struct CoreHarness {
    static let ms: Int64 = 1_000_000
    let core: DaemonCore
    let tilt = ScriptedTilt()
    var now: Int64 = 1_000_000_000
    var nextID = 1

    /// viewport 375 × 200, item 250 × 160, spacing 10: pitch p = 260 points; 10 items.
    init(limits: DaemonCore.Limits = DaemonCore.Limits()) {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                        item: CarouselSize(width: 250, height: 160), spacing: 10, count: 10)
        core = DaemonCore(engine: CarouselEngine(configuration: CarouselConfiguration(geometry: geometry), time: 0),
                          tiltPipeline: tilt, limits: limits, sensorStatus: .replay, now: now)
    }

    mutating func connect(control: Bool = true) -> ClientID {
        let id = ClientID(nextID)
        nextID += 1
        core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: control ? 0 : 65534, gid: 0),
                             mayControl: control, now: now)
        return id
    }

    func send(_ line: String, from id: ClientID) {
        core.received(Array((line + "\n").utf8), from: id, now: now)
    }

    /// Takes everything queued for `id` (as if the socket accepted it all) and parses each line.
    func read(_ id: ClientID) -> [WireJSON] {
        let bytes = Array(core.pendingOutput(for: id))
        core.wrote(bytes.count, to: id, blocked: false, now: now)
        return bytes.split(separator: 0x0A).compactMap { try? WireJSONParser.parse($0) }
    }

    /// Advances the clock to each deadline until `until`, reading `id` after each tick.
    mutating func run(until end: Int64, reading id: ClientID) -> [(Int64, WireJSON)] {
        var got: [(Int64, WireJSON)] = []
        while let d = core.nextDeadline, d <= end {
            now = max(now, d)
            core.tick(now: now)
            for v in read(id) { got.append((now, v)) }
        }
        now = end
        return got
    }
}

@Suite struct DaemonCoreTests {
    @Test func greetingThenWatchGivesWatchAndOneState() throws {
        var h = CoreHarness()
        let c = h.connect()
        #expect(try h.read(c) == [WireJSONParser.parse(#"{"class":"VERSION","release":"\#(carouseldRelease)","proto_major":1,"proto_minor":2}"#)])
        #expect(!h.core.needsSamples)
        h.send(#"{"cmd":"watch","max_rate_hz":500}"#, from: c)
        let got = h.read(c)
        #expect(got.count == 4)
        #expect(try got[3] == WireJSONParser.parse(#"{"class":"SENSOR","status":"replay"}"#))
        // The server caps the rate at its max_rate_hz (60).
        #expect(try got[0] == WireJSONParser.parse(#"{"class":"WATCH","enable":true,"items":false,"max_rate_hz":60}"#))
        #expect(try got[1] == WireJSONParser.parse(#"{"class":"LAYOUT","viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"spacing":10,"axis":"horizontal","direction":"ltr","style":"linear","cyclic":false,"count":10,"align":"center","contain":false,"group_size":1}"#))
        #expect(got[2]["class"] == .string("STATE"))
        #expect(got[2]["index"] == .number(0))
        #expect(got[2]["offset"] == .number(0))
        #expect(got[2]["phase"] == .string("idle"))
        #expect(got[2]["count"] == .number(10))
        #expect(got[2]["sensor"] == .string("replay"))
        #expect(try got[2]["tilt"] == WireJSONParser.parse(#"{"roll_deg":null,"pitch_deg":null,"enabled":true}"#))
        #expect(h.core.needsSamples)
        // Idle: nothing due, nothing sent.
        #expect(h.core.nextDeadline == nil)
        h.core.tick(now: h.now + 500 * CoreHarness.ms)
        #expect(h.read(c).isEmpty)
    }

    @Test func scrollToAnimatesAtFrameRateAndEndsCenteredWithIndex() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.send(#"{"cmd":"scroll_to","index":3,"animated":true}"#, from: c)
        let first = h.read(c)
        #expect(try first.first == WireJSONParser.parse(#"{"class":"ACK","cmd":"scroll_to"}"#))
        let got = h.run(until: h.now + 5_000 * CoreHarness.ms, reading: c)
        let states = got.filter { $0.1["class"] == .string("STATE") }
        #expect(states.count > 5)
        // Never two STATEs closer than 1/60 s.
        for (a, b) in zip(states, states.dropFirst()) { #expect(b.0 - a.0 >= 16_666_666) }
        let seqs = states.compactMap { $0.1["seq"]?.doubleValue }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        let last = try #require(states.last?.1)
        #expect(last["phase"] == .string("idle"))
        #expect(last["index"] == .number(3))
        #expect(last["offset"] == .number(780)) // 3 · p, p = 260
        #expect(last["position"] == .number(3))
        #expect(last["velocity"] == .number(0))
        let index = got.filter { $0.1["class"] == .string("INDEX") }.map(\.1)
        #expect(try index == [WireJSONParser.parse(#"{"class":"INDEX","index":3,"previous":0}"#)])
        // At rest: no more wake-ups.
        #expect(h.core.nextDeadline == nil)
    }

    @Test func slowWatcherGetsOnlyTheNewestStateAndOthersAreNotHeldBack() throws {
        var h = CoreHarness()
        let slow = h.connect()
        let fast = h.connect()
        for c in [slow, fast] { h.send(#"{"cmd":"watch"}"#, from: c) }
        _ = h.read(fast)
        // The slow client's socket is full: its WATCH, LAYOUT and first STATE are still queued.
        h.core.wrote(0, to: slow, blocked: true, now: h.now)
        let queued = h.core.pendingOutput(for: slow).count
        h.send(#"{"cmd":"scroll_to","index":2,"animated":true}"#, from: fast)
        let fastGot = h.run(until: h.now + 300 * CoreHarness.ms, reading: fast)
        #expect(fastGot.filter { $0.1["class"] == .string("STATE") }.count >= 10)
        // Nothing more was queued for the slow client while it was blocked.
        #expect(h.core.pendingOutput(for: slow).count == queued)
        // It drains: after its old lines, exactly one more STATE, the newest (a seq gap).
        let drained = h.read(slow)
        #expect(drained.map { $0["class"] } == [.string("VERSION"), .string("WATCH"), .string("LAYOUT"), .string("STATE"), .string("SENSOR")])
        let after = h.read(slow)
        #expect(after.count == 1)
        let newestSeq = fastGot.last { $0.1["class"] == .string("STATE") }?.1["seq"]
        #expect(after.first?["seq"] == newestSeq)
    }

    @Test func rateLimitedWatcherGetsTheLateStateAtTheEndOfItsInterval() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch","max_rate_hz":10}"#, from: c)
        #expect(h.read(c).first?["max_rate_hz"] == .number(10))
        let start = h.now
        h.now += 10 * CoreHarness.ms
        h.send(#"{"cmd":"set_count","count":4}"#, from: c)
        // The change came 10 ms after the last STATE: the ACK and the new LAYOUT now (LAYOUT
        // is not rate-limited), the STATE at +100 ms.
        #expect(h.read(c).map { $0["class"] } == [.string("ACK"), .string("LAYOUT")])
        #expect(h.core.nextDeadline == start + 100 * CoreHarness.ms)
        let got = h.run(until: start + 200 * CoreHarness.ms, reading: c)
        #expect(got.count == 1)
        #expect(got.first?.0 == start + 100 * CoreHarness.ms)
        #expect(got.first?.1["count"] == .number(4))
    }

    @Test func controlCommandsNeedRights() throws {
        var h = CoreHarness()
        let c = h.connect(control: false)
        _ = h.read(c)
        h.send(#"{"cmd":"set_count","count":3}"#, from: c)
        let e = try #require(h.read(c).first)
        #expect(e["class"] == .string("ERROR"))
        #expect(e["code"] == .string("not_allowed"))
        #expect(e["cmd"] == .string("set_count"))
        h.send(#"{"cmd":"poll"}"#, from: c)
        let p = try #require(h.read(c).first)
        #expect(p["class"] == .string("STATE"))
        #expect(p["count"] == .number(10))
    }

    /// scroll_to past the count names the items there are as a closed range (as remove_items does),
    /// and says plainly when there are none: "0 is out of range 0..<0" read as nonsense on MQTT's
    /// error topic.
    @Test func scrollToPastTheCountNamesTheItemsThereAre() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_count","count":1}"#, from: c)
        h.send(#"{"cmd":"scroll_to","index":1}"#, from: c)
        h.send(#"{"cmd":"set_count","count":0}"#, from: c)
        h.send(#"{"cmd":"scroll_to","index":0}"#, from: c)
        let errors = h.read(c).filter { $0["class"] == .string("ERROR") }
        #expect(errors.map { $0["message"] } == [
            .string("field 'index': 1 is out of range 0…0"), .string("field 'index': the carousel has no items, got 0"),
        ])
    }

    @Test func badInputKeepsTheConnectionAndTooLongClosesIt() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send("{nope", from: c)
        h.send(#"{"cmd":"jump"}"#, from: c)
        h.send(#"{"cmd":"scroll_to","index":10}"#, from: c)
        let errors = h.read(c)
        #expect(errors.map { $0["code"] } == [.string("bad_json"), .string("unknown_cmd"), .string("bad_field")])
        #expect(errors[2]["message"] == .string("field 'index': 10 is out of range 0…9"))
        h.send(#"{"cmd":"poll"}"#, from: c)
        #expect(h.read(c).first?["class"] == .string("STATE"))
        h.core.received([UInt8](repeating: 0x41, count: 65537), from: c, now: h.now)
        let tooLong = h.read(c)
        #expect(tooLong.first?["code"] == .string("too_long"))
        #expect(h.core.isClosing(c))
        h.send(#"{"cmd":"poll"}"#, from: c)
        #expect(h.read(c).isEmpty)
    }

    @Test func extraConnectionGetsTooManyClients() throws {
        var h = CoreHarness(limits: DaemonCore.Limits(maxClients: 2))
        let a = h.connect(), b = h.connect(), extra = h.connect()
        #expect(h.read(a).first?["class"] == .string("VERSION"))
        #expect(h.read(b).first?["class"] == .string("VERSION"))
        let e = h.read(extra)
        #expect(e.count == 1)
        #expect(e.first?["code"] == .string("too_many_clients"))
        #expect(h.core.isClosing(extra))
        // It lingers at most 2 s for the client's EOF, then the shell closes it.
        #expect(h.core.expiredLingering(now: h.now + 2_000_000_000) == [extra])
    }

    @Test func clientOverTheOutputBoundIsDropped() throws {
        var h = CoreHarness(limits: DaemonCore.Limits(outputLimit: 4096))
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"samples"}"#, from: c)
        #expect(h.read(c).first?["class"] == .string("ACK"))
        h.core.wrote(0, to: c, blocked: true, now: h.now)
        let sample = IMUSample(timestampNanoseconds: 5, accel: Vector3(0, 0, 9.81), gyro: nil)
        h.core.samplesArrived([IMUSample](repeating: sample, count: 10), now: h.now)
        #expect(!h.core.shouldClose(c))
        let line = try WireJSONParser.parse(Array(h.core.pendingOutput(for: c).split(separator: 0x0A)[0]))
        #expect(try line == WireJSONParser.parse(#"{"class":"SAMPLE","time_ns":5,"accel":[0,0,9.81],"gyro":null}"#))
        var dropped: [(ClientID, PeerCredentials, String)] = []
        h.core.clientDropped = { dropped.append(($0, $1, $2)) }
        h.core.samplesArrived([IMUSample](repeating: sample, count: 100), now: h.now)
        #expect(h.core.shouldClose(c))
        // One report, naming the client, its credentials and the bound.
        #expect(dropped.count == 1)
        #expect(dropped.first?.0 == c)
        #expect(dropped.first?.1 == PeerCredentials(pid: 1, uid: 0, gid: 0))
        #expect(dropped.first?.2.contains("4096-byte bound") == true)
    }

    /// Lines of `id`'s queue that are still unsent, parsed.
    private func queued(_ h: CoreHarness, _ id: ClientID) -> [WireJSON] {
        Array(h.core.pendingOutput(for: id)).split(separator: 0x0A).compactMap { try? WireJSONParser.parse($0) }
    }

    @Test func anItemsWatcherThatReadsKeepsAtMostOneStateQueuedDuringAnimation() throws {
        // Bound = 1.5 STATE-with-items lines: two queued STATEs would pass it (the reviewer's
        // ~219 KB STATEs against 256 KiB, scaled down).
        var probe = CoreHarness()
        let p = probe.connect()
        _ = probe.read(p)
        probe.send(#"{"cmd":"watch","items":true}"#, from: p)
        let reply = Array(probe.core.pendingOutput(for: p))
        let stateBytes = reply.split(separator: 0x0A)[2].count + 1 // WATCH, LAYOUT, STATE
        // At least the whole watch reply, which is queued at once (no writer in the harness).
        var h = CoreHarness(limits: DaemonCore.Limits(outputLimit: max(stateBytes * 3 / 2, reply.count)))
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch","items":true}"#, from: c)
        _ = h.read(c)
        h.send(#"{"cmd":"scroll_to","index":5,"animated":true}"#, from: c)
        _ = h.read(c)
        var published: [WireJSON] = []
        // Three frames in one loop pass: the shell has not written between them.
        for _ in 0..<3 {
            h.now += 17 * CoreHarness.ms
            h.core.tick(now: h.now)
            #expect(!h.core.shouldClose(c))
            let q = queued(h, c)
            #expect(q.count == 1)
            #expect(q.first?["class"] == .string("STATE"))
            published.append(contentsOf: q)
        }
        // The first frame's STATE is the one queued; the newer two were coalesced.
        let first = try #require(published.first)
        #expect(published.allSatisfy { $0 == first })
        #expect(h.read(c) == [first])
        // Drained: the newest snapshot goes out at once (its rate interval has passed), with a
        // seq gap showing the coalescing.
        let next = h.read(c)
        #expect(next.count == 1)
        let firstSeq = try #require(first["seq"]?.doubleValue)
        #expect(next.first?["seq"]?.doubleValue == firstSeq + 2)
        #expect(next.first?["items"] != nil)
    }

    @Test func aDrainedQueueReusesItsBufferForTheNextState() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.send(#"{"cmd":"scroll_to","index":5,"animated":true}"#, from: c)
        _ = h.read(c)
        // As the shell does: `flush` hands the queued bytes to `send`, which takes them all.
        func writeAll() -> (address: UInt, count: Int) {
            var written: (address: UInt, count: Int) = (0, 0)
            _ = h.core.flush(c, now: h.now) { bytes in
                written = (UInt(bitPattern: bytes.baseAddress), bytes.count)
                return .wrote(bytes.count)
            }
            return written
        }
        var addresses: Set<UInt> = []
        for _ in 0..<5 {
            h.now += 17 * CoreHarness.ms
            h.core.tick(now: h.now)
            let w = writeAll()
            #expect(w.count > 100) // one STATE each frame
            addresses.insert(w.address)
        }
        // Every frame's STATE was queued in the same storage: no allocation per client per STATE.
        #expect(addresses.count == 1)
        #expect(h.core.pendingOutput(for: c).isEmpty)
        #expect(h.core.pendingOutput(for: ClientID(99)).isEmpty)
    }

    @Test func indexWaitsForTheCoalescedStateThatShowsTheRest() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.send(#"{"cmd":"scroll_to","index":3,"animated":true}"#, from: c)
        _ = h.read(c)
        h.now += 17 * CoreHarness.ms
        h.core.tick(now: h.now)
        let moving = queued(h, c)
        #expect(moving.map { $0["class"] } == [.string("STATE")])
        #expect(moving.first?["phase"] == .string("animating"))
        // The animation ends while that STATE is still unsent: neither the resting STATE nor
        // the INDEX may be queued yet, and the INDEX must not overtake the STATE.
        h.now += 5_000 * CoreHarness.ms
        h.core.tick(now: h.now)
        #expect(queued(h, c) == moving)
        #expect(h.core.nextDeadline == nil)
        #expect(h.read(c) == moving)
        let rest = h.read(c)
        #expect(rest.map { $0["class"] } == [.string("STATE"), .string("INDEX")])
        #expect(rest.first?["phase"] == .string("idle"))
        #expect(rest.first?["offset"] == .number(780)) // 3 · 260
        #expect(try rest.last == WireJSONParser.parse(#"{"class":"INDEX","index":3,"previous":0}"#))
        #expect(h.read(c).isEmpty)
    }

    @Test func tiltDrivesTheOffsetAndRestsOnACenteredItem() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        // roll −14° with dead zone 3°, max 25°: speed = 3 · 260 · (11 / 22) = 390 pt/s toward higher indices.
        h.tilt.roll = -14
        h.now += 100 * CoreHarness.ms
        let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))
        h.core.samplesArrived([sample], now: h.now)
        let first = h.read(c)
        #expect(first.first?["phase"] == .string("tilting"))
        #expect(first.first?["tilt"]?["roll_deg"] == .number(-14))
        let t0 = h.now
        // Stop at 0.9 s: offset 351 pt, position 1.35, so the snap goes back to item 1.
        let moving = h.run(until: t0 + 900 * CoreHarness.ms, reading: c)
        #expect(moving.count >= 50)
        for (_, state) in moving {
            // offset = 390 pt/s · elapsed, exactly integrated by the engine.
            let elapsed = Double(Int64(state["time_ns"]?.doubleValue ?? 0) - t0) * 1e-9
            #expect(abs((state["offset"]?.doubleValue ?? -1) - 390 * elapsed) < 1e-6)
            #expect(state["velocity"] == .number(390))
        }
        h.tilt.roll = 0
        h.core.samplesArrived([sample], now: h.now)
        let rest = h.run(until: h.now + 3_000 * CoreHarness.ms, reading: c).map(\.1)
        let lastState = try #require(rest.last { $0["class"] == .string("STATE") })
        #expect(lastState["phase"] == .string("idle"))
        #expect(lastState["index"] == .number(1))
        #expect(lastState["offset"] == .number(260))
        #expect(try rest.contains(WireJSONParser.parse(#"{"class":"INDEX","index":1,"previous":0}"#)))
    }

    @Test func whenTheSensorStopsTheStaleTiltNoLongerDrivesTheCarousel() throws {
        var h = CoreHarness()
        let c = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.tilt.roll = -14  // 390 pt/s toward higher indices (see the test above)
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))], now: h.now)
        #expect(h.read(c).first?["phase"] == .string("tilting"))
        // 0.9 s later the last watcher leaves; the shell stops the sensor.
        _ = h.run(until: h.now + 900 * CoreHarness.ms, reading: c)
        h.core.clientDisconnected(c)
        h.core.sensorStopped(now: h.now)
        // Offset 351 pt (position 1.35): the carousel settles on item 1 instead of scrolling on.
        let watcher = h.connect()
        _ = h.read(watcher)
        h.send(#"{"cmd":"watch"}"#, from: watcher)
        let first = try #require(h.read(watcher).first { $0["class"] == .string("STATE") })
        // No tilt until the next sample, not the −14° of a sensor run that ended.
        #expect(first["tilt"]?["roll_deg"] == .null)
        #expect(first["tilt"]?["pitch_deg"] == .null)
        let rest = h.run(until: h.now + 3_000 * CoreHarness.ms, reading: watcher).map(\.1)
        let last = try #require(rest.last { $0["class"] == .string("STATE") })
        #expect(last["phase"] == .string("idle"))
        #expect(last["index"] == .number(1))
        #expect(last["offset"] == .number(260))
        // At rest: nothing due, no wake-ups.
        #expect(h.core.nextDeadline == nil)
    }

    @Test func smallTiltChangesAreNotChanges() throws {
        var h = CoreHarness()
        let c = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))
        h.tilt.roll = 1.0 // inside the dead zone: nothing moves
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        #expect(h.read(c).first?["tilt"]?["roll_deg"] == .number(1))
        h.tilt.roll = 1.09
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        #expect(h.read(c).isEmpty)
        h.tilt.roll = 1.1
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([sample], now: h.now)
        #expect(h.read(c).first?["tilt"]?["roll_deg"] == .number(1.1))
    }

    @Test func sensorStatusChangeSendsSensorAndState() throws {
        var h = CoreHarness()
        let c = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.now += 100 * CoreHarness.ms
        h.core.sensorChanged(status: .absent, name: nil, message: "no IIO accelerometer", now: h.now)
        let got = h.read(c)
        #expect(try got.first == WireJSONParser.parse(#"{"class":"SENSOR","status":"absent","message":"no IIO accelerometer"}"#))
        #expect(got.dropFirst().first?["sensor"] == .string("absent"))
    }

    @Test func anotherDeviceWithTheSameNameAndStatusSendsSensor() throws {
        // A convertible's display hub plugged back: the daemon moves from the base's accel_3d to
        // the display's, status ok and name accel_3d both times; watchers must learn of it.
        var h = CoreHarness()
        let c = h.connect()
        let base = "/sys/devices/virtual/misc/uhid/0006:1209:0002.0001/HID-SENSOR-200073.0.auto/iio:device0"
        let display = "/sys/devices/virtual/misc/uhid/0006:1209:0001.0003/HID-SENSOR-200073.1.auto/iio:device1"
        let gyro = "/sys/devices/virtual/misc/uhid/0006:1209:0001.0003/HID-SENSOR-200076.2.auto/iio:device2"
        h.core.sensorChanged(status: .ok, name: "accel_3d", message: nil, path: base, now: h.now)
        h.send(#"{"cmd":"watch"}"#, from: c)
        let first = h.read(c).filter { $0["class"] == .string("SENSOR") }
        #expect(try first == [WireJSONParser.parse(#"{"class":"SENSOR","status":"ok","name":"accel_3d","path":"\#(base)"}"#)])
        h.now += 100 * CoreHarness.ms
        h.core.sensorChanged(status: .ok, name: "accel_3d", message: nil, path: display, gyroPath: gyro, now: h.now)
        let moved = h.read(c).filter { $0["class"] == .string("SENSOR") }
        #expect(try moved == [WireJSONParser.parse(
            #"{"class":"SENSOR","status":"ok","name":"accel_3d","path":"\#(display)","gyro_path":"\#(gyro)"}"#)])
        // The same devices again: nothing new.
        h.now += 100 * CoreHarness.ms
        h.core.sensorChanged(status: .ok, name: "accel_3d", message: nil, path: display, gyroPath: gyro, now: h.now)
        #expect(h.read(c).filter { $0["class"] == .string("SENSOR") }.isEmpty)
    }

    @Test func statusCountsClientsAndWatchers() throws {
        var h = CoreHarness()
        let a = h.connect(), b = h.connect(control: false)
        h.send(#"{"cmd":"watch"}"#, from: a)
        h.core.configPath = "/etc/carouseld/carouseld.conf"
        h.now += 2_500 * CoreHarness.ms
        h.send(#"{"cmd":"status"}"#, from: b)
        let s = try #require(h.read(b).last)
        #expect(s["class"] == .string("STATUS"))
        #expect(s["clients"] == .number(2))
        #expect(s["watchers"] == .number(1))
        #expect(s["uptime_s"] == .number(2.5))
        #expect(s["sensor"] == .string("replay"))
        #expect(s["config_path"] == .string("/etc/carouseld/carouseld.conf"))
    }

    @Test func samplesAreWantedOnlyWhileSomeoneWatchesOrStreams() throws {
        var h = CoreHarness()
        let a = h.connect(), b = h.connect()
        #expect(!h.core.needsSamples)
        h.send(#"{"cmd":"watch"}"#, from: a)
        #expect(h.core.needsSamples)
        h.send(#"{"cmd":"watch","enable":false}"#, from: a)
        #expect(!h.core.needsSamples)
        h.send(#"{"cmd":"samples"}"#, from: b)
        #expect(h.core.needsSamples)
        h.core.clientDisconnected(b)
        #expect(!h.core.needsSamples)
        var always = CoreHarness(limits: DaemonCore.Limits(alwaysOn: true))
        _ = always.connect()
        #expect(always.core.needsSamples)
    }

    @Test func indexFollowsTheStateThatShowsTheRestEvenInsideTheRateInterval() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.now += 1 * CoreHarness.ms
        h.send(#"{"cmd":"scroll_to","index":4,"animated":false}"#, from: c)
        let got = h.read(c)
        #expect(got.map { $0["class"] } == [.string("ACK"), .string("STATE"), .string("INDEX")])
        #expect(got[1]["offset"] == .number(1040)) // 4 · 260
        #expect(try got[2] == WireJSONParser.parse(#"{"class":"INDEX","index":4,"previous":0}"#))
    }

    /// The frame timer follows the engine's `isMoving`: a held tilt that moves nothing (position
    /// mode, or velocity mode pushing against an end) wakes nobody until the next sample.
    @Test func aTiltThatMovesNothingCausesNoWakeUps() throws {
        var h = CoreHarness()
        let c = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: c)
        h.send(#"{"cmd":"set_tilt","mode":"position"}"#, from: c)
        _ = h.read(c)
        // Position mode, roll −12.5° of max 25°: displacement 0.5 · 0.5 · 260 = 65 points.
        h.tilt.roll = -12.5
        h.now += 100 * CoreHarness.ms
        let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))
        h.core.samplesArrived([sample], now: h.now)
        let tilted = try #require(h.read(c).first)
        #expect(tilted["phase"] == .string("tilting"))
        #expect(tilted["offset"] == .number(65))
        #expect(h.core.nextDeadline == nil)
        #expect(h.run(until: h.now + 2_000 * CoreHarness.ms, reading: c).isEmpty)

        // Velocity mode at the last item (9 · 260 = 2340), tilted toward higher indices: pinned.
        var v = CoreHarness()
        let w = v.connect()
        v.send(#"{"cmd":"watch"}"#, from: w)
        v.send(#"{"cmd":"scroll_to","index":9,"animated":false}"#, from: w)
        _ = v.read(w)
        _ = v.read(w)  // the STATE and INDEX that waited behind the first STATE
        v.tilt.roll = -14
        v.now += 100 * CoreHarness.ms
        v.core.samplesArrived([sample], now: v.now)
        let pinned = try #require(v.read(w).first)
        #expect(pinned["tilt"]?["roll_deg"] == .number(-14))
        #expect(pinned["offset"] == .number(2340))
        #expect(pinned["velocity"] == .number(0))
        #expect(v.core.nextDeadline == nil)
        #expect(v.run(until: v.now + 2_000 * CoreHarness.ms, reading: w).isEmpty)
    }
}
