/// Arithmetic of cyclic (wrapping) carousels.
///
/// Drags and motions are computed in one unbounded coordinate, so they cross the seam without a
/// jump; after every input and `advance` the engine normalises the offset into `[0, count · p)`
/// by shifting *every* stored offset (drag anchor, motion start and target, resting offset) by
/// the same whole number of cycles. The layout at `offset` equals the layout at
/// `offset ± k · count · p`, so the shift is invisible. Visible items are enumerated by unwrapped
/// slot `s`: the logical index is `s mod count` and the instance `floor(s / count)`.
///
/// Too few items to fill the viewport (`count · p` shorter than the visible span): the same
/// logical item appears as several instances (e.g. one item of a wide viewport shows at slots
/// −1, 0 and 1); there is never a gap, and positions stay finite.
public enum Cyclic {
    /// `value mod count` in `[0, count)`; `count` must be positive.
    @inlinable public static func wrap(_ value: Int, _ count: Int) -> Int {
        let r = value % count
        return r < 0 ? r + count : r
    }

    /// `floor(value / count)`, the instance number of an unwrapped slot.
    @inlinable public static func instance(_ value: Int, _ count: Int) -> Int {
        let q = value / count
        return (value % count != 0 && value < 0) ? q - 1 : q
    }

    /// The whole number of cycles `k` such that `offset - k · cycle` lies in `[0, cycle)`.
    @inlinable static func cycles(of offset: Double, cycle: Double) -> Double {
        guard cycle > 0, offset.isFinite else { return 0 }
        return (offset / cycle).rounded(.down)
    }

    /// The unwrapped slot of logical item `index` nearest the fractional `position`
    /// (the shortest way round; a tie at exactly half a cycle goes forward).
    @inlinable public static func nearestSlot(of index: Int, toPosition position: Double, count: Int) -> Int {
        let n = Double(count)
        let k = ((position - Double(index)) / n + 0.5).rounded(.down)
        return index + saturatingInt(k) * count
    }
}
