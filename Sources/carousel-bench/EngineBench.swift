import CarouselEngine

/// CarouselEngine figures (issue 2 "Benchmark", issue 7):
/// - the cost of one frame of visible-item attributes for 10 and for 1,000,000 items, and their
///   ratio (the query must be O(visible items));
/// - item attributes per second, per layout style;
/// - CPU used by a 60-second simulated session (drag, fling, tilt, cyclic wrap, scroll_to,
///   outer scroll) stepped at 120 Hz, as a percentage of one core.
///
/// Times are CPU time of this thread (CLOCK_THREAD_CPUTIME_ID): the machine is shared, and CPU
/// time does not count the time another process held the core.
struct EngineBench {
    var reporter: Reporter
    var warmups = 2
    var runs = 7

    /// The daemon's default geometry (`[carousel]` defaults): viewport 1280×800, item 480×640,
    /// spacing 40, so 3–4 items are visible at any offset.
    static func geometry(count: Int, cyclic: Bool = false) -> CarouselGeometry {
        CarouselGeometry(viewport: CarouselSize(width: 1280, height: 800), item: CarouselSize(width: 480, height: 640),
                         spacing: 40, count: count, cyclic: cyclic)
    }

    static let styles: [(String, LayoutStyle)] = [
        ("linear", .linear(LinearStyle())),
        ("zoom", .zoom(ZoomStyle())),
        ("stacked", .stacked),
        ("coverFlow", .coverFlow(CoverFlowStyle())),
        ("rotary", .rotary(RingStyle())),
        ("cylinder", .cylinder(RingStyle())),
    ]

    func run() {
        reporter.section("engine (CPU time of one thread; daemon default geometry 1280×800, item 480×640, spacing 40)")
        let small = frameCost(count: 10, style: .linear(LinearStyle()))
        let large = frameCost(count: 1_000_000, style: .linear(LinearStyle()))
        reporter.report(Measurement(name: "engine.frame.items_10", unit: "ns/frame", samples: small.nanosecondsPerFrame))
        reporter.report(Measurement(name: "engine.frame.items_1000000", unit: "ns/frame", samples: large.nanosecondsPerFrame))
        let ratios = zip(large.nanosecondsPerFrame, small.nanosecondsPerFrame).map { $0 / $1 }
        reporter.report(Measurement(name: "engine.frame.ratio_1000000_to_10", unit: "ratio", samples: ratios,
                                    target: "≤ 1.5", check: { $0 <= 1.5 }))
        reporter.note(String(format1: "visible items per frame: %.2f (10 items), %.2f (1,000,000 items)",
                             small.itemsPerFrame, large.itemsPerFrame))
        for (name, style) in Self.styles {
            let cost = frameCost(count: 1_000_000, style: style)
            reporter.report(Measurement(name: "engine.attributes_per_s.\(name)", unit: "items/s",
                                        samples: cost.attributesPerSecond, target: "≥ 5000000", check: { $0 >= 5e6 }))
        }
        let session = sessionCPU()
        reporter.report(Measurement(name: "engine.session_60s_120hz.cpu", unit: "% of one core", samples: session.percent,
                                    target: "≤ 2", check: { $0 <= 2 }))
        reporter.report(Measurement(name: "engine.session_60s_120hz.step", unit: "ns/step", samples: session.nanosecondsPerStep))
        reporter.note("session: \(session.steps) steps, \(session.inputs) inputs, \(session.items) item attributes, "
                      + "\(session.wraps) cyclic wraps, \(session.restEvents) came-to-rest events")
    }

    // MARK: - One frame of visible attributes

    struct FrameCost {
        var nanosecondsPerFrame: [Double]
        var attributesPerSecond: [Double]
        var itemsPerFrame: Double
    }

    /// Engines at rest at 64 fractional offsets spread over three pitches in the middle of the
    /// item range (so both counts see the same number of visible items and no end effects),
    /// queried round-robin: the measured frame is `visibleItems()` alone, with its array.
    func frameCost(count: Int, style: LayoutStyle) -> FrameCost {
        let g = Self.geometry(count: count)
        var configuration = CarouselConfiguration(geometry: g, style: style)
        configuration.initialIndex = count / 2
        let base = CarouselEngine(configuration: configuration)
        let p = g.pitch
        let start = Double(max(count / 2 - 1, 0)) * p
        let engines: [CarouselEngine] = (0..<64).map { k in
            var e = base
            e.setOffset(start + Double(k) / 64 * 3 * p, at: 1)
            _ = e.takeEvents()
            return e
        }
        let frames = 200_000
        var totalItems = 0
        var perFrame: [Double] = []
        var perSecond: [Double] = []
        for run in 0..<(warmups + runs) {
            var checksum = 0.0
            var items = 0
            let t0 = BenchClock.threadCPUNanoseconds()
            for f in 0..<frames {
                let attributes = engines[f & 63].visibleItems()
                items &+= attributes.count
                if let first = attributes.first { checksum += first.alpha }
            }
            let elapsed = Double(BenchClock.threadCPUNanoseconds() - t0)
            blackHole(checksum)
            guard run >= warmups else { continue }
            totalItems += items
            perFrame.append(elapsed / Double(frames))
            perSecond.append(Double(items) / (elapsed * 1e-9))
        }
        return FrameCost(nanosecondsPerFrame: perFrame, attributesPerSecond: perSecond,
                         itemsPerFrame: Double(totalItems) / Double(frames * runs))
    }

