/// Programmatic input: `setOffset` and `scrollTo`.
extension CarouselEngine {
    /// Places the content at `offset` (points) at once, like UIKit's
    /// `setContentOffset(_:animated: false)`: stops any motion, no animation and no snap until the
    /// next input. Clamped into the scroll range unless cyclic. Ignored while a finger is down.
    public mutating func setOffset(_ offset: Double, at time: Double) {
        advance(to: time)
        guard offset.isFinite else { return }
        if case .dragging = activity { return }
        pauseAutoplayForInteraction()
        activity = .idle
        self.offset = geometry.count > 0 ? geometry.clampOffset(CarouselLimits.coordinate(offset)) : 0
        normalise()
        restingOffset = self.offset
        noteRestingIndex()
    }

    /// Scrolls to item `index` (clamped into `[0, count − 1]`; with groups, to the first item of
    /// its group): animated with the scroll
    /// animation (phase `animating`) or at once. In cyclic mode the shortest way round (a tie at
    /// exactly half a cycle goes forward). Ignored while a finger is down; suspends outer scroll
    /// and tilt.
    public mutating func scrollTo(index: Int, animated: Bool, at time: Double) {
        advance(to: time)
        let g = geometry
        guard g.count > 0, activity.allows(.scrollTo) else { return }
        suspendTilt()
        pauseAutoplayForInteraction()
        let grid = snapGrid
        // With groups, the group's first item (the only place the carousel rests); contained,
        // the snap the item belongs to.
        let snap = grid.snap(containingSlot: min(max(index, 0), g.count - 1))
        let target: Double
        if g.wraps {
            let first = grid.slot(ofSnap: snap)
            target = Double(Cyclic.nearestSlot(of: first, toPosition: offset / g.pitch, count: g.count)) * g.pitch
        } else {
            target = grid.offset(ofSnap: snap)
        }
        let v = velocity
        activity = .idle
        if animated {
            startMotion(to: target, velocity: v, phase: .animating, source: .scrollTo)
        } else {
            offset = target
            comeToRest()
        }
        normalise()
    }
}
