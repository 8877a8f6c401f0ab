import Testing
#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import CarouselEngine
import CarouselTestSupport
@testable import CarouselCommandLine

/// Hostile scenarios: every out-of-range number is refused with exit 65 and its JSON path
/// (docs/ENGINE.md "Limits"), instead of running with silently clamped, overflowing or
/// non-finite values.
@Suite struct SimulateLimitsTests {
    static let base = #""viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}"#

    /// (scenario, the path the refusal names). A static list, not a literal in `@Test(arguments:)`:
    /// Swift 6.0.3's type checker crashes on `\#(base)` interpolated inside the attribute
    /// (CSGen.cpp: "TapExpr var should be in the same DeclContext").
    static let outOfRange: [(String, String)] = [
        // Sizes beyond 100 000 points overflowed the pitch (1e308 + 1e308 = inf).
        (#"{"viewport": {"width": 1e308, "height": 200}, "item": {"width": 250, "height": 160}, "count": 3}"#, "viewport.width"),
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "spacing": 1e308, "count": 3}"#, "spacing"),
        // A pitch below 0.001 point was silently raised to it, so centers disagreed with sizes.
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 1e-300, "height": 160}, "count": 3}"#, "item.width"),
        // ... named after what made it too small: the item above, a negative spacing here.
        (#"{"viewport": {"width": 375, "height": 200}, "item": {"width": 250, "height": 160}, "spacing": -250, "count": 3}"#, "spacing"),
        (#"{\#(base), "count": 1e14}"#, "count"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "fling", "offset": 1e308, "velocity": 0}]}"#, "events[0].offset"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "fling", "offset": 0, "velocity": -1e7}]}"#, "events[0].velocity"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "drag_began", "location": -1e16}]}"#, "events[0].location"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "tap", "location": 1, "cross": 1e300}]}"#, "events[0].cross"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "tilt", "rollDeg": 1e308}]}"#, "events[0].rollDeg"),
        (#"{\#(base), "count": 3, "events": [{"t": 1e308, "type": "outer_scroll_ended"}]}"#, "events[0].t"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "resize", "viewport": {"width": 2e5, "height": 1}, "item": {"width": 1, "height": 1}}]}"#,
         "events[0].viewport.width"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "set_count", "count": 2000000000}]}"#, "events[0].count"),
        // set_tilt is checked against the settings in effect: a dead zone above maxDeg (25)
        // silently disabled tilt before.
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "set_tilt", "deadZoneDeg": 30}]}"#, "events[0].maxDeg"),
        (#"{\#(base), "count": 3, "events": [{"t": 0, "type": "set_tilt", "maxItemsPerSecond": 1e308}]}"#, "events[0].maxItemsPerSecond"),
        (#"{\#(base), "count": 3, "tilt": {"maxItemsPerSecond": 1e308}}"#, "tilt.maxItemsPerSecond"),
        (#"{\#(base), "count": 3, "outerScroll": {"ratio": 1e308}}"#, "outerScroll.ratio"),
        (#"{\#(base), "count": 3, "dragThreshold": 1e308}"#, "dragThreshold"),
        (#"{\#(base), "count": 3, "paging": {"name": "momentum", "decelerationRate": 1e-300}}"#, "paging.decelerationRate"),
        (#"{\#(base), "count": 3, "paging": {"name": "single", "velocityThreshold": 1e300}}"#, "paging.velocityThreshold"),
        // 1e308 s printed as "t": 0 (the nanosecond rounding overflowed to inf).
        (#"{\#(base), "count": 3, "frames": {"at": [1e308]}}"#, "frames.at[0]"),
        (#"{\#(base), "count": 3, "frames": {"every": 1, "until": 1e300}}"#, "frames.until"),
        // 900 000 frames ran for minutes and wrote hundreds of MB; 10^15 frames was refused.
        (#"{\#(base), "count": 3, "frames": {"every": 1e-6, "until": 0.9}}"#, "frames.every"),
        (#"{\#(base), "count": 3, "frames": {"every": 1e-9, "until": 1e6}}"#, "frames.every"),
    ]

    @Test(arguments: outOfRange)
    func outOfRangeIsExit65NamingThePath(scenario: String, path: String) {
        let file = writeTemporaryFile(scenario)
        defer { unlink(file) }
        let run = runInProcess(["simulate", file])
        #expect(run.status == .dataError)
        #expect(run.stderr.contains("\(path):"), "\(run.stderr)")
        #expect(run.stdout == "")
    }

    /// The frame limit is 100 000: exactly 100 000 frames (k = 0…99 999) pass.
    @Test func frameLimitIsInclusive() throws {
        let ok = try Scenario.parse(#"{\#(Self.base), "count": 3, "frames": {"every": 1, "until": 99999}}"#)
        #expect(ok.frames.count == 100_000)
        #expect(throws: ScenarioError.self) {
            try Scenario.parse(#"{\#(Self.base), "count": 3, "frames": {"every": 1, "until": 100000}}"#)
        }
    }

    /// The default until (last event + 3 s) is named when it is what makes too many frames.
    @Test func frameLimitMessageNamesTheDefaultUntil() {
        let file = writeTemporaryFile(#"{\#(Self.base), "count": 3, "events": [{"t": 999000, "type": "outer_scroll_ended"}], "frames": {"every": 0.5}}"#)
        defer { unlink(file) }
        let run = runInProcess(["simulate", file])
        #expect(run.status == .dataError)
        #expect(run.stderr.contains("frames.every: 0.5 s over the default until (last event + 3 s = 999003.0 s)"), "\(run.stderr)")
    }

    /// `until` earlier than some `at` times takes its place in time order (appended last, the
    /// runner would print the t = 2 state under t = 0.5).
    @Test func untilBeforeAtTimesIsSorted() throws {
        let s = try Scenario.parse(#"{\#(Self.base), "count": 3, "frames": {"at": [1, 2], "until": 0.5}}"#)
        #expect(s.frames == [0.5, 1, 2])
    }

    /// The largest accepted values still give finite output (no NaN, inf or -0).
    @Test func valuesAtTheLimitsStayFinite() {
        let file = writeTemporaryFile(#"""
        {"viewport": {"width": 100000, "height": 100000}, "item": {"width": 100000, "height": 100000},
         "spacing": 100000, "count": 1000000000, "cyclic": true,
         "events": [{"t": 0, "type": "fling", "offset": -1e15, "velocity": 1000000},
                    {"t": 1, "type": "tilt", "rollDeg": -180}, {"t": 2, "type": "outer_scroll", "y": 1e15},
                    {"t": 2.1, "type": "outer_scroll", "y": -1e15}, {"t": 2.2, "type": "outer_scroll_ended"}],
         "frames": {"every": 0.5}}
        """#)
        defer { unlink(file) }
        let run = runInProcess(["simulate", file])
        #expect(run.status == .ok, "\(run.stderr)")
        #expect(run.frames.count == 12)
        #expect(!run.stdout.contains("nan") && !run.stdout.contains("inf") && !run.stdout.contains("-0,"))
    }

    /// A directory is "cannot read" (66), not a crash or an empty scenario.
    @Test func directoryIsExit66() {
        let dir = runBinary(["simulate", "/tmp"])
        #expect(dir.status == .noInput)
        #expect(dir.stderr.contains("cannot read /tmp: Is a directory"))
    }

    /// Files above 64 MiB are refused as invalid input (65) before parsing.
    @Test func oversizedFileIsExit65() throws {
        let path = uniqueTemporaryPath("big.json")
        defer { unlink(path) }
        let f = try #require(fopen(path, "wb"))
        let block = [UInt8](repeating: 0x20, count: 1 << 20)
        for _ in 0..<65 { _ = block.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) } }
        fclose(f)
        let run = runInProcess(["simulate", path])
        #expect(run.status == .dataError)
        #expect(run.stderr.contains("larger than 64 MiB"))
    }

    /// A UTF-8 byte order mark is ignored (RFC 8259 §8.1); a stray non-ASCII byte is named by
    /// its value, not shown as a mis-decoded character such as 'ï'.
    @Test func byteOrderMarkIsIgnoredAndStrayBytesAreNamed() throws {
        let s = try Scenario.parse("\u{FEFF}{\(Self.base), \"count\": 2, \"frames\": {\"at\": [0]}}")
        #expect(s.configuration.geometry.count == 2)
        #expect(throws: ScenarioError(path: "", message: "invalid JSON at line 1, column 1: unexpected byte 0xC3")) {
            try Scenario.parse("é")
        }
    }

    /// `style` and `paging` take a bare name or `{"name", …}`; a bad name is reported at the
    /// value itself or at `.name` (one reader serves both since the fold of their parsers).
    @Test func styleAndPagingNamesAndTheirPaths() throws {
        let bare = try Scenario.parse(#"{\#(Self.base), "count": 3, "style": "stacked", "paging": "nearest"}"#)
        #expect(bare.configuration.style == .stacked && bare.configuration.paging == .nearest)
        let object = try Scenario.parse(#"{\#(Self.base), "count": 3, "paging": {"name": "single"}}"#)
        #expect(object.configuration.paging == .single(velocityThreshold: 500))
        let cases: [(String, String)] = [
            (#""style": "spiral""#, "style: 'spiral' is not one of"),
            (#""style": {"name": "spiral"}"#, "style.name: 'spiral' is not one of"),
            (#""paging": {"fraction": 0.2}"#, "paging.name: required string is missing"),
            (#""paging": "page""#, "paging: 'page' is not one of"),
            (#""paging": {"name": "nearest", "fraction": 0.2}"#, "paging.fraction: unknown key"),
            (#""style": 5"#, "style: expected a name string or an object with \"name\", found a number"),
        ]
        for (fragment, message) in cases {
            #expect(throws: ScenarioError.self) { try Scenario.parse(#"{\#(Self.base), "count": 3, \#(fragment)}"#) }
            do {
                _ = try Scenario.parse(#"{\#(Self.base), "count": 3, \#(fragment)}"#)
            } catch {
                #expect(error.description.hasPrefix(message), "\(error.description)")
            }
        }
    }

    /// Duplicate keys were found by scanning the members pairwise: an object of 100 000 keys
    /// (1.3 MB) ran for minutes. Now linear; and a document may hold at most 2 000 000 values
    /// (a 60 MB array of zeros took 2.5 min and 940 MB).
    @Test func manyKeysAndValuesAreCheapOrRefused() throws {
        let keys = (0..<100_000).map { "\"k\($0)\": 0" }.joined(separator: ",")
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: ScenarioError(path: "viewport", message: "required object is missing")) {
            try Scenario.parse("{\(keys)}")
        }
        #expect(clock.now - started < .seconds(10))
        let duplicate = try #require(try? JSONParser.parse(#"{"a": 1, "b": 2}"#))
        #expect(duplicate["b"]?.double == 2)
        #expect(throws: JSONSyntaxError(line: 1, column: 13, message: "duplicate key 'a'")) {
            try JSONParser.parse(#"{"a": 1, "a": 2}"#)
        }
        // The limit counts every value, containers included: [0, 0, 0] is 4 values.
        #expect(JSONParser.maximumValues == 2_000_000)
        #expect((try? JSONParser.parse("[0,0,0]", maximumValues: 4)) == .array([.number(0), .number(0), .number(0)]))
        #expect(throws: JSONSyntaxError(line: 1, column: 6, message: "more than 3 values")) {
            try JSONParser.parse("[0,0,0]", maximumValues: 3)
        }
    }

    /// A 0.001-point pitch in a 100 000-point viewport shows 4096 items a frame: 100 000 frames
    /// of them would have written about 100 GB. The bound is frames × visible items.
    @Test func outputIsBoundedByFramesTimesVisibleItems() throws {
        // linear reach (W + w) / 2 = (375 + 250) / 2 = 312.5 with p = 260: ⌊625 / 260⌋ + 1 = 3.
        let c = CarouselConfiguration(geometry: CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                                                 item: CarouselSize(width: 250, height: 160),
                                                                 spacing: 10, count: 10))
        #expect(c.maximumVisibleItemCount == 3)
        var tiny = c
        tiny.geometry.viewport.width = 100_000
        tiny.geometry.spacing = -249.999
        tiny.geometry.count = 1_000_000
        #expect(tiny.maximumVisibleItemCount == CarouselEngine.maximumVisibleSlots)
        let refused = #"{"viewport": {"width": 100000, "height": 200}, "item": {"width": 250, "height": 160}, "spacing": -249.999, "count": 1000000, "frames": {"every": 1, "until": 3000}}"#
        #expect(throws: ScenarioError.self) { try Scenario.parse(refused) }
        do { _ = try Scenario.parse(refused) } catch {
            #expect(error.description.hasPrefix("frames: 3001 frames of up to 4096 visible items exceed 10000000 items"))
        }
        // A resize is counted too.
        let resized = #"{\#(Self.base), "count": 1000000, "events": [{"t": 0, "type": "resize", "viewport": {"width": 100000, "height": 1}, "item": {"width": 1, "height": 1}, "spacing": 0}], "frames": {"every": 1, "until": 3000}}"#
        #expect(throws: ScenarioError.self) { try Scenario.parse(resized) }
        #expect((try? Scenario.parse(#"{\#(Self.base), "count": 10, "frames": {"every": 1, "until": 99999}}"#)) != nil)
    }
}
