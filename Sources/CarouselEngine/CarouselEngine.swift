/// The carousel engine: a pure value-type state machine (docs/ENGINE.md "Public API").
///
/// Feed it input events with their timestamps (seconds on any monotonic clock; each input first
/// advances the physics to its time), call `advance(to:)` before reading `state` or
/// `visibleItems()` for a frame, and drain `takeEvents()` to learn when the carousel came to rest
/// on a different item. Times that go backwards are treated as the current engine time.
///
/// Offsets are logical UIKit `contentOffset`s along the scroll axis (item `i` centered at
/// `i · p`); the axis and the layout direction only affect the attributes of visible items and
/// the signs of finger and tilt input.
public struct CarouselEngine: Sendable {
    /// The configuration in effect (geometry and tilt settings follow runtime changes).
    public internal(set) var configuration: CarouselConfiguration
    /// Logical content offset, points (cyclic: normalised into one cycle after every step).
    var offset: Double
    /// Engine time, seconds.
    var time: Double
    var activity: Activity = .idle
    /// The offset the carousel last rested at (paging's "last resting offset").
    var restingOffset: Double
    /// The item the carousel last rested on (for `cameToRest` events).
    var restingIndex: Int?
    var pendingEvents: [CarouselEvent] = []
    /// Tilt: armed at start-up, disarmed by higher inputs, re-armed inside the dead zone.
    var tiltArmed = true
    /// The last roll sample handed to `tilt(rollDegrees:at:)`, degrees relative to neutral.
    public internal(set) var tiltRollDegrees = 0.0
    /// The last outer-scroll `y`, `nil` before the first sample of a scroll (the baseline).
    var outerScrollLastY: Double?
    var outerScrollLastTime = 0.0
    /// Autoplay: when the current rest began, whether an interaction paused it, steps taken.
    var autoplayClock: AutoplayClock

    /// Creates an engine at rest on `configuration.initialIndex` (clamped into range) at time
    /// `time` (seconds). Invalid numbers are sanitised (see `CarouselConfiguration.validate()`
    /// to report them instead).
    public init(configuration: CarouselConfiguration, time: Double = 0) {
        var configuration = configuration
        configuration.geometry.count = max(configuration.geometry.count, 0)
        self.configuration = configuration
        self.time = time.isFinite ? time : 0
        let g = configuration.geometry
        let start = g.count > 0 ? min(max(configuration.initialIndex, 0), g.count - 1) : 0
        offset = g.clampOffset(Double(start) * g.pitch)
        restingOffset = offset
        restingIndex = g.index(atOffset: offset)
        autoplayClock = AutoplayClock(restSince: self.time)
    }

    /// The geometry in effect.
    public var geometry: CarouselGeometry { configuration.geometry }

    /// The tilt settings in effect.
    public var tiltSettings: TiltSettings { configuration.tilt }

    /// Whether tilt may drive the carousel (armed at start-up; see `InputSource`).
    public var isTiltArmed: Bool { tiltArmed }

    /// The current snapshot (after the last input or `advance(to:)`).
    public var state: CarouselState {
        let g = geometry
        let shown = displayedOffset
        return CarouselState(offset: shown, position: g.count > 0 ? shown / g.pitch : 0,
                             index: g.index(atOffset: offset), velocity: velocity, phase: phase,
                             count: g.count, time: time)
    }

    /// What the carousel is doing.
    public var phase: CarouselPhase {
        switch activity {
        case .idle: return .idle
        case .dragging: return .dragging
        case let .moving(_, phase, _): return phase
        case .tilting: return .tilting
        case .outerScrolling: return .outer_scrolling
        }
    }

    /// Whether `advance(to:)` can still change the state without new input (a motion runs, or
    /// velocity-mode tilt moves the content): a frame loop can sleep while this is `false`.
    public var isMoving: Bool {
        switch activity {
        case .idle, .dragging, .outerScrolling: return false
        case .moving: return true
        case .tilting: return configuration.tilt.mode == .velocity && velocity != 0
        }
    }

    /// Content velocity, points per second.
    public var velocity: Double {
        switch activity {
        case .idle: return 0
        case let .dragging(drag):
            guard drag.tracker.hasCrossed else { return 0 }
            return fingerSign * drag.tracker.estimatedVelocity()
        case let .moving(motion, _, _): return motion.velocity(at: time)
        case .tilting:
            guard configuration.tilt.mode == .velocity else { return 0 }
            let v = TiltMapping.velocity(rollDegrees: tiltRollDegrees, settings: configuration.tilt,
                                         pitch: geometry.pitch, mirrored: geometry.isMirrored)
            return isPinned(by: v) ? 0 : v
        case let .outerScrolling(v): return v
        }
    }

    /// The offset as published: normalised into one cycle when cyclic.
    var displayedOffset: Double {
        let g = geometry
        guard g.wraps else { return offset }
        let cycle = g.cycleLength
        var o = offset - Cyclic.cycles(of: offset, cycle: cycle) * cycle
        if o >= cycle { o -= cycle }
        return o < 0 ? 0 : o
    }

