/// The offsets the carousel may rest on after paging ("snaps"), numbered by snap index `k`, and
/// a fractional snap coordinate `u(offset)` in which every paging rule moves by whole snaps.
///
/// - Without groups every item is a snap: snap `k` is slot `k` at `k · p`, and `u = offset / p`.
/// - With `groupSize` g > 1 (Swiper `slidesPerGroup`, Flickity `groupCells`, Embla
///   `slidesToScroll`) only each group's first item is a snap: items `0, g, 2g, …` (non-cyclic:
///   up to the last group's first item `⌊(n − 1) / g⌋ · g`; cyclic: per cycle, so when `g` does
///   not divide `n` the last group of each cycle is shorter and the snaps are not evenly spaced).
struct SnapGrid: Sendable {
    let count: Int
    let pitch: Double
    let wraps: Bool
    /// Items per group, 1…count.
    let group: Int
    /// Groups per cycle (cyclic) or snaps in all (non-cyclic): `⌈n / g⌉`.
    let groups: Int
    /// Whether the snaps are evenly spaced `g · p` apart (no short group at a cyclic seam).
    let uniform: Bool
    /// `g · p`, points.
    let groupLength: Double

    init(geometry g: CarouselGeometry, groupSize: Int) {
        count = g.count
        pitch = g.pitch
        wraps = g.wraps
        group = min(max(groupSize, 1), max(g.count, 1))
        groups = count > 0 ? (count + group - 1) / group : 0
        uniform = !wraps || count % group == 0
        groupLength = Double(group) * pitch
    }

    /// The last snap of a non-cyclic carousel.
    var lastSnap: Int { max(groups - 1, 0) }

    /// The snap nearest `offset` (ties toward the higher snap), clamped unless cyclic.
    func nearestSnap(_ offset: Double) -> Int {
        let k = nearestSlot(coordinate(offset))
        return wraps ? k : min(max(k, 0), lastSnap)
    }

    /// The unwrapped item slot of snap `k` (clamped into `[0, lastSnap]` unless cyclic).
    func slot(ofSnap k: Int) -> Int {
        if !wraps { return min(max(k, 0), lastSnap) * group }
        if uniform { return k * group }
        return Cyclic.instance(k, groups) * count + Cyclic.wrap(k, groups) * group
    }

    /// The offset of snap `k`, points.
    func offset(ofSnap k: Int) -> Double {
        guard count > 0 else { return 0 }
        return Double(slot(ofSnap: k)) * pitch
    }

    /// The snap of the group that holds item slot `slot` (its first item's snap).
    func snap(containingSlot slot: Int) -> Int {
        guard count > 0 else { return 0 }
        if uniform {
            let k = slot >= 0 ? slot / group : -((-slot + group - 1) / group)
            return wraps ? k : min(max(k, 0), lastSnap)
        }
        return Cyclic.instance(slot, count) * groups + Cyclic.wrap(slot, count) / group
    }

    /// The fractional snap coordinate of `offset`: `offset / (g · p)` when the snaps are evenly
    /// spaced, else linear between neighbouring snaps (a cyclic seam's short group).
    func coordinate(_ offset: Double) -> Double {
        if uniform { return offset / groupLength }
        let n = Double(count)
        let x = offset / pitch
        let cycle = (x / n).rounded(.down)
        let r = x - cycle * n
        let j = min(max((r / Double(group)).rounded(.down), 0), Double(groups - 1))
        let start = j * Double(group)
        let end = min(start + Double(group), n)
        return cycle * Double(groups) + j + (r - start) / (end - start)
    }
}

extension CarouselEngine {
    /// The snaps of the current geometry and group size.
    var snapGrid: SnapGrid { SnapGrid(geometry: geometry, groupSize: configuration.groupSize) }
}
