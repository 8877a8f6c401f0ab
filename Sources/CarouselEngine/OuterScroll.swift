/// Outer scroll coupling (seed 001 item 7): the carousel slides while an enclosing vertical
/// scroll view scrolls, `Δoffset = ratio · Δy` (scrolling up, y growing, moves the cards toward
/// higher indices). The offset is logical, so the coupling does not flip in RTL.
extension CarouselEngine {
    /// A sample of the outer scroll view's offset `y` (points) at `time`. The first sample of a
    /// scroll only sets the baseline. While a higher input owns the carousel the samples only
    /// move the baseline. Non-cyclic offsets are clamped to the scroll range.
    public mutating func outerScroll(y: Double, at time: Double) {
        advance(to: time)
        guard y.isFinite else { return }
        let y = CarouselLimits.coordinate(y)
        guard let lastY = outerScrollLastY else {
            outerScrollLastY = y
            outerScrollLastTime = self.time
            return
        }
        let dy = y - lastY
        let dt = self.time - outerScrollLastTime
        outerScrollLastY = y
        outerScrollLastTime = self.time
        if dy != 0 { pauseAutoplayForInteraction() }
        guard geometry.count > 0, activity.allows(.outerScroll) else { return }
        if case .outerScrolling = activity {} else {
            guard dy != 0 else { return }
            suspendTilt()
        }
        let before = offset
        offset = geometry.clampOffset(offset + configuration.outerScrollRatio * dy)
        let v = dt > 1e-9 ? (offset - before) / dt : 0
        activity = .outerScrolling(velocity: v.isFinite ? v : 0)
        normalise()
    }

    /// The outer scroll ended: the next sample is a new baseline, and the carousel snaps to the
    /// nearest item if the outer scroll was driving it.
    public mutating func outerScrollEnded(at time: Double) {
        advance(to: time)
        outerScrollLastY = nil
        if case .outerScrolling = activity {
            activity = .idle
            snapToNearest(source: .outerScroll)
            normalise()
        }
    }
}
