import CarouselProtocol
import CarouselEngine

/// Runs a scenario through a `CarouselEngine`, one frame at a time.
enum SimulationRunner {
    /// Calls `emit` with each frame's JSON line (without the newline), in time order. Events at
    /// or before a frame's time are applied first, each at its own time, so a frame at the same
    /// time as an event shows the state after it. Events after the last frame are not applied.
    static func run(_ scenario: Scenario, emit: (String) -> Void) {
        var engine = CarouselEngine(configuration: scenario.configuration, time: 0)
        var next = 0
        for frameTime in scenario.frames {
            while next < scenario.events.count, scenario.events[next].time <= frameTime {
                apply(scenario.events[next], to: &engine)
                next += 1
            }
            engine.advance(to: frameTime)
            emit(FrameEncoder.line(time: frameTime, state: engine.state, autoplay: engine.autoplayState,
                                   items: engine.visibleItems()))
        }
    }

    static func apply(_ event: ScenarioEvent, to engine: inout CarouselEngine) {
        let t = event.time
        switch event.kind {
        case let .dragBegan(location): engine.dragBegan(location: location, at: t)
        case let .dragMoved(location): engine.dragMoved(location: location, at: t)
        case let .dragEnded(location, velocity): engine.dragEnded(location: location, velocity: velocity, at: t)
        case let .fling(offset, velocity): engine.fling(offset: offset, velocity: velocity, at: t)
        case let .setOffset(offset): engine.setOffset(offset, at: t)
        case let .tilt(roll): engine.tilt(rollDegrees: roll, at: t)
        case let .outerScroll(y): engine.outerScroll(y: y, at: t)
        case .outerScrollEnded: engine.outerScrollEnded(at: t)
        case let .scrollTo(index, animated): engine.scrollTo(index: index, animated: animated, at: t)
        case let .tap(location, cross): engine.tap(location: location, cross: cross, at: t)
        case let .setCount(count): engine.setCount(count, at: t)
        case let .resize(viewport, item, spacing, axis, direction):
            engine.resize(viewport: viewport, item: item, spacing: spacing ?? engine.geometry.spacing, axis: axis,
                          direction: direction, at: t)
        case let .setTilt(enabled, mode, deadZone, maxDeg, maxItems):
            engine.setTilt(enabled: enabled, mode: mode, deadZoneDegrees: deadZone, maxDegrees: maxDeg,
                           maxItemsPerSecond: maxItems, at: t)
        case let .setAutoplay(enabled, paused, interval, resume, step):
            engine.setAutoplay(enabled: enabled, paused: paused, intervalSeconds: interval, resumeSeconds: resume,
                               step: step, at: t)
        case let .insertItems(at, count, animated): engine.insertItems(at: at, count: count, animated: animated, at: t)
        case let .removeItems(at, count, animated): engine.removeItems(at: at, count: count, animated: animated, at: t)
        case let .setStyle(style): engine.setStyle(style, at: t)
        }
    }
}

/// Writes one frame as a JSON object on one line (docs/ENGINE.md "carouselctl simulate: scenarios",
/// its output example).
///
/// Through CarouselProtocol's `WireJSONWriter` and `WireItem`, so the `items` objects are
/// byte-for-byte those of the daemon's STATE (docs/ENGINE.md "carouselctl simulate: scenarios") and numbers
/// follow the one rule (`WireJSONWriter.format`): integral values below 2^53 print as integers (`520`),
/// others in Swift's shortest round-trip form; `-0` prints as `0`; a non-finite value (which the engine does
/// not produce) would print as `0` rather than invalid JSON.
enum FrameEncoder {
    static func line(time: Double, state: CarouselState, autoplay: AutoplayState = .off, items: [ItemAttributes]) -> String {
        var w = WireJSONWriter(capacity: 128 + items.count * 320)
        w.beginObject()
        w.key("t"); w.number(time)
        w.key("offset"); w.number(state.offset)
        w.key("position"); w.number(state.position)
        w.key("index"); if let index = state.index { w.int(index) } else { w.null() }
        w.key("velocity"); w.number(state.velocity)
        w.key("phase"); w.string(state.phase.rawValue)
        w.key("count"); w.int(state.count)
        w.key("autoplay"); w.string(autoplay.rawValue)
        w.key("items")
        w.beginArray()
        for item in items { WireItem(item).write(to: &w) }
        w.endArray()
        w.endObject()
        return w.text
    }

    /// A finite JSON number, never `-0`: the one formatter, `WireJSONWriter.format`.
    static func number(_ v: Double) -> String { WireJSONWriter.format(v) }
}
