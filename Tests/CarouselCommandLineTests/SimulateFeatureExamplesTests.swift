import Testing
#if canImport(Glibc)
import Glibc
#endif
import CarouselEngine
import CarouselTestSupport
@testable import CarouselCommandLine

/// The docs/examples scenarios of autoplay, free scroll, groups with alignment and containment,
/// insert/remove and the custom style, run through `carouselctl simulate` and checked against
/// hand-derived values (viewport 375 × 200 unless said, items 250 × 160, spacing 10: p = 260).
@Suite struct SimulateFeatureExamplesTests {
    func number(_ v: JSONValue?) -> Double { v?.double ?? .nan }

    func frames(_ name: String) -> [Double: JSONValue] {
        let run = runInProcess(["simulate", example(name)])
        #expect(run.status == .ok, "\(name): \(run.stderr)")
        #expect(!run.stdout.contains("nan") && !run.stdout.contains("inf") && !run.stdout.contains("-0,"))
        var byTime: [Double: JSONValue] = [:]
        for f in run.frames { byTime[number(f["t"])] = f }
        return byTime
    }

    /// Autoplay every 2 s, resume 5 s, on 3 non-cyclic items: the first step starts exactly at
    /// 2.0; steps rest on 1 then 2; `scroll_to` at 9 pauses it until 9 + 5 = 14; from the last
    /// item it rewinds to 0; the user's pause at 20 lets the running animation land and holds
    /// until 30, after which a fresh interval steps at 32.
    @Test func autoplayExample() throws {
        let f = frames("autoplay.json")
        func check(_ t: Double, offset: Double?, phase: String, autoplay: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let frame = f[t]
            if let offset { #expect(number(frame?["offset"]) == offset, "t=\(t)", sourceLocation: sourceLocation) }
            #expect(frame?["phase"]?.string == phase, "t=\(t)", sourceLocation: sourceLocation)
            #expect(frame?["autoplay"]?.string == autoplay, "t=\(t)", sourceLocation: sourceLocation)
        }
        check(0, offset: 0, phase: "idle", autoplay: "running")
        check(1.9, offset: 0, phase: "idle", autoplay: "running")
        check(2.0, offset: 0, phase: "animating", autoplay: "running")
        check(4.5, offset: 260, phase: "idle", autoplay: "running")
        check(7.0, offset: 520, phase: "idle", autoplay: "running")
        check(9.0, offset: 0, phase: "idle", autoplay: "paused")
        check(13.9, offset: 0, phase: "idle", autoplay: "paused")
        check(14.5, offset: nil, phase: "animating", autoplay: "running")
        #expect(number(f[14.5]?["offset"]) > 0 && number(f[14.5]?["offset"]) < 260)
        // 20.0: rewinding from item 2 toward 0 (the offset falls below 520), paused by the user.
        check(20.0, offset: nil, phase: "animating", autoplay: "paused")
        #expect(number(f[20.0]?["offset"]) < 520 && number(f[20.0]?["velocity"]) < 0)
        check(29.0, offset: 0, phase: "idle", autoplay: "paused")
        check(31.9, offset: 0, phase: "idle", autoplay: "running")
        check(32.5, offset: nil, phase: "animating", autoplay: "running")
    }

    /// Free scroll from offset 0 at 1000 pt/s with rate 0.998 stops near the projected rest
    /// point 1000 / (−1000 · ln 0.998) = 499.4998 pt (position 1.92), not on item 2 (520) as
    /// momentum paging would.
    @Test func freeScrollExample() {
        let f = frames("free-scroll.json")
        let rest = 1000 / (-1000 * log(0.998))
        #expect(abs(rest - 499.49983) < 1e-5)
        #expect(abs(number(f[6]?["offset"]) - rest) < 0.01)
        #expect(f[6]?["phase"]?.string == "idle")
        #expect(number(f[6]?["index"]) == 2)
        // Nothing snaps: item 2's center is off the viewport center by 520 − 499.5 = 20.5 pt.
        let item2 = f[6]?["items"]?.array?.first { $0["index"]?.double == 2 }
        #expect(abs(number(item2?["center"]?[0]) - (187.5 + 520 - rest)) < 0.01)
    }

    /// Viewport 800, groups of 3, start-aligned and contained: a fast fling (single paging)
    /// moves one group, to item 3 at 3 · 260 = 780; `scroll_to` 9 goes to group 9's offset
    /// 9 · 260 = 2340, trimmed to the contained end: content 10 · 250 + 9 · 10 = 2590 minus the
    /// 800-point viewport = 1790, where item 9's trailing edge meets the viewport's
    /// (center 675 + 125 = 800) and the item at the start (offset 1790 / 260 = 6.88) is 7.
    @Test func groupsAlignedExample() {
        let f = frames("groups-aligned.json")
        // Start alignment: item 0's leading edge at the viewport's start at offset 0 (center 125).
        #expect(number(f[0]?["items"]?[0]?["center"]?[0]) == 125 - 30)
        #expect(number(f[3.9]?["index"]) == 3)
        #expect(number(f[3.9]?["offset"]) > 770 && number(f[3.9]?["offset"]) < 780)
        #expect(number(f[4]?["offset"]) == 1790)
        #expect(number(f[4]?["index"]) == 7)
        let last = f[4]?["items"]?.array?.last
        #expect(last?["index"]?.double == 9 && number(last?["center"]?[0]) == 675)
    }

    /// Card 3 (offset 780) of 6: inserting 2 at 1 makes it item 5, still centered (1300);
    /// removing item 5 hands the center to the card after it (old 6, now 5), at once; removing
    /// items 5 and 6 of 7 leaves no card after them, so the card before (4) slides in, animated,
    /// from where it was (one pitch left of center) to 4 · 260 = 1040.
    @Test func insertRemoveExample() {
        let f = frames("insert-remove.json")
        #expect(number(f[0]?["offset"]) == 780 && number(f[0]?["index"]) == 3)
        #expect(number(f[1]?["offset"]) == 1300 && number(f[1]?["index"]) == 5 && number(f[1]?["count"]) == 8)
        #expect(number(f[2]?["offset"]) == 1300 && number(f[2]?["index"]) == 5 && number(f[2]?["count"]) == 7)
        #expect(f[3]?["phase"]?.string == "animating" && number(f[3]?["count"]) == 5)
        #expect(number(f[3]?["items"]?[0]?["center"]?[0]) == 187.5 - 260)
        #expect(number(f[6]?["offset"]) == 1040 && number(f[6]?["index"]) == 4 && f[6]?["phase"]?.string == "idle")
    }

    /// Custom style, limit 2, no perspective, translateX ±0.5, scale and opacity 0.8/0.6 at one
    /// item: item 3 (o = 1) sits 0.5 · 260 = 130 right of center with scale 1 − 0.2 = 0.8 and
    /// alpha 0.6; item 4 (o = 2) 260 right, scale 1 − 0.2 · 2 = 0.6, alpha 1 − 0.4 · 2 = 0.2.
    /// `set_style` at 1 s: next translateX 1 with rotateY −90° and perspective 500 (limit back
    /// to 1): item 3 at 187.5 + 260 with m11 = cos(−90°) = 0, m13 = −sin(−90°) = 1,
    /// m14 = m13 · (−1/500) = −0.002; item 4 keeps the look at the limit (same center).
    @Test func customStyleExample() {
        let f = frames("custom-style.json")
        func item(_ t: Double, _ i: Double) -> JSONValue? { f[t]?["items"]?.array?.first { $0["index"]?.double == i } }
        #expect(number(item(0, 3)?["center"]?[0]) == 317.5)
        #expect(abs(number(item(0, 3)?["scale"]?[0]) - 0.8) < 1e-12 && abs(number(item(0, 3)?["alpha"]) - 0.6) < 1e-12)
        #expect(number(item(0, 4)?["center"]?[0]) == 447.5)
        #expect(abs(number(item(0, 4)?["scale"]?[0]) - 0.6) < 1e-12 && abs(number(item(0, 4)?["alpha"]) - 0.2) < 1e-12)
        #expect(number(item(0, 1)?["center"]?[0]) == 57.5)
        let t3 = item(1, 3)?["transform"]?.array?.map { number($0) } ?? []
        #expect(t3.count == 16)
        #expect(abs(t3[0]) < 1e-12 && t3[2] == 1 && abs(t3[3] + 0.002) < 1e-15 && t3[8] == -1)
        #expect(number(item(1, 3)?["center"]?[0]) == 447.5 && number(item(1, 4)?["center"]?[0]) == 447.5)
        #expect(number(item(1, 1)?["center"]?[0]) == -72.5)
    }

    /// Bad values of the new keys name their JSON path (exit 65).
    @Test(arguments: [
        (#""autoplay": {"intervalS": 0.01}"#, "autoplay.intervalS: must be 0 (off) or lie in [0.1, 86400] seconds"),
        (#""autoplay": {"step": 0}"#, "autoplay.step: must be a non-zero integer within ±1000"),
        (#""groupSize": 0"#, "groupSize: must lie in 1…1000000000"),
        (#""align": "left""#, "align: 'left' is not one of start, center, end"),
        (#""paging": {"name": "free", "stickyVelocity": -1}"#, "paging.stickyVelocity: must lie in [0, 1000000] pt/s (0 = never snap)"),
        (#""style": {"name": "custom", "next": {"opacity": 2}}"#, "style.next.opacity: must lie in [0, 1]"),
        (#""style": {"name": "custom", "next": {"skew": 2}}"#, "style.next.skew: unknown key"),
        (#""events": [{"t": 0, "type": "insert_items", "at": 0, "count": 0}]"#, "events[0].count: must be ≥ 1"),
        (#""events": [{"t": 0, "type": "insert_items", "at": 0, "count": 1000000000}]"#, "events[0].count: 5 + 1000000000 items exceed 1000000000"),
        (#""events": [{"t": 0, "type": "insert_items", "at": 6, "count": 1}]"#, "events[0].at: 6 is out of range 0…5"),
        (#""events": [{"t": 0, "type": "remove_items", "at": 5, "count": 1}]"#, "events[0].at: 5 is out of range 0…4"),
        (#""events": [{"t": 0, "type": "remove_items", "at": 3, "count": 3}]"#, "events[0].count: 3 items from 3 pass the last item (4)"),
        (#""events": [{"t": 0, "type": "set_count", "count": 0}, {"t": 1, "type": "remove_items", "at": 0, "count": 1}]"#,
         "events[1].at: the carousel has no items to remove, got 0"),
        (#""events": [{"t": 0, "type": "set_autoplay", "resumeS": -2}]"#, "events[0].resumeS: must lie in [0, 86400] seconds"),
    ])
    func badFeatureValuesNameTheirPath(member: String, message: String) throws {
        let text = #"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "count": 5, "# + member + "}"
        let path = writeTemporaryFile(text, name: "feature-\(abs(message.hashValue)).json")
        let run = runInProcess(["simulate", path])
        #expect(run.status == .dataError)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
