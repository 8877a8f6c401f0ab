/// Autoplay (attract mode; iCarousel `autoscroll`, Swiper and Flickity `autoplay`, Embla's
/// autoplay plugin): after `intervalSeconds` at rest the carousel advances by `step` snap
/// positions (items, or groups with `groupSize` > 1) with the scroll animation.
///
/// Time counts from the moment the carousel came to rest (Swiper's `delay` runs between
/// transitions, so a slow animation never shortens the pause). Any interaction (a touch, a tap,
/// `scrollTo`, `setOffset`, a fling, an outer-scroll sample that moves, a tilt sample outside
/// the dead zone while tilt is enabled) pauses it; after `resumeSeconds` of rest following the
/// last interaction it takes the next step and runs again. A user's pause (`paused`, WCAG 2.2.2's
/// pause control) lasts until it is lifted; lifting it, enabling autoplay or changing its
/// interval starts a fresh interval from that moment.
public struct AutoplaySettings: Hashable, Sendable {
    /// Whether autoplay may run (it runs only with a positive interval too). Default `true`, so
    /// that `intervalSeconds` alone (`[carousel] autoplay_s`) switches it on.
    public var enabled: Bool
    /// Seconds at rest before each step; 0 = off (the default). Positive values below
    /// `minimumIntervalSeconds` act as it.
    public var intervalSeconds: Double
    /// Seconds of rest after an interaction before the next step. Default 10.
    public var resumeSeconds: Double
    /// Snap positions per step, non-zero (+1: toward higher indices; −1: backwards). Default 1.
    public var step: Int
    /// The user's pause: no step until it is lifted. Default `false`.
    public var paused: Bool

    public init(enabled: Bool = true, intervalSeconds: Double = 0, resumeSeconds: Double = 10, step: Int = 1,
                paused: Bool = false) {
        self.enabled = enabled
        self.intervalSeconds = intervalSeconds
        self.resumeSeconds = resumeSeconds
        self.step = step
        self.paused = paused
    }

    /// The shortest interval the engine runs, seconds: a step and its animation never follow
    /// each other faster than this, whatever the configuration says.
    public static let minimumIntervalSeconds = 0.1
    /// The longest interval or resume delay, seconds (one day).
    public static let maximumSeconds = 86_400.0
    /// The largest |step|, snap positions.
    public static let maximumStep = 1000

    /// Whether autoplay is on at all (enabled with a positive interval).
    @inlinable public var isOn: Bool { enabled && intervalSeconds > 0 }

    /// The interval in effect, seconds (at least `minimumIntervalSeconds`).
    var effectiveInterval: Double {
        min(max(intervalSeconds, Self.minimumIntervalSeconds), Self.maximumSeconds)
    }

    /// The resume delay in effect, seconds (negative and non-finite values act as 0).
    var effectiveResume: Double {
        resumeSeconds.isFinite ? min(max(resumeSeconds, 0), Self.maximumSeconds) : 0
    }
}

/// What autoplay is doing, as the daemon publishes it (STATE `autoplay`).
public enum AutoplayState: String, Hashable, Sendable, CaseIterable {
    /// Disabled or interval 0.
    case off
    /// Counting down to the next step, or stepping.
    case running
    /// Paused by the user (`paused`) or by an interaction (until `resumeSeconds` of rest).
    case paused
}

/// The autoplay bookkeeping inside the engine.
struct AutoplayClock: Hashable, Sendable {
    /// When the current rest began: the later of the last time the carousel came to rest and the
    /// last interaction, seconds.
    var restSince: Double
    /// An interaction paused autoplay since its last step: the next step waits `resumeSeconds`.
    var interrupted = false
    /// Steps taken since the engine started.
    var steps = 0
}

extension CarouselEngine {
    /// The autoplay settings in effect.
    public var autoplaySettings: AutoplaySettings { configuration.autoplay }

    /// `off`, `running` or `paused` (by the user, or by an interaction until it resumes).
    public var autoplayState: AutoplayState {
        let a = configuration.autoplay
        guard a.isOn else { return .off }
        return a.paused || autoplayClock.interrupted ? .paused : .running
    }

