/// Touch input: drag, fling, tap.
extension CarouselEngine {
    /// A finger went down at `location` (along the scroll axis, viewport points) at `time`
    /// (seconds). Catches a moving carousel where it is and suspends every lower input.
    public mutating func dragBegan(location: Double, at time: Double) {
        advance(to: time)
        guard geometry.count > 0, location.isFinite else { return }
        pauseAutoplayForInteraction()
        let location = CarouselLimits.coordinate(location)
        var interrupted = true
        if case .idle = activity { interrupted = false }
        let g = geometry
        let raw = g.wraps ? offset : RubberBand.raw(offset: offset, minimum: g.minimumOffset, maximum: g.maximumOffset,
                                                     dimension: g.viewportAlong)
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
        let location = CarouselLimits.coordinate(location)
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
        let location = CarouselLimits.coordinate(location)
        if location.isFinite { drag.tracker.move(to: location, at: self.time) }
        guard drag.tracker.hasCrossed else {
            activity = .idle
            if !tapItem(location: drag.tracker.startLocation, cross: nil) {
                if drag.interruptedMotion, case .free(_, 0) = configuration.paging {
                    comeToRest()  // free scroll: a touch stops a glide where it is (Flickity)
                } else if drag.interruptedMotion {
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
        release(velocity: fingerSign * CarouselLimits.speed(finger))
    }

    /// A release at content offset `offset` (points) with content velocity `velocity` (pt/s,
    /// positive toward higher indices), as if a drag had just ended there. Inputs are clamped
    /// into `CarouselLimits`; a non-cyclic offset is taken at most one viewport length beyond the
    /// ends (the rubber band never shows more). In cyclic mode `offset` names a phase: the copy
    /// nearest the current offset is used, as a drag from here would have reached it, so that
    /// `maxItemsPerFling` and `distance` measure from the resting item's nearby copy rather than
    /// from one many cycles away.
    public mutating func fling(offset: Double, velocity: Double, at time: Double) {
        advance(to: time)
        guard geometry.count > 0, offset.isFinite else { return }
        suspendTilt()
        pauseAutoplayForInteraction()
        let g = geometry
        if g.wraps {
            let o = CarouselLimits.coordinate(offset)
            let cycle = g.cycleLength
            self.offset = o + ((self.offset - o) / cycle).rounded() * cycle
        } else {
            self.offset = min(max(offset, g.minimumOffset - g.viewportAlong), g.maximumOffset + g.viewportAlong)
        }
        release(velocity: velocity.isFinite ? CarouselLimits.speed(velocity) : 0)
    }

    /// A tap at `location` along the axis and `cross` across it (viewport points; `nil` = the
    /// viewport's middle): hit-tests the visible items, topmost `zIndex` first, on their
    /// transformed frames, and animates the hit item to the center. A tap on no item, or while a
    /// finger is down, does nothing.
    public mutating func tap(location: Double, cross: Double? = nil, at time: Double) {
        advance(to: time)
        if case .dragging = activity { return }
        pauseAutoplayForInteraction()
        _ = tapItem(location: location, cross: cross)
        normalise()
    }

    // MARK: - Internals

    mutating func followFinger(_ drag: DragState, location: Double) {
        guard drag.tracker.hasCrossed else { return }
        let g = geometry
        let raw = drag.rawStartOffset + fingerSign * drag.tracker.travel(to: location)
        offset = g.wraps ? raw : RubberBand.offset(raw: raw, minimum: g.minimumOffset, maximum: g.maximumOffset,
                                                   dimension: g.viewportAlong)
        normalise()
    }

    /// Applies the paging policy to a release at the current offset with content `velocity`.
    mutating func release(velocity: Double) {
        if case let .free(rate, sticky) = configuration.paging {
            releaseFree(velocity: velocity, rate: rate, stickyVelocity: sticky)
            return
        }
        let grid = snapGrid
        let snap = configuration.paging.targetSnap(offset: offset, velocity: velocity, restingOffset: restingOffset,
                                                   snapLength: grid.groupLength, coordinate: grid.coordinate)
        activity = .idle
        startMotion(to: grid.offset(ofSnap: snap), velocity: velocity, phase: .decelerating, source: .drag)
        normalise()
    }

    /// Free scroll: decelerate to UIScrollView's rest point (clamped into the scroll range) and
    /// stay there, or, sticky, glide until `stickyVelocity` and spring to the nearest snap.
    mutating func releaseFree(velocity: Double, rate: Double, stickyVelocity: Double) {
        let rest = geometry.clampOffset(Deceleration.restOffset(from: offset, velocity: velocity, rate: rate))
        activity = .idle
        if stickyVelocity > 0 {
            let grid = snapGrid
            let motion = Motion.sticky(startTime: time, offset: offset, velocity: velocity, glideTarget: rest,
                                       snapTarget: grid.offset(ofSnap: grid.nearestSnap(rest)), snapSpeed: stickyVelocity)
            start(motion, phase: .decelerating, source: .drag)
        } else {
            startMotion(to: rest, velocity: velocity, phase: .decelerating, source: .drag)
        }
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
        let grid = snapGrid
        startMotion(to: grid.offset(ofSnap: grid.snap(containingSlot: hit.slot)), velocity: v, phase: .animating,
                    source: .scrollTo)
        return true
    }
}
