/// Changes to the carousel's structure: item count, viewport and item size, configuration.
extension CarouselEngine {
    /// Sets the number of items (negative counts are 0).
    ///
    /// During a motion the target item is kept if it still exists, else the target is clamped
    /// (cyclic: the same logical item, or the last one, reached the shortest way). At rest the
    /// centered item is kept where it still exists. The offset never stays out of range, and zero
    /// items is a valid state (offset 0, index `nil`); items added to an empty carousel start at item 0.
    public mutating func setCount(_ count: Int, at time: Double) {
        advance(to: time)
        let newCount = max(count, 0)
        var g = geometry
        let oldCount = g.count
        guard newCount != oldCount else { return }
        let p = g.pitch
        let wasCyclic = g.wraps
        let targetIndex: Int?
        if case let .moving(motion, _, _) = activity, oldCount > 0 {
            let slot = nearestSlot(motion.target / p)
            targetIndex = wasCyclic ? Cyclic.wrap(slot, oldCount) : slot
        } else {
            targetIndex = nil
        }
        g.count = newCount
        configuration.geometry = g
        guard newCount > 0 else {
            activity = .idle
            offset = 0
            restingOffset = 0
            noteRestingIndex()
            return
        }
        // Items beyond the new count are gone: an offset past the last item (or, cyclic, past the
        // end of the new cycle) comes back to the last item.
        let limit = g.wraps ? g.cycleLength : g.maximumOffset
        let lower = g.minimumOffset
        if g.wraps ? offset >= limit : offset > limit { offset = g.maximumOffset }
        if offset < lower { offset = lower }
        if g.wraps ? restingOffset >= limit : restingOffset > limit { restingOffset = g.maximumOffset }
        if restingOffset < lower { restingOffset = lower }
        switch activity {
        case let .moving(motion, phase, source):
            let keep = min(targetIndex ?? 0, newCount - 1)
            let slot = g.wraps ? Cyclic.nearestSlot(of: keep, toPosition: offset / p, count: newCount) : keep
            let v = offset == motion.offset(at: time) ? motion.velocity(at: time) : 0
            let grid = snapGrid
            activity = .idle
            startMotion(to: grid.offset(ofSnap: grid.snap(containingSlot: slot)), velocity: v, phase: phase,
                        source: source)
        case .idle:
            restingOffset = offset
            noteRestingIndex()
        case .dragging, .tilting, .outerScrolling:
            break
        }
        normalise()
    }

    /// Changes the viewport size, the item size, the spacing and optionally the axis and layout
    /// direction (the display client's real geometry). Not an input: keeps the fractional
    /// position (offsets scale with the pitch) and starts no snap.
    public mutating func resize(viewport: CarouselSize, item: CarouselSize, spacing: Double,
                                axis: ScrollAxis? = nil, direction: LayoutDirection? = nil, at time: Double) {
        advance(to: time)
        guard viewport.width.isFinite, viewport.height.isFinite, item.width.isFinite, item.height.isFinite,
              spacing.isFinite else { return }
        let oldPitch = geometry.pitch
        var g = geometry
        g.viewport = CarouselSize(width: max(viewport.width, 0), height: max(viewport.height, 0))
        g.item = CarouselSize(width: max(item.width, 0), height: max(item.height, 0))
        g.spacing = spacing
        if let axis { g.axis = axis }
        if let direction { g.direction = direction }
        configuration.geometry = g
        shiftOffsets(by: 0, scale: g.pitch / oldPitch)
        // A contained range depends on the viewport: a carousel at rest stays inside it.
        if g.isContained, case .idle = activity {
            offset = g.clampOffset(offset)
            restingOffset = offset
        }
        normalise()
    }

    /// Changes the layout style at run time (`set_style`). Not an input: nothing moves, only the
    /// attributes of the visible items change. Check it first with `CarouselConfiguration.validate()`
    /// (or `CustomStyle.validate()`) to report bad numbers; the styles never produce non-finite output.
    public mutating func setStyle(_ style: LayoutStyle, at time: Double) {
        advance(to: time)
        configuration.style = style
    }

    /// Replaces the configuration (a reload): geometry changes go through `resize` and
    /// `setCount` so the position is kept, style, paging, thresholds and tilt take effect at
    /// once; `initialIndex` is ignored; cyclic on/off keeps the centered item.
    public mutating func reconfigure(_ new: CarouselConfiguration, at time: Double) {
        advance(to: time)
        let ng = new.geometry
        if ng.align != geometry.align || ng.contain != geometry.contain {
            configuration.geometry.align = ng.align
            configuration.geometry.contain = ng.contain
            offset = geometry.clampOffset(offset)
            restingOffset = geometry.clampOffset(restingOffset)
        }
        if ng.cyclic != geometry.cyclic {
            let index = geometry.index(atOffset: offset)
            activity = .idle
            configuration.geometry.cyclic = ng.cyclic
            offset = Double(index ?? 0) * geometry.pitch
            restingOffset = offset
        }
        resize(viewport: ng.viewport, item: ng.item, spacing: ng.spacing, axis: ng.axis, direction: ng.direction,
               at: time)
        setCount(ng.count, at: time)
        configuration.style = new.style
        configuration.paging = new.paging
        configuration.dragThreshold = new.dragThreshold
        configuration.outerScrollRatio = new.outerScrollRatio
        configuration.groupSize = new.groupSize
        // The user's pause is runtime state, not configuration: a reload keeps it.
        var autoplay = new.autoplay
        autoplay.paused = configuration.autoplay.paused
        applyAutoplay(autoplay, replacing: configuration.autoplay)
        let t = new.tilt
        setTilt(enabled: t.enabled, mode: t.mode, deadZoneDegrees: t.deadZoneDegrees, maxDegrees: t.maxDegrees,
                maxItemsPerSecond: t.maxItemsPerSecond, at: time)
    }
}