    /// The engine time (seconds) of the next autoplay step if no input arrives first, `nil` when
    /// none is due (autoplay off or paused by the user, fewer than two items, or the carousel is
    /// not at rest: a motion's end is not a deadline, `isMoving` covers it). A frame loop that is
    /// not moving sleeps until this time and then calls `advance(to:)`, which takes the step at
    /// exactly this time however late it wakes: one wake-up per step, none otherwise.
    public var nextDeadline: Double? {
        let a = configuration.autoplay
        guard a.isOn, !a.paused, geometry.count >= 2, case .idle = activity else { return nil }
        let c = autoplayClock
        return c.restSince + (c.interrupted ? a.effectiveResume : a.effectiveInterval)
    }

    /// Changes the autoplay settings at run time (`set_autoplay`); `nil` keeps a value. Switching
    /// it on, lifting the user's pause or changing the interval starts a fresh interval now.
    /// Non-finite numbers are ignored; a zero step keeps the old one.
    public mutating func setAutoplay(enabled: Bool? = nil, paused: Bool? = nil, intervalSeconds: Double? = nil,
                                     resumeSeconds: Double? = nil, step: Int? = nil, at time: Double) {
        advance(to: time)
        let old = configuration.autoplay
        var a = old
        if let enabled { a.enabled = enabled }
        if let paused { a.paused = paused }
        if let v = intervalSeconds, v.isFinite { a.intervalSeconds = max(v, 0) }
        if let v = resumeSeconds, v.isFinite { a.resumeSeconds = max(v, 0) }
        if let step, step != 0 { a.step = min(max(step, -AutoplaySettings.maximumStep), AutoplaySettings.maximumStep) }
        applyAutoplay(a, replacing: old)
    }

    /// Installs new settings; a fresh interval starts when autoplay turns on, is unpaused or its
    /// interval changes.
    mutating func applyAutoplay(_ a: AutoplaySettings, replacing old: AutoplaySettings) {
        let before = autoplayState
        configuration.autoplay = a
        if a.isOn && (!old.isOn || (old.paused && !a.paused) || a.intervalSeconds != old.intervalSeconds) {
            autoplayClock.restSince = time
            autoplayClock.interrupted = false
        }
        noteAutoplayState(before)
    }

    // MARK: - Internals

    /// An interaction pauses autoplay until `resumeSeconds` after the carousel is at rest again.
    mutating func pauseAutoplayForInteraction() {
        guard configuration.autoplay.isOn else { return }
        let before = autoplayState
        autoplayClock.interrupted = true
        autoplayClock.restSince = max(autoplayClock.restSince, time)
        noteAutoplayState(before)
    }

    /// Emits `autoplayChanged` when the state differs from `before`.
    mutating func noteAutoplayState(_ before: AutoplayState) {
        let now = autoplayState
        if now != before { pendingEvents.append(.autoplayChanged(now)) }
    }

    /// Takes every step due up to `time`, each at its exact deadline, and lands every step
    /// animation that ends before `time` at its exact end (so the next interval counts from
    /// there). Only called while autoplay is on.
    mutating func runAutoplay(until time: Double) {
        // Each pass either takes a step or lands a motion, and a step's animation plus an
        // interval is at least `minimumIntervalSeconds`: the loop ends.
        while true {
            if let deadline = nextDeadline, deadline <= time {
                integrate(to: deadline)
                takeAutoplayStep()
                continue
            }
            if case let .moving(motion, _, _) = activity, motion.isFinished(at: time) {
                let end = max(motion.endTime, self.time)
                self.time = end
                offset = motion.target
                comeToRest(since: end)
                normalise()
                continue
            }
            return
        }
    }

    /// One step: `step` snap positions from the resting one, with the scroll animation. A
    /// non-cyclic carousel that would pass its last snap goes to it, and from the last snap
    /// rewinds to the first (and backwards: from the first to the last), as Swiper's `rewind`
    /// and Flickity's autoplay without `wrapAround` do.
    mutating func takeAutoplayStep() {
        let before = autoplayState
        let grid = snapGrid
        let step = configuration.autoplay.step
        let here = grid.nearestSnap(offset)
        var target = here + step
        if !grid.wraps {
            let last = grid.lastSnap
            if target > last { target = here >= last ? 0 : last }
            if target < 0 { target = here <= 0 ? last : 0 }
        }
        autoplayClock.interrupted = false
        autoplayClock.steps += 1
        startMotion(to: grid.offset(ofSnap: target), velocity: 0, phase: .animating, source: .autoplay)
        normalise()
        noteAutoplayState(before)
    }
}