    // MARK: - 60-second session at 120 Hz

    struct SessionResult {
        var percent: [Double]
        var nanosecondsPerStep: [Double]
        var steps = 0
        var inputs = 0
        var items = 0
        var wraps = 0
        var restEvents = 0
    }

    enum Input {
        case dragBegan(Double), dragMoved(Double), dragEnded(Double)
        case fling(velocity: Double)
        case tilt(rollDegrees: Double)
        case scrollTo(Int)
        case outerScroll(Double), outerScrollEnded
        case tap(Double)
    }

    /// The scripted inputs of the session, sorted by time (seconds).
    static func script() -> [(time: Double, input: Input)] {
        var events: [(Double, Input)] = []
        // Drags: 4 swipes of 600 points in 0.25 s, sampled at 120 Hz like a touch screen.
        for (start, direction) in [(2.0, -1.0), (6.0, -1.0), (35.0, 1.0), (40.0, 1.0)] {
            events.append((start, .dragBegan(640)))
            for k in 1...30 {
                events.append((start + Double(k) / 120, .dragMoved(640 + direction * 20 * Double(k))))
            }
            events.append((start + 31.0 / 120, .dragEnded(640 + direction * 600)))
        }
        // Flings: fast releases in both directions.
        events.append((12.0, .fling(velocity: 4000)))
        events.append((15.0, .fling(velocity: -6000)))
        // Tilt at 100 Hz from 18 s to 30 s and 45 s to 58 s: ramp to ±20° roll, hold, back to level.
        for (start, end, peak) in [(18.0, 30.0, -20.0), (45.0, 58.0, 15.0)] {
            var t = start
            while t < end {
                let u = (t - start) / (end - start)
                let envelope = min(1, min(u, 1 - u) * 5)
                events.append((t, .tilt(rollDegrees: peak * envelope)))
                t += 0.01
            }
            events.append((end, .tilt(rollDegrees: 0)))
        }
        events.append((31.0, .scrollTo(17)))
        events.append((33.0, .tap(1100)))
        // Outer scroll for 1 s at 60 Hz.
        for k in 0...60 { events.append((42.0 + Double(k) / 60, .outerScroll(Double(k) * 8))) }
        events.append((43.1, .outerScrollEnded))
        return events.sorted { $0.0 < $1.0 }
    }

    /// Steps a cyclic 20-item carousel through `script()` for 60 s at 120 Hz; each step advances
    /// the physics, reads the state, the visible items and the came-to-rest events, as the
    /// daemon does for a frame with `items: true`.
    func sessionCPU() -> SessionResult {
        let script = Self.script()
        var result = SessionResult(percent: [], nanosecondsPerStep: [])
        let steps = 60 * 120
        for run in 0..<(warmups + runs) {
            var engine = CarouselEngine(configuration: CarouselConfiguration(geometry: Self.geometry(count: 20, cyclic: true)))
            var next = 0
            var items = 0, wraps = 0, rests = 0
            var lastOffset = engine.state.offset
            var checksum = 0.0
            let t0 = BenchClock.threadCPUNanoseconds()
            for step in 1...steps {
                let now = Double(step) / 120
                while next < script.count, script[next].time <= now {
                    let (t, input) = script[next]
                    switch input {
                    case let .dragBegan(x): engine.dragBegan(location: x, at: t)
                    case let .dragMoved(x): engine.dragMoved(location: x, at: t)
                    case let .dragEnded(x): engine.dragEnded(location: x, at: t)
                    case let .fling(v): engine.fling(offset: engine.state.offset, velocity: v, at: t)
                    case let .tilt(roll): engine.tilt(rollDegrees: roll, at: t)
                    case let .scrollTo(i): engine.scrollTo(index: i, animated: true, at: t)
                    case let .outerScroll(y): engine.outerScroll(y: y, at: t)
                    case .outerScrollEnded: engine.outerScrollEnded(at: t)
                    case let .tap(x): engine.tap(location: x, at: t)
                    }
                    next += 1
                }
                engine.advance(to: now)
                let state = engine.state
                let visible = engine.visibleItems()
                items &+= visible.count
                checksum += state.offset + (visible.first?.alpha ?? 0)
                rests &+= engine.takeEvents().count
                // A wrap shows as the published (normalised) offset jumping by more than half a cycle.
                if abs(state.offset - lastOffset) > 10 * 520 { wraps &+= 1 }
                lastOffset = state.offset
            }
            let elapsed = Double(BenchClock.threadCPUNanoseconds() - t0)
            blackHole(checksum)
            guard run >= warmups else { continue }
            result.percent.append(elapsed / 60e9 * 100)
            result.nanosecondsPerStep.append(elapsed / Double(steps))
            result.steps = steps
            result.inputs = script.count
            result.items = items
            result.wraps = wraps
            result.restEvents = rests
        }
        return result
    }
}

extension String {
    /// `printf`-style formatting of Doubles without Foundation.
    init(format1 format: String, _ values: Double...) {
        var out = ""
        var rest = Substring(format)
        var index = 0
        while let range = rest.firstRange(of: "%.") {
            out += rest[..<range.lowerBound]
            let after = rest[range.upperBound...]
            guard let f = after.firstIndex(of: "f"), let decimals = Int(after[..<f]), index < values.count else {
                out += rest[range.lowerBound...]
                rest = ""
                break
            }
            out += Reporter.fixed(values[index], decimals)
            index += 1
            rest = after[after.index(after: f)...]
        }
        self = out + rest
    }
}
