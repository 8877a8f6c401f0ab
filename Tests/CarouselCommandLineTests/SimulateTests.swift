import Testing
#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CarouselEngine
import CarouselTestSupport
@testable import CarouselCommandLine

@Suite struct SimulateTests {
    func number(_ v: JSONValue?) -> Double { v?.double ?? .nan }

    /// Momentum 0.998 from offset 0 at 1000 pt/s, pitch 260: rest point 499.5 → nearest(1.92) = 2
    /// → final offset 520.
    @Test func flingExampleLandsOnItemTwo() {
        let run = runInProcess(["simulate", example("fling-momentum.json")])
        #expect(run.status == .ok)
        #expect(run.stderr == "")
        let frames = run.frames
        #expect(frames.count == 3)
        #expect(frames.map { number($0["t"]) } == [0, 0.5, 4])
        #expect(number(frames.first?["velocity"]) == 1000)
        #expect(frames.first?["phase"]?.string == "decelerating")
        // x(τ) = 520 − 520 e^(−k τ), k = 1000 / 520: the release velocity is kept and decays
        // exponentially like UIScrollView's.
        #expect(abs(number(frames[1]["offset"]) - 321.20177809611806) < 1e-9)
        let last = frames.last
        #expect(number(last?["offset"]) == 520)
        #expect(number(last?["position"]) == 2)
        #expect(number(last?["index"]) == 2)
        #expect(last?["phase"]?.string == "idle")
        // Item 2 centered in the 375×200 viewport, items 1 and 3 a pitch away.
        let items = (last?["items"]?.array ?? []).filter { abs(($0["center"]?[0]?.double ?? 1e9) - 187.5) < 187.5 + 125 }
        #expect(items.compactMap { $0["index"]?.double } == [1, 2, 3])
        #expect(items.compactMap { $0["center"]?[0]?.double } == [187.5 - 260, 187.5, 187.5 + 260])
        #expect(items.first?["size"] == .array([.number(250), .number(160)]))
        #expect(items.first?["transform"]?.array?.count == 16)
    }

    /// The issue's example scenario.
    @Test func tourExampleFollowsTheRules() {
        let run = runInProcess(["simulate", example("tour.json")])
        #expect(run.status == .ok)
        let frames = run.frames
        // every 0.1 until 4.0: 41 frames, t = 0, 0.1, …, 4.
        #expect(frames.count == 41)
        #expect(frames.map { number($0["t"]) } == (0...40).map { Double($0) / 10 })
        func frame(_ t: Double) -> JSONValue? { frames.first { number($0["t"]) == t } }
        // The drag crossed the 10 pt threshold at 290 and ended at 200: offset 90.
        #expect(number(frame(0.1)?["offset"]) == 90)
        #expect(frame(0.1)?["phase"]?.string == "decelerating")
        // set_offset 640: idle at once, no snap: position 2.46, index 2.
        #expect(number(frame(0.9)?["offset"]) == 640)
        #expect(frame(0.9)?["phase"]?.string == "idle")
        #expect(number(frame(0.9)?["index"]) == 2)
        // Tilt was disarmed by the drag and never returned to the dead zone: nothing moves.
        #expect(number(frame(1.4)?["offset"]) == 640)
        // The first outer-scroll sample only sets the baseline.
        #expect(number(frame(1.6)?["offset"]) == 640)
        #expect(frame(1.6)?["phase"]?.string == "idle")
        #expect(frame(2.0)?["phase"]?.string == "animating")
        #expect(number(frame(2.5)?["count"]) == 4)
        // scroll_to 3 survives set_count 4 and the resize (pitch 610): rests at 3 · 610.
        let last = frames.last
        #expect(number(last?["offset"]) == 1830)
        #expect(number(last?["index"]) == 3)
        #expect(last?["phase"]?.string == "idle")
        let centered = last?["items"]?.array?.first { $0["index"]?.double == 3 }
        #expect(centered?["center"] == .array([.number(406), .number(187.5)]))
        #expect(centered?["size"] == .array([.number(600), .number(300)]))
    }

    @Test func tiltExampleIntegratesOverTime() {
        let run = runInProcess(["simulate", example("tilt.json")])
        #expect(run.status == .ok)
        let frames = run.frames
        #expect(frames.map { number($0["t"]) } == [0.5, 1, 3])
        // −12°: 3 · 260 · 9 / 22 = 319.09 pt/s, whatever the irregular sample times.
        let speed = 3 * 260 * 9.0 / 22
        #expect(abs(number(frames[0]["offset"]) - speed * 0.5) < 1e-9)
        #expect(frames[0]["phase"]?.string == "tilting")
        // The frame at 1.0 shows the state after the dead-zone sample at 1.0: snapping.
        #expect(abs(number(frames[1]["offset"]) - speed) < 1e-9)
        #expect(frames[1]["phase"]?.string == "snapping")
        #expect(number(frames[2]["offset"]) == 260)
    }

