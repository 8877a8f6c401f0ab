/// The offsets the carousel may rest on after paging ("snaps"), numbered by snap index `k`, and
/// a fractional snap coordinate `u(offset)` in which every paging rule moves by whole snaps.
///
/// - Without groups every item is a snap: snap `k` is slot `k` at `k · p`, and `u = offset / p`.
/// - With `groupSize` g > 1 (Swiper `slidesPerGroup`, Flickity `groupCells`, Embla
///   `slidesToScroll`) only each group's first item is a snap: items `0, g, 2g, …` (non-cyclic:
///   up to the last group's first item `⌊(n − 1) / g⌋ · g`; cyclic: per cycle, so when `g` does
///   not divide `n` the last group of each cycle is shorter and the snaps are not evenly spaced).
/// - Contained (`contain`, non-cyclic; Embla's `trimSnaps`): the snaps are the range's start,
///   every group start strictly inside the range, and the range's end (one snap when the content
///   is shorter than the viewport). Snaps 0 and `lastSnap` are then the ends, which need not be
///   whole items.
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
    /// Contained: the range `[lower, upper]` and the group starts strictly inside it, `firstRun`
    /// through `lastRun` (empty when `firstRun > lastRun`).
    let contained: Bool
    let lower: Double, upper: Double
    let firstRun: Int, lastRun: Int

    init(geometry g: CarouselGeometry, groupSize: Int) {
        count = g.count
        pitch = g.pitch
        wraps = g.wraps
        group = min(max(groupSize, 1), max(g.count, 1))
        groups = count > 0 ? (count + group - 1) / group : 0
        contained = g.isContained
        uniform = contained ? false : (!wraps || count % group == 0)
        groupLength = Double(group) * pitch
        if contained {
            (lower, upper) = g.containedRange
            var first = max(saturatingInt((lower / groupLength).rounded(.down)), 0)
            while first < groups, Double(first * group) * pitch <= lower { first += 1 }
            var last = min(saturatingInt((upper / groupLength).rounded(.up)), groups - 1)
            while last >= 0, Double(last * group) * pitch >= upper { last -= 1 }
            firstRun = first
            lastRun = last
        } else {
            (lower, upper) = (0, 0)
            (firstRun, lastRun) = (0, -1)
        }
    }

    /// Contained: the group starts inside the range.
    private var runCount: Int { max(lastRun - firstRun + 1, 0) }

    /// The last snap of a non-cyclic carousel.
    var lastSnap: Int {
        if contained { return upper > lower ? runCount + 1 : 0 }
        return max(groups - 1, 0)
    }

    /// The snap nearest `offset` (ties toward the higher snap), clamped unless cyclic.
    func nearestSnap(_ offset: Double) -> Int {
        let k = nearestSlot(coordinate(offset))
        return wraps ? k : min(max(k, 0), lastSnap)
    }

    /// The unwrapped item slot of snap `k` (clamped into `[0, lastSnap]` unless cyclic; contained:
    /// the nearest item to the snap).
    func slot(ofSnap k: Int) -> Int {
        if contained { return min(max(nearestSlot(offset(ofSnap: k) / pitch), 0), max(count - 1, 0)) }
        if !wraps { return min(max(k, 0), lastSnap) * group }
        if uniform { return k * group }
        return Cyclic.instance(k, groups) * count + Cyclic.wrap(k, groups) * group
    }

    /// The offset of snap `k`, points.
    func offset(ofSnap k: Int) -> Double {
        guard count > 0 else { return 0 }
        if contained {
            let k = min(max(k, 0), lastSnap)
            if k == 0 { return lower }
            if k == lastSnap { return upper }
            return Double((firstRun + k - 1) * group) * pitch
        }
        return Double(slot(ofSnap: k)) * pitch
    }

    /// The snap of the group that holds item slot `slot` (its first item's snap).
    func snap(containingSlot slot: Int) -> Int {
        guard count > 0 else { return 0 }
        if contained {
            let j = min(max(slot, 0), count - 1) / group
            if j < firstRun { return 0 }
            if j > lastRun { return lastSnap }
            return j - firstRun + 1
        }
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
        if contained { return containedCoordinate(offset) }
        let n = Double(count)
        let x = offset / pitch
        let cycle = (x / n).rounded(.down)
        let r = x - cycle * n
        let j = min(max((r / Double(group)).rounded(.down), 0), Double(groups - 1))
        let start = j * Double(group)
        let end = min(start + Double(group), n)
        return cycle * Double(groups) + j + (r - start) / (end - start)
    }

    /// Linear between neighbouring snaps of a contained grid; beyond the ends, one snap per
    /// group length.
    private func containedCoordinate(_ offset: Double) -> Double {
        let last = lastSnap
        if last == 0 || offset <= lower { return (offset - lower) / groupLength }
        if offset >= upper { return Double(last) + (offset - upper) / groupLength }
        let second = self.offset(ofSnap: 1)
        if offset < second { return (offset - lower) / (second - lower) }
        let penultimate = self.offset(ofSnap: last - 1)
        if offset >= penultimate { return Double(last - 1) + (offset - penultimate) / (upper - penultimate) }
        return 1 + (offset - second) / groupLength
    }
}

extension CarouselEngine {
    /// The snaps of the current geometry and group size.
    var snapGrid: SnapGrid { SnapGrid(geometry: geometry, groupSize: configuration.groupSize) }
}
