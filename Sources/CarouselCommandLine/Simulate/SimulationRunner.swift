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
            emit(FrameEncoder.line(time: frameTime, state: engine.state, items: engine.visibleItems()))
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
        }
    }
}

/// Writes one frame as a JSON object on one line (docs/ENGINE.md "Output").
///
/// Numbers: whole values with magnitude below 10^15 print as integers (`520`), others in
/// Swift's shortest round-trip form (`0.30000000000000004` never appears for frame times,
/// which are rounded to the nanosecond); `-0` prints as `0`; a non-finite value (which the engine
/// does not produce) would print as `0` rather than invalid JSON.
enum FrameEncoder {
    static func line(time: Double, state: CarouselState, items: [ItemAttributes]) -> String {
        var s = "{\"t\":\(number(time)),\"offset\":\(number(state.offset)),\"position\":\(number(state.position))"
        s += ",\"index\":\(state.index.map(String.init) ?? "null"),\"velocity\":\(number(state.velocity))"
        s += ",\"phase\":\"\(state.phase.rawValue)\",\"count\":\(state.count),\"items\":["
        for (i, item) in items.enumerated() {
            if i > 0 { s += "," }
            s += "{\"index\":\(item.index),\"instance\":\(item.instance)"
            s += ",\"center\":[\(number(item.center.x)),\(number(item.center.y))]"
            s += ",\"size\":[\(number(item.size.width)),\(number(item.size.height))]"
            s += ",\"scale\":[\(number(item.scaleX)),\(number(item.scaleY))]"
            s += ",\"alpha\":\(number(item.alpha)),\"zIndex\":\(number(item.zIndex))"
            s += ",\"transform\":[\(item.transform.values.map(number).joined(separator: ","))]}"
        }
        s += "]}"
        return s
    }

    /// A finite JSON number, never `-0`.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        if v == 0 { return "0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return v.description
    }
}