    @Test func cyclicExampleTakesTheShortWayAndNormalises() {
        let run = runInProcess(["simulate", example("cyclic.json")])
        #expect(run.status == .ok)
        let frames = run.frames
        // 0 → 2 among 3 items: one step back through the seam, not two forward.
        #expect(number(frames[1]["velocity"]) < 0)
        #expect(number(frames[1]["offset"]) > 520)      // normalised into [0, 780)
        #expect(number(frames[2]["offset"]) == 520)
        #expect(number(frames[2]["index"]) == 2)
        // Slot 3 shows item 0 again as instance 1.
        let copy = frames[2]["items"]?.array?.first { $0["index"]?.double == 0 }
        #expect(copy?["instance"]?.double == 1)
        #expect(copy?["center"]?[0]?.double == 187.5 + 260)
        // Drag from 100 to 300 (crossing at 110): 520 − 190 = 330, then nearest → item 1.
        #expect(number(frames[3]["offset"]) == 330)
        #expect(number(frames[4]["offset"]) == 260)
    }

    @Test func outputHasOnlyFiniteNumbersAndNoNegativeZero() {
        for name in ["tour.json", "fling-momentum.json", "tilt.json", "cyclic.json"] {
            let run = runInProcess(["simulate", example(name)])
            #expect(run.status == .ok, "\(name)")
            #expect(!run.stdout.contains("-0,") && !run.stdout.contains("-0]") && !run.stdout.contains("-0}"))
            #expect(!run.stdout.contains("-0.0,") && !run.stdout.contains("nan") && !run.stdout.contains("inf"))
            #expect(run.frames.count == run.stdout.split(separator: "\n").count)
        }
    }

    @Test func builtBinaryRunsAnExample() {
        let run = runBinary(["simulate", example("fling-momentum.json")])
        #expect(run.status == .ok, "\(run.stderr)")
        #expect(number(run.frames.last?["offset"]) == 520)
        let missing = runBinary(["simulate", "/nonexistent/scenario.json"])
        #expect(missing.status == .noInput)
        #expect(missing.stderr.contains("/nonexistent/scenario.json"))
    }

    @Test func missingFileIsExit66() {
        let run = runInProcess(["simulate", "/nonexistent/carousel-scenario.json"])
        #expect(run.status == .noInput)
        #expect(run.stderr.contains("cannot open"))
    }

    @Test func missingArgumentIsUsage() {
        #expect(runInProcess(["simulate"]).status == .usage)
        #expect(runInProcess(["simulate", "a.json", "b.json"]).status == .usage)
    }

    @Test(arguments: [
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "events": [{"t": 0, "type": "drag_began", "location": 1}, {"t": 0.1, "type": "drag_moved", "location": "x"}]}"#,
         "events[1].location"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250}, "count": 3}"#, "item.height"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}}"#, "count"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "paging": {"name": "momentum", "decelerationRate": 1.5}}"#,
         "paging.decelerationRate"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "style": {"name": "linear", "minScaleX": 1}}"#,
         "style.minScaleX"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "events": [{"t": 1, "type": "tilt", "rollDeg": 1}, {"t": 0.5, "type": "tilt", "rollDeg": 2}]}"#,
         "events[1].t"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "events": [{"t": 1, "type": "wobble"}]}"#,
         "events[0].type"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "tilt": {"deadZoneDeg": 30}}"#,
         "tilt.maxDeg"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3, "frames": {"at": [0.1, "late"]}}"#,
         "frames.at[1]"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3,"#, "line 1"),
    ])
    func invalidScenarioIsExit65NamingThePath(scenario: String, path: String) {
        let file = writeTemporaryFile(scenario)
        defer { unlink(file) }
        let run = runInProcess(["simulate", file])
        #expect(run.status == .dataError)
        #expect(run.stderr.contains(path), "\(run.stderr)")
        #expect(run.stdout == "")
    }

    @Test func defaultsAndFrameRules() throws {
        let file = writeTemporaryFile(#"""
        {"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 5,
         "events": [{"t": 0.25, "type": "scroll_to", "index": 1, "animated": false}],
         "frames": {"every": 0.3, "until": 1.0}}
        """#)
        defer { unlink(file) }
        let scenario = try Scenario.parse(readTextFile(file) ?? "")
        // k · 0.3 for k = 0…3, then until.
        #expect(scenario.frames == [0, 0.3, 0.6, 0.9, 1.0])
        let c = scenario.configuration
        #expect(c.geometry.spacing == 0)
        #expect(c.paging == .momentum(decelerationRate: 0.998, maxItemsPerFling: nil))
        #expect(c.dragThreshold == 10)
        #expect(c.outerScrollRatio == 0.8)
        #expect(c.tilt == TiltSettings(enabled: true, mode: .velocity, deadZoneDegrees: 3, maxDegrees: 25, maxItemsPerSecond: 3))
        let run = runInProcess(["simulate", file])
        #expect(run.frames.map { $0["offset"]?.double } == [0, 250, 250, 250, 250])
        // Default until: last event time + 3 s.
        let other = try Scenario.parse(#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 5, "events": [{"t": 0.25, "type": "tap", "location": 1}], "frames": {"every": 1}}"#)
        #expect(other.frames == [0, 1, 2, 3, 3.25])
        let at = try Scenario.parse(#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 5, "frames": {"at": [0.5, 0.1]}}"#)
        #expect(at.frames == [0.1, 0.5])
    }

    @Test func numbersAreFormattedForJSON() {
        #expect(FrameEncoder.number(-0.0) == "0")
        #expect(FrameEncoder.number(520) == "520")
        #expect(FrameEncoder.number(-72.5) == "-72.5")
        #expect(FrameEncoder.number(.nan) == "0")
        #expect(FrameEncoder.number(1e20) == "1e+20")
    }
}
