import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing

/// (a) A real recording replayed through the whole pipeline (replay source → calibration →
/// fusion estimator → tilt mapper → engine → socket).
@Suite(.serialized) struct EndToEndReplayTests {
    /// x-io's Fusion example (135 s, 100 Hz) is level except for a roll excursion to about +60°
    /// at 32–36 s followed at once by one to about −55° at 37–41 s (accelerometer roll measured
    /// from the file). Starting on item 0 of a non-cyclic carousel, the +60° half pushes against
    /// the start (nothing moves); the −55° half, replayed at 20× (0.2 s) with 8 items/s at full
    /// tilt, moves it by more than one item. Afterwards the device is level and the carousel
    /// must rest exactly on a centered item (offset = index · p), announced by INDEX.
    @Test func recordingTiltsChangeTheIndexAndTheCarouselComesToRestCentered() throws {
        let daemon = try E2EDaemon("replay", overrides: [
            "sensor": ["source": "replay", "replay_file": TestPaths.dataset("xio-fusion-example/sensor_data.csv"),
                       "replay_speed": "20", "replay_loop": "no"],
            "tilt": ["enabled": "yes", "max_items_per_second": "8"],
            "carousel": ["count": "20"],
        ])
        let c = try daemon.client()
        try c.send(#"{"cmd":"watch","max_rate_hz":30}"#)
        #expect(try c.readJSON()["class"] == .string("WATCH"))
        #expect(try c.readJSON()["class"] == .string("LAYOUT"))
        let first = try c.readJSON()
        #expect(first.isState)
        #expect(first["index"] == .number(0))

        // 135 s at 20× is 6.8 s; read until 1.5 s past the end.
        let end = clinux_monotonic_ns() + 8_300_000_000
        var lines: [WireJSON] = []
        while clinux_monotonic_ns() < end {
            guard let line = try? c.readLine(timeoutSeconds: 0.5), let text = Optional(line) else { continue }
            if let v = try? WireJSONParser.parse(text) { lines.append(v) }
        }
        let states = lines.filter(\.isState)
        let indexEvents = lines.filter { $0["class"] == .string("INDEX") }
        #expect(lines.contains { $0["class"] == .string("SENSOR") && $0["status"] == .string("replay") })
        // The recording tilts by more than 30° both ways, and the carousel follows.
        let rolls = states.compactMap { $0["tilt"]?["roll_deg"]?.doubleValue }
        #expect((rolls.max() ?? 0) > 30)
        #expect((rolls.min() ?? 0) < -30)
        #expect(states.contains { $0["phase"] == .string("tilting") })
        #expect(!indexEvents.isEmpty)
        #expect(indexEvents.first?["previous"] == .number(0))
        #expect((indexEvents.first?["index"]?.doubleValue ?? 0) >= 1)
        // INDEX events chain: each `previous` is the index before.
        var resting = 0.0
        for e in indexEvents {
            #expect(e["previous"]?.doubleValue == resting)
            resting = e["index"]?.doubleValue ?? -1
        }
        // Level again: at rest, exactly centered on the last announced item.
        let last = try #require(states.last)
        #expect(last["phase"] == .string("idle"))
        #expect(last["velocity"] == .number(0))
        let index = try #require(last["index"]?.doubleValue)
        #expect(index == resting)
        #expect(last["offset"]?.doubleValue == index * 260)
        #expect(last["position"]?.doubleValue == index)
        #expect(abs(last["tilt"]?["roll_deg"]?.doubleValue ?? 99) < 3)
        // seq strictly increases.
        let seqs = states.compactMap { $0["seq"]?.doubleValue }
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try daemon.stop() == 0)
    }
}
