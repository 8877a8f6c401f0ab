/// What the carousel is doing.
public enum CarouselPhase: String, Hashable, Sendable, CaseIterable {
    /// At rest.
    case idle
    /// A finger is down (before and after the drag threshold).
    case dragging
    /// Moving to the paging target after a drag or a fling was released.
    case decelerating
    /// Returning to a centered item after outer scroll or tilt ended (or after a touch that
    /// stopped a motion).
    case snapping
    /// A programmatic `scrollTo(animated: true)` or a tap-to-center animation.
    case animating
    /// Tilt drives the offset.
    case tilting
    /// The outer scroll view drives the offset.
    case outer_scrolling
}

/// A snapshot of the carousel, as the daemon publishes it.
public struct CarouselState: Hashable, Sendable {
    /// Logical content offset, points (grows toward higher indices; in cyclic mode normalised
    /// into `[0, count · p)`).
    public var offset: Double
    /// `offset / p`, the fractional item index.
    public var position: Double
    /// The logical index of the item nearest the center, `nil` when there are no items.
    public var index: Int?
    /// Content velocity, points per second, positive toward higher indices.
    public var velocity: Double
    public var phase: CarouselPhase
    /// Number of items.
    public var count: Int
    /// Engine time of this snapshot, seconds (the last `advance(to:)` or input time).
    public var time: Double

    public init(offset: Double, position: Double, index: Int?, velocity: Double, phase: CarouselPhase,
                count: Int, time: Double) {
        self.offset = offset
        self.position = position
        self.index = index
        self.velocity = velocity
        self.phase = phase
        self.count = count
        self.time = time
    }
}

/// Something observable that happened inside the engine; drain with `takeEvents()`.
public enum CarouselEvent: Hashable, Sendable {
    /// The carousel came to rest (phase `idle`) on a different item than the last time it
    /// rested (the daemon's `INDEX {index, previous}`). Either may be `nil` (no items).
    case cameToRest(index: Int?, previous: Int?)
    /// The autoplay state changed (the daemon's STATE `autoplay`): an interaction paused it, a
    /// step after the resume delay runs it again, or `setAutoplay` changed it.
    case autoplayChanged(AutoplayState)
}