    /// Drains the events that happened since the last call, oldest first.
    public mutating func takeEvents() -> [CarouselEvent] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }

    /// Integrates the physics up to `time` (seconds): deceleration, snap and scroll animations
    /// (closed form) and tilt speed (exact integral of the held roll). The result does not depend
    /// on how often this is called. A `time` before the engine time does nothing. With autoplay
    /// on, every step due by `time` is taken at its own deadline (see `nextDeadline`).
    public mutating func advance(to time: Double) {
        guard time.isFinite, time > self.time else { return }
        if configuration.autoplay.isOn { runAutoplay(until: time) }
        integrate(to: time)
    }

    /// The physics of `advance(to:)` without autoplay steps.
    mutating func integrate(to time: Double) {
        guard time > self.time else { return }
        let dt = time - self.time
        self.time = time
        switch activity {
        case .idle, .dragging, .outerScrolling:
            break
        case let .moving(motion, _, _):
            if motion.isFinished(at: time) {
                offset = motion.target
                comeToRest()
            } else {
                offset = motion.offset(at: time)
            }
        case .tilting:
            if configuration.tilt.mode == .velocity {
                let v = TiltMapping.velocity(rollDegrees: tiltRollDegrees, settings: configuration.tilt,
                                             pitch: geometry.pitch, mirrored: geometry.isMirrored)
                offset = geometry.clampOffset(offset + v * dt)
            }
        }
        normalise()
    }

    // MARK: - Shared helpers

    /// Content moves by `fingerSign · finger travel`: opposite to the finger in LTR and vertical,
    /// with it in RTL (docs/ENGINE.md "Touch").
    var fingerSign: Double { geometry.isMirrored ? 1 : -1 }

    /// Whether a non-cyclic carousel sits at an end that velocity `v` pushes against.
    func isPinned(by v: Double) -> Bool {
        let g = geometry
        guard !g.wraps else { return false }
        return (v < 0 && offset <= g.minimumOffset) || (v > 0 && offset >= g.maximumOffset)
    }

    /// The offset of the snap (item, or group's first item) nearest `offset` (clamped unless cyclic).
    func nearestItemOffset(_ offset: Double) -> Double {
        let grid = snapGrid
        return grid.offset(ofSnap: grid.nearestSnap(offset))
    }

    /// Starts a motion from the current offset and velocity to `target`.
    mutating func startMotion(to target: Double, velocity: Double, phase: CarouselPhase, source: InputSource) {
        let motion: Motion = phase == .decelerating
            ? .release(startTime: time, offset: offset, velocity: velocity, target: target)
            : .spring(SnapMotion(startTime: time, startOffset: offset, startVelocity: velocity, target: target))
        start(motion, phase: phase, source: source)
    }

    /// Runs `motion` from now, or lands at once when it has nothing to do.
    mutating func start(_ motion: Motion, phase: CarouselPhase, source: InputSource) {
        if motion.isFinished(at: time) {
            offset = motion.target
            comeToRest()
        } else {
            activity = .moving(motion, phase: phase, source: source)
        }
    }

    /// Snaps to the item nearest the current offset (every ending source does this).
    mutating func snapToNearest(source: InputSource, velocity: Double = 0) {
        startMotion(to: nearestItemOffset(offset), velocity: velocity, phase: .snapping, source: source)
    }

    /// Enters `idle`, remembers the resting offset and reports a changed resting item; autoplay's
    /// interval counts from `since` (seconds; default: the engine time).
    mutating func comeToRest(since: Double? = nil) {
        activity = .idle
        restingOffset = offset
        autoplayClock.restSince = max(autoplayClock.restSince, since ?? time)
        noteRestingIndex()
    }

    /// Emits `cameToRest` when idle on a different item than the last resting one.
    mutating func noteRestingIndex() {
        guard case .idle = activity else { return }
        let index = geometry.index(atOffset: offset)
        if index != restingIndex {
            pendingEvents.append(.cameToRest(index: index, previous: restingIndex))
            restingIndex = index
        }
    }

    /// Disarms tilt because a higher input took over.
    mutating func suspendTilt() {
        tiltArmed = false
    }

    /// Cyclic normalisation: shifts every stored offset by whole cycles so that the offset lies
    /// in `[0, count · p)`; the layout is the same, so nothing visible changes.
    mutating func normalise() {
        let g = geometry
        guard g.wraps else { return }
        let k = Cyclic.cycles(of: offset, cycle: g.cycleLength)
        guard k != 0 else { return }
        shiftOffsets(by: -k * g.cycleLength)
    }

    /// Adds `shift` points to every stored offset (multiplying them by `factor` first).
    mutating func shiftOffsets(by shift: Double, scale factor: Double = 1) {
        offset = offset * factor + shift
        restingOffset = restingOffset * factor + shift
        switch activity {
        case .idle, .outerScrolling:
            break
        case var .dragging(drag):
            drag.rawStartOffset = drag.rawStartOffset * factor + shift
            activity = .dragging(drag)
        case let .moving(motion, phase, source):
            activity = .moving(motion.rescaled(by: factor, shiftedBy: shift), phase: phase, source: source)
        case let .tilting(base):
            activity = .tilting(base: base * factor + shift)
        }
    }
}
