/// A paging policy: UIKit's `targetContentOffset(forProposedContentOffset:withScrollingVelocity:)`
/// rule, applied when a drag or a fling ends (INTERFACES §1 "Paging, exactly").
public enum PagingPolicy: Hashable, Sendable {
    /// The item nearest the release offset; velocity ignored (seed 001).
    case nearest
    /// Project the release with UIScrollView's deceleration, then take the nearest item (rate per
    /// millisecond: 0.998 normal, 0.99 fast). `maxItemsPerFling` (≥ 1, or `nil` for no limit)
    /// caps the distance, in items, from the item the carousel rested on before the gesture.
    case momentum(decelerationRate: Double, maxItemsPerFling: Int?)
    /// Above `velocityThreshold` (pt/s) move exactly one item in the velocity's direction,
    /// otherwise the nearest item (seed 003; its 0.5 pt/ms is 500 pt/s).
    case single(velocityThreshold: Double)
    /// Moved more than `fraction` of a pitch from the last resting offset → the next item in the
    /// move direction, else back to the last resting item (seed 004, 1/8 there).
    case distance(fraction: Double)

    /// The default: `momentum` with UIScrollView's normal rate 0.998 and no item limit.
    public static let `default` = PagingPolicy.momentum(decelerationRate: 0.998, maxItemsPerFling: nil)

    /// The target item slot (unwrapped; unclamped) for a release.
    ///
    /// - Parameters:
    ///   - offset: the content offset at release, points.
    ///   - velocity: the content velocity at release, points per second (positive toward higher
    ///     indices).
    ///   - pitch: `p`, points.
    ///   - restingOffset: the offset the carousel last rested at before the gesture, points.
    /// - Returns: the slot `k`; the caller clamps it to `[0, n - 1]` unless cyclic and moves to
    ///   `k · p`.
    public func targetSlot(offset: Double, velocity: Double, pitch: Double, restingOffset: Double) -> Int {
        let position = offset / pitch
        switch self {
        case .nearest:
            return nearestSlot(position)
        case let .momentum(rate, maxItems):
            let projected = Deceleration.restOffset(from: offset, velocity: velocity, rate: rate)
            var slot = nearestSlot(projected / pitch)
            if let maxItems {
                let origin = nearestSlot(restingOffset / pitch)
                let limit = max(maxItems, 0)
                slot = min(max(slot, origin - limit), origin + limit)
            }
            return slot
        case let .single(threshold):
            if velocity > threshold { return saturatingInt(position.rounded(.down)) + 1 }
            if velocity < -threshold { return saturatingInt(position.rounded(.up)) - 1 }
            return nearestSlot(position)
        case let .distance(fraction):
            let moved = offset - restingOffset
            if moved > fraction * pitch { return saturatingInt(position.rounded(.down)) + 1 }
            if moved < -fraction * pitch { return saturatingInt(position.rounded(.up)) - 1 }
            return nearestSlot(restingOffset / pitch)
        }
    }
}
