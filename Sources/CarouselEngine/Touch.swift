/// Touch input: drag, fling, tap.
extension CarouselEngine {
    /// A finger went down at `location` (along the scroll axis, viewport points) at `time`
    /// (seconds). Catches a moving carousel where it is and suspends every lower input.
    public mutating func dragBegan(location: Double, at time: Double) {
        advance(to: time)
        guard geometry.count > 0, location.isFinite else { return }
        var interrupted = true
        if case .idle = activity { interrupted = false }
        let g = geometry
        let raw = g.wraps ? offset : RubberBand.raw(offset: offset, maximum: g.maximumOffset, dimension: g.viewportAlong)
        activity = .dragging(DragState(
            tracker: DragTracker(location: location, time: self.time, threshold: configuration.dragThreshold),
            rawStartOffset: raw, interruptedMotion: interrupted))
        suspendTilt()
    }

    /// The finger moved to `location` (viewport points along the axis). Before the drag
    /// threshold is crossed nothing moves; after, the content follows the finger from the
    /// crossing point, with rubber banding beyond the ends of a non-cyclic carousel.
    public mutating func dragMoved(location: Double, at time: Double) {
        advance(to: time)
        guard case var .dragging(drag) = activity, location.isFinite else { return }
        drag.tracker.move(to: location, at: self.time)
        activity = .dragging(drag)
        followFinger(drag, location: location)
    }

    /// The finger lifted at `location`. `velocity` is the finger's velocity along the axis in
    /// points per second (`nil`: estimated from the last 0.1 s of samples). A touch that never
    /// crossed the drag threshold is a tap at its start location; otherwise the paging policy
    /// picks the target and the carousel decelerates onto it.
    public mutating func dragEnded(location: Double, velocity: Double? = nil, at time: Double) {
        advance(to: time)
        guard case var .dragging(drag) = activity else { return }
        if location.isFinite { drag.tracker.move(to: location, at: self.time) }
        guard drag.tracker.hasCrossed else {
            activity = .idle
            if !tapItem(location: drag.tracker.startLocation, cross: nil) {
                if drag.interruptedMotion {
                    snapToNearest(source: .drag)
                } else {
                    noteRestingIndex()
                }
            }
            normalise()
            return
        }
        if location.isFinite { followFinger(drag, location: location) }
        let finger = velocity.flatMap { $0.isFinite ? $0 : nil } ?? drag.tracker.estimatedVelocity()
        release(velocity: fingerSign * finger)
    }

    /// A release at content offset `offset` (points) with content velocity `velocity` (pt/s,
    /// positive toward higher indices), as if a drag had just ended there.
    public mutating func fling(offset: Double, velocity: Double, at time: Double) {
        advance(to: time)
        guard geometry.count > 0, offset.isFinite else { return }
        suspendTilt()
        self.offset = offset
        release(velocity: velocity.isFinite ? velocity : 0)
    }

    /// A tap at `location` along the axis and `cross` across it (viewport points; `nil` = the
    /// viewport's middle): hit-tests the visible items, topmost `zIndex` first, on their
    /// transformed frames, and animates the hit item to the center. A tap on no item, or while a
    /// finger is down, does nothing.
    public mutating func tap(location: Double, cross: Double? = nil, at time: Double) {
        advance(to: time)
        if case .dragging = activity { return }
        _ = tapItem(location: location, cross: cross)
        normalise()
    }

    // MARK: - Internals

    mutating func followFinger(_ drag: DragState, location: Double) {
        guard drag.tracker.hasCrossed else { return }
        let g = geometry
        let raw = drag.rawStartOffset + fingerSign * drag.tracker.travel(to: location)
        offset = g.wraps ? raw : RubberBand.offset(raw: raw, maximum: g.maximumOffset, dimension: g.viewportAlong)
        normalise()
    }

    /// Applies the paging policy to a release at the current offset with content `velocity`.
    mutating func release(velocity: Double) {
        let g = geometry
        let slot = configuration.paging.targetSlot(offset: offset, velocity: velocity, pitch: g.pitch,
                                                   restingOffset: restingOffset)
        activity = .idle
        startMotion(to: self.offset(ofSlot: slot), velocity: velocity, phase: .decelerating, source: .drag)
        normalise()
    }

    /// Hit-tests and, on a hit, animates the item to the center. Returns whether an item was hit.
    mutating func tapItem(location: Double, cross: Double?) -> Bool {
        guard geometry.count > 0, location.isFinite, activity.allows(.scrollTo) else { return false }
        let g = geometry
        let crossValue = cross.flatMap { $0.isFinite ? $0 : nil } ?? g.viewportCross / 2
        let point = g.axis == .horizontal ? CarouselPoint(x: location, y: crossValue)
                                          : CarouselPoint(x: crossValue, y: location)
        let middle = CarouselPoint(x: g.viewport.width / 2, y: g.viewport.height / 2)
        guard let hit = HitTest.topmostItem(at: point, in: visibleItems(), viewportCenter: middle) else { return false }
        suspendTilt()
        let v = velocity
        activity = .idle
        startMotion(to: Double(hit.slot) * g.pitch, velocity: v, phase: .animating, source: .scrollTo)
        return true
    }
}
