/// Inserting and removing items at an index (iCarousel `insertItemAtIndex:animated:` and
/// `removeItemAtIndex:animated:`, Swiper's `addSlide`/`removeSlide`). `setCount` stays the
/// append/truncate form.
///
/// The card at the reference point keeps its place on screen: every stored offset (the content,
/// the resting offset, a drag's anchor, a motion's start and target) moves by the inserted or
/// removed length before it, so nothing visible jumps and `index` names the same card (a
/// `cameToRest` event reports its new index). Inserting *at* the current index puts the new
/// items before the current card, which stays (Swiper instead keeps the index number, so its
/// active slide becomes the new one; keeping the card is what the issue asks for).
///
/// Removing the current card hands the reference point to its nearest neighbour: the card after
/// the removed range (it takes the removed index, as in Swiper and iCarousel), or, at the end of
/// a non-cyclic carousel, the card before it. Not animated, the neighbour is there at once;
/// animated, it starts where it was on screen and slides in with the scroll animation (phase
/// `animating`). A motion in progress keeps its target card (or that card's neighbour).
extension CarouselEngine {
    /// Inserts `count` items before item `index` (0…count; `count` appends). Negative or zero
    /// counts do nothing; the total is capped at `CarouselLimits.maximumCount`.
    public mutating func insertItems(at index: Int, count k: Int, animated: Bool, at time: Double) {
        advance(to: time)
        let n = geometry.count
        let k = min(k, CarouselLimits.maximumCount - n)
        guard k > 0 else { return }
        guard n > 0 else {
            setCount(k, at: time)
            return
        }
        let a = min(max(index, 0), n)
        edit(newCount: n + k, animated: animated) { i in i < a ? i : i + k } neighbour: { i in i }
    }

    /// Removes `count` items starting at item `index` (clamped into range; at most the items
    /// from `index` to the end). Removing every item leaves an empty carousel.
    public mutating func removeItems(at index: Int, count r: Int, animated: Bool, at time: Double) {
        advance(to: time)
        let n = geometry.count
        guard n > 0, r > 0, index < n else { return }
        let a = max(index, 0)
        let r = min(r, n - a)
        guard r < n else {
            setCount(0, at: time)
            return
        }
        let wraps = geometry.wraps
        edit(newCount: n - r, animated: animated) { i in
            i < a ? i : (i >= a + r ? i - r : nil)
        } neighbour: { i in
            // The follower (old a + r; cyclic: item 0 after the seam), else the card before.
            wraps || a + r < n ? i + (a + r - Cyclic.wrap(i, n)) : i - (Cyclic.wrap(i, n) - a) - 1
        }
    }

    // MARK: - Internals

    /// Moves every offset so that the reference card (or its neighbour) keeps its place.
    /// - Parameters:
    ///   - keep: an old index's new index, `nil` when it is removed.
    ///   - neighbour: for an old unwrapped slot whose item is removed, the old slot of the card
    ///     that takes its place.
    mutating func edit(newCount: Int, animated: Bool, keep: (Int) -> Int?, neighbour: (Int) -> Int) {
        let g = geometry
        let n = g.count, p = g.pitch
        // The new unwrapped slot of an old unwrapped slot, and whether its card survived.
        func moved(_ slot: Int) -> (old: Int, new: Int, kept: Bool) {
            let index = g.wraps ? Cyclic.wrap(slot, n) : min(max(slot, 0), n - 1)
            let instance = g.wraps ? Cyclic.instance(slot, n) : 0
            let base = g.wraps ? slot : index
            if let kept = keep(index) { return (base, kept + instance * newCount, true) }
            let other = neighbour(base)
            let otherIndex = g.wraps ? Cyclic.wrap(other, n) : other
            let otherInstance = g.wraps ? Cyclic.instance(other, n) : 0
            return (other, (keep(otherIndex) ?? 0) + otherInstance * newCount, false)
        }
        let reference = moved(nearestSlot(offset / p))
        var motionTarget: (moved: (old: Int, new: Int, kept: Bool), v: Double, phase: CarouselPhase, source: InputSource)?
        if case let .moving(motion, phase, source) = activity {
            motionTarget = (moved(nearestSlot(motion.target / p)), motion.velocity(at: time), phase, source)
        }
        shiftOffsets(by: Double(reference.new - reference.old) * p)
        configuration.geometry.count = newCount
        let grid = snapGrid
        let ng = geometry
        if let (target, v, phase, source) = motionTarget {
            // The motion was shifted with the reference card; aim it at its own card's new place.
            let goal = ng.wraps ? grid.offset(ofSnap: grid.snap(containingSlot: target.new))
                                : ng.clampOffset(grid.offset(ofSnap: grid.snap(containingSlot: target.new)))
            activity = .idle
            startMotion(to: goal, velocity: v, phase: phase, source: source)
        } else if case .idle = activity {
            let goal = reference.kept ? ng.clampOffset(offset)
                                      : grid.offset(ofSnap: grid.snap(containingSlot: reference.new))
            if goal != offset {
                if animated {
                    startMotion(to: goal, velocity: 0, phase: .animating, source: .scrollTo)
                } else {
                    offset = goal
                    comeToRest()
                }
            } else {
                restingOffset = offset
                noteRestingIndex()
            }
        } else if !ng.wraps {
            offset = ng.clampOffset(offset)
        }
        normalise()
    }
}
