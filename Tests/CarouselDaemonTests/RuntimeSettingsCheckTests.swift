import CarouselEngine
import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// Hostile set_geometry / set_tilt / set_count values that the decoder alone let through (each
/// was ACKed): the engine clamped or silently changed them, and a 1e308 viewport froze the
/// carousel (infinite pitch: scroll_to was ACKed and nothing moved). Now they are `bad_field`,
/// the running settings are kept and the connection stays usable.
@Suite struct RuntimeSettingsCheckTests {
    private func errorMessage(_ h: CoreHarness, _ id: ClientID, _ line: String) -> String? {
        h.send(line, from: id)
        let got = h.read(id)
        guard got.count == 1, got[0]["class"] == .string("ERROR"), got[0]["code"] == .string("bad_field") else { return nil }
        return got[0]["message"]?.stringValue
    }

    @Test func hugeOrDegenerateGeometryIsBadFieldAndTheCarouselStillScrolls() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        #expect(errorMessage(h, id, #"{"cmd":"set_geometry","viewport":{"width":1e308,"height":1e308},"item":{"width":250,"height":160}}"#)
            == "field 'viewport.width': must be > 0 and ≤ 100000 points")
        #expect(errorMessage(h, id, #"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"spacing":200000}"#)
            == "field 'spacing': must lie within ±100000 points")
        // item 1e-300 + spacing 0: pitch below the engine's minimum. The item is too short,
        // not the spacing (given as 0).
        #expect(errorMessage(h, id, #"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":1e-300,"height":1e-300},"spacing":0}"#)
            == "field 'item.width': must make a pitch (item length + spacing) of at least 0.001 points")
        #expect(errorMessage(h, id, #"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":250,"height":1e-300},"spacing":0,"axis":"vertical"}"#)
            == "field 'item.height': must make a pitch (item length + spacing) of at least 0.001 points")
        // The geometry is unchanged (pitch 260): scroll_to 3 rests at offset 3 × 260 = 780.
        h.send(#"{"cmd":"scroll_to","index":3,"animated":false}"#, from: id)
        h.send(#"{"cmd":"poll"}"#, from: id)
        let state = h.read(id).first { $0["class"] == .string("STATE") }
        #expect(state?["offset"]?.doubleValue == 780)
        #expect(state?["index"]?.doubleValue == 3)
    }

    @Test func deadZoneAboveTheRunningMaximumIsBadField() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        // Defaults: dead zone 3°, max 25°. 30° alone would leave dead zone > max.
        #expect(errorMessage(h, id, #"{"cmd":"set_tilt","dead_zone_deg":30}"#)
            == "field 'max_deg': must be greater than dead_zone_deg (now dead_zone_deg 30, max_deg 25)")
        #expect(errorMessage(h, id, #"{"cmd":"set_tilt","max_deg":2}"#)
            == "field 'max_deg': must be greater than dead_zone_deg (now dead_zone_deg 3, max_deg 2)")
        #expect(errorMessage(h, id, #"{"cmd":"set_tilt","max_items_per_second":1e308}"#)
            == "field 'max_items_per_second': must lie in [0.01, 100] items per second, got 1e+308")
        #expect(h.core.engine.tiltSettings.deadZoneDegrees == 3)
        #expect(h.core.engine.tiltSettings.maxDegrees == 25)
        // A consistent pair is applied.
        h.send(#"{"cmd":"set_tilt","dead_zone_deg":30,"max_deg":40}"#, from: id)
        #expect(h.read(id).first?["class"] == .string("ACK"))
        #expect(h.core.engine.tiltSettings.deadZoneDegrees == 30)
        #expect(h.core.engine.tiltSettings.maxDegrees == 40)
    }

    @Test func countAboveTheEngineLimitIsBadField() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        #expect(errorMessage(h, id, #"{"cmd":"set_count","count":2000000000}"#)
            == "field 'count': out of range 0…1000000000, got 2000000000")
        #expect(h.core.engine.state.count == 10)
    }
}

/// The WATCH reply must state the rate in effect.
@Suite struct WatchRateTests {
    @Test func tinyAndHugeRatesAreClampedAndTheReplySaysSo() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        h.send(#"{"cmd":"watch","enable":false,"max_rate_hz":1e-300}"#, from: id)
        #expect(h.read(id).first?["max_rate_hz"]?.doubleValue == 0.001)
        h.send(#"{"cmd":"watch","enable":false,"max_rate_hz":1e9}"#, from: id)
        #expect(h.read(id).first?["max_rate_hz"]?.doubleValue == 60)
    }
}

/// The output bound is about a backlog, not one line: an items watcher whose STATE alone is
/// larger than the bound was dropped on its first STATE, though it was reading.
@Suite struct OutputBoundTests {
    @Test func aSingleLineOverTheBoundReachesAReadingClient() throws {
        // At rest on item 0 with viewport 5000 and pitch 260, all 10 items show: the STATE with
        // items is about 2 KB, over a 1200-byte bound (WATCH and LAYOUT before it are small).
        // The geometry changes while it watches, so the big STATE follows only the small ACK
        // and LAYOUT (the watch reply's SENSOR would come after it and pass the bound).
        var h = CoreHarness(limits: DaemonCore.Limits(outputLimit: 1200))
        let c = h.connect()
        h.send(#"{"cmd":"watch","items":true}"#, from: c)
        _ = h.read(c)
        h.now += 20 * CoreHarness.ms
        h.send(#"{"cmd":"set_geometry","viewport":{"width":5000,"height":200},"item":{"width":250,"height":160},"spacing":10}"#, from: c)
        #expect(h.core.pendingOutput(for: c).count > 1200)
        let got = h.read(c)
        #expect(!h.core.shouldClose(c))
        #expect(got.map { $0["class"]?.stringValue } == ["ACK", "LAYOUT", "STATE"])
        let items = try #require(got.last?["items"]?.arrayValue)
        #expect(items.first?["index"]?.doubleValue == 0)
        // A backlog over the bound still drops it: blocked, then ACK + error lines pile up.
        h.core.wrote(0, to: c, blocked: true, now: h.now)
        h.send(#"{"cmd":"scroll_to","index":1,"animated":false}"#, from: c)
        for _ in 0..<30 { h.send(#"{"cmd":"nope"}"#, from: c) } // ~60 bytes each
        #expect(h.core.shouldClose(c))
    }
}

/// "A slow client receives only the newest STATE when it drains": a partial write (the kernel
/// took part of the queue) is not a drain; a new STATE was stacked on the unsent rest.
@Suite struct DrainTests {
    @Test func aPartialWriteDoesNotQueueAnotherState() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"watch","max_rate_hz":10}"#, from: c)
        _ = h.read(c)
        h.send(#"{"cmd":"scroll_to","index":3}"#, from: c) // animated: STATEs while moving
        h.now += 200 * CoreHarness.ms
        h.core.tick(now: h.now)
        let queued = h.core.pendingOutput(for: c).count
        #expect(queued > 0)
        // 50 ms later (inside the 100 ms interval) the carousel has moved: a new snapshot,
        // held back. At 150 ms the kernel takes 1 byte and the rest is still queued: the held
        // STATE must wait for the drain.
        h.now += 50 * CoreHarness.ms
        h.core.tick(now: h.now)
        let before = h.core.pendingOutput(for: c).count
        #expect(before == queued)
        h.now += 100 * CoreHarness.ms
        h.core.wrote(1, to: c, blocked: false, now: h.now)
        #expect(h.core.pendingOutput(for: c).count == before - 1)
    }
}
