/// A paging policy: UIKit's `targetContentOffset(forProposedContentOffset:withScrollingVelocity:)`
/// rule, applied when a drag or a fling ends (docs/ENGINE.md "Paging").
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
    /// Free scroll (Swiper `freeMode`, Flickity `freeScroll`, Embla `dragFree`): the release
    /// decelerates with UIScrollView's rate and stops wherever it stops, no snap (non-cyclic:
    /// at most at an end). With `stickyVelocity` > 0 (pt/s) it glides the same way until its
    /// speed has fallen to `stickyVelocity` and then springs to the snap nearest its free rest
    /// point (a release slower than that snaps at once); 0 = never snap.
    case free(decelerationRate: Double, stickyVelocity: Double)

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
        targetSnap(offset: offset, velocity: velocity, restingOffset: restingOffset, snapLength: pitch) { $0 / pitch }
    }

    /// The target snap for a release, with the rules above written in snap coordinates: `u`
    /// maps an offset to its fractional snap index (`offset / p` without groups), and
    /// `snapLength` (points, `g · p`) is the distance `distance`'s fraction refers to. With
    /// groups every rule therefore moves by whole groups; `maxItemsPerFling` counts groups.
    func targetSnap(offset: Double, velocity: Double, restingOffset: Double, snapLength: Double,
                    coordinate u: (Double) -> Double) -> Int {
        let position = u(offset)
        switch self {
        case .nearest:
            return nearestSlot(position)
        case let .momentum(rate, maxItems):
            let projected = Deceleration.restOffset(from: offset, velocity: velocity, rate: rate)
            var slot = nearestSlot(u(projected))
            if let maxItems {
                let origin = nearestSlot(u(restingOffset))
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
            if moved > fraction * snapLength { return saturatingInt(position.rounded(.down)) + 1 }
            if moved < -fraction * snapLength { return saturatingInt(position.rounded(.up)) - 1 }
            return nearestSlot(u(restingOffset))
        case let .free(rate, _):
            // The snap nearest the free rest point (the engine itself does not snap a free release).
            return nearestSlot(u(Deceleration.restOffset(from: offset, velocity: velocity, rate: rate)))
        }
    }
}
