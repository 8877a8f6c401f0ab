/// Follows one touch: the drag threshold, the crossing point and the recent samples that give
/// the release velocity.
///
/// A touch becomes a drag once the finger has moved `threshold` points from where it went down;
/// the content then follows from the crossing point (`start ± threshold`), so it does not jump by
/// the threshold distance. A touch that never crosses is a tap at its start location.
public struct DragTracker: Hashable, Sendable {
    /// Where the finger went down, along the axis, viewport points.
    public let startLocation: Double
    /// When the finger went down, seconds.
    public let startTime: Double
    /// Finger travel needed to start dragging, points.
    public let threshold: Double
    /// Where the finger crossed the threshold (`nil` while it is still a potential tap).
    public private(set) var anchor: Double?
    /// Recent `(time, location)` samples, oldest first, at most `maximumSamples`.
    public private(set) var samples: [Sample]

    public struct Sample: Hashable, Sendable {
        public var time: Double
        public var location: Double
    }

    /// The velocity estimate looks at the samples of the last `velocityWindow` seconds.
    public static let velocityWindow = 0.1
    static let maximumSamples = 32

    public init(location: Double, time: Double, threshold: Double) {
        startLocation = location
        startTime = time
        self.threshold = max(threshold, 0)
        samples = [Sample(time: time, location: location)]
        if self.threshold == 0 { anchor = location }
    }

    /// Whether the touch has become a drag.
    public var hasCrossed: Bool { anchor != nil }

    /// Records a finger position.
    public mutating func move(to location: Double, at time: Double) {
        if anchor == nil, abs(location - startLocation) >= threshold, threshold > 0 {
            anchor = startLocation + (location >= startLocation ? threshold : -threshold)
        }
        samples.append(Sample(time: time, location: location))
        if samples.count > Self.maximumSamples { samples.removeFirst(samples.count - Self.maximumSamples) }
    }

    /// Finger travel since the crossing point, points (0 before the threshold is crossed).
    public func travel(to location: Double) -> Double {
        guard let anchor else { return 0 }
        return location - anchor
    }

    /// The finger velocity, points per second, from the samples of the last `velocityWindow`
    /// seconds (the oldest such sample against the newest); when the window holds a single
    /// sample, the newest against the one before it. 0 when time did not advance.
    public func estimatedVelocity() -> Double {
        guard let last = samples.last else { return 0 }
        var first = last
        for s in samples.reversed() where s.time >= last.time - Self.velocityWindow {
            first = s
        }
        if first == last, samples.count >= 2 {
            first = samples[samples.count - 2]
        }
        let dt = last.time - first.time
        guard dt > 1e-6 else { return 0 }
        let v = (last.location - first.location) / dt
        return v.isFinite ? v : 0
    }
}
