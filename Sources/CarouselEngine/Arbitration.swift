/// The inputs that can move the carousel, in priority order (seed 001 items 7–10, docs/ENGINE.md "Arbitration"):
/// touch drag > programmatic `scrollTo` (and tap-to-center) > outer scroll > tilt.
///
/// Rules the engine applies:
/// - An input may take over only when nothing of a higher priority is in progress (a finger
///   down, or the motion that a higher source started after it ended); an equal or higher
///   priority input interrupts a lower one. Motions after a release rank at most as `scrollTo`,
///   so a programmatic scroll or a tap may redirect a deceleration.
/// - Every source that ends hands over to a motion toward a centered item, which keeps its
///   source's priority until it lands.
/// - Tilt is armed at start-up; any higher input disarms it, and it re-arms only when a tilt
///   sample inside the dead zone arrives.
/// - An outer scroll sample that may not take over only moves the outer-scroll baseline, so that
///   it resumes without a jump.
public enum InputSource: Int, Hashable, Sendable, Comparable, CaseIterable {
    /// Autoplay's steps: not an input, below all of them (any input may take over a step).
    case autoplay = -1
    case tilt = 0
    case outerScroll = 1
    case scrollTo = 2
    case drag = 3

    public static func < (lhs: InputSource, rhs: InputSource) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What currently owns the content offset.
enum Activity: Hashable, Sendable {
    case idle
    /// A finger is down; `interruptedMotion` tells whether it caught a moving carousel.
    case dragging(DragState)
    /// A motion toward a target, started by `source`, shown as `phase`.
    case moving(Motion, phase: CarouselPhase, source: InputSource)
    /// Tilt drives the offset; `base` is the spring-back offset in position mode.
    case tilting(base: Double)
    /// The outer scroll drives the offset; `velocity` is the last sample's content velocity.
    case outerScrolling(velocity: Double)

    /// The source that owns the offset, `nil` when idle.
    var source: InputSource? {
        switch self {
        case .idle: return nil
        case .dragging: return .drag
        case let .moving(_, _, source): return source
        case .tilting: return .tilt
        case .outerScrolling: return .outerScroll
        }
    }

    /// Whether an input from `source` may take the offset now. A motion that runs after the
    /// finger lifted ranks at most as `scrollTo`: a programmatic scroll or a tap may redirect it,
    /// outer scroll and tilt may not.
    func allows(_ source: InputSource) -> Bool {
        switch self {
        case .idle: return true
        case let .moving(_, _, owner): return source >= min(owner, .scrollTo)
        default: return source >= (self.source ?? .tilt)
        }
    }
}

/// A touch in progress.
struct DragState: Hashable, Sendable {
    var tracker: DragTracker
    /// The unconstrained (pre-rubber-band) offset when the drag crossed its threshold or began.
    var rawStartOffset: Double
    /// Whether the touch caught a moving carousel (then a tap on nothing still snaps).
    var interruptedMotion: Bool
}
