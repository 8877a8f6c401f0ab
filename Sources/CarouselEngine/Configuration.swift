/// How tilt drives the carousel (docs/ENGINE.md "Tilt").
public enum TiltMode: String, Hashable, Sendable, CaseIterable {
    /// Rate control: the roll angle sets a scrolling speed, integrated over time.
    case velocity
    /// Parallax: the roll angle sets a bounded displacement that springs back when level.
    case position
}

/// The tilt mapping the engine owns (docs/ENGINE.md "Tilt"). Angles in degrees, relative to neutral.
public struct TiltSettings: Hashable, Sendable {
    /// Whether tilt drives the carousel at all. Default `true`.
    public var enabled: Bool
    /// Default `.velocity`.
    public var mode: TiltMode
    /// |roll| at or below this does nothing and re-arms tilt, degrees. Default 3.
    public var deadZoneDegrees: Double
    /// The roll at which the speed (velocity mode) or displacement (position mode) saturates,
    /// degrees. Default 25.
    public var maxDegrees: Double
    /// Speed at `maxDegrees` in velocity mode, items per second. Default 3.
    public var maxItemsPerSecond: Double

    public init(enabled: Bool = true, mode: TiltMode = .velocity, deadZoneDegrees: Double = 3,
                maxDegrees: Double = 25, maxItemsPerSecond: Double = 3) {
        self.enabled = enabled
        self.mode = mode
        self.deadZoneDegrees = deadZoneDegrees
        self.maxDegrees = maxDegrees
        self.maxItemsPerSecond = maxItemsPerSecond
    }
}

/// Everything a `CarouselEngine` starts from. Defaults follow docs/ENGINE.md "carouselctl simulate: scenarios".
public struct CarouselConfiguration: Hashable, Sendable {
    /// Viewport, item, spacing, axis, direction, count and cyclic.
    public var geometry: CarouselGeometry
    /// The item centered at start (clamped into range). Default 0.
    public var initialIndex: Int
    /// Default `linear` (minScaleW 1, minScaleH 0.7, minAlpha 0.5).
    public var style: LayoutStyle
    /// Default `momentum(0.998)`.
    public var paging: PagingPolicy
    /// Finger travel (points) before a touch becomes a drag; shorter touches are taps. Default 10.
    public var dragThreshold: Double
    /// Tilt mapping; default `TiltSettings()`.
    public var tilt: TiltSettings
    /// Outer scroll coupling: Δoffset = ratio · Δy. Default 0.8.
    public var outerScrollRatio: Double
    /// Autoplay (attract mode); default off (`intervalSeconds` 0).
    public var autoplay: AutoplaySettings
    /// Group paging: every paging rule, `scrollTo`, tap-to-center and autoplay move by groups
    /// of this many items and rest only on a group's first item. Default 1 (every item).
    public var groupSize: Int

    public init(geometry: CarouselGeometry, initialIndex: Int = 0,
                style: LayoutStyle = .linear(LinearStyle()), paging: PagingPolicy = .default,
                dragThreshold: Double = 10, tilt: TiltSettings = TiltSettings(),
                outerScrollRatio: Double = 0.8, autoplay: AutoplaySettings = AutoplaySettings(),
                groupSize: Int = 1) {
        self.geometry = geometry
        self.initialIndex = initialIndex
        self.style = style
        self.paging = paging
        self.dragThreshold = dragThreshold
        self.tilt = tilt
        self.outerScrollRatio = outerScrollRatio
        self.autoplay = autoplay
        self.groupSize = groupSize
    }

    /// Checks every number for range and finiteness (bounds in `CarouselLimits` and below).
    /// - Throws: `CarouselConfigurationError` naming the first bad field (its camelCase name as
    ///   in `carouselctl simulate` scenarios, e.g. `item.width`).
    public func validate() throws(CarouselConfigurationError) {
        /// `v` must lie in `range` (NaN never does).
        func check(_ v: Double, _ range: ClosedRange<Double>, _ field: String, _ reason: String) throws(CarouselConfigurationError) {
            guard range.contains(v) else { throw .init(field: field, reason: reason) }
        }
        try geometry.validate()
        try check(dragThreshold, 0...CarouselLimits.maximumLength, "dragThreshold", "must lie in [0, 100000] points")
        try check(outerScrollRatio, -1000...1000, "outerScroll.ratio", "must lie in [−1000, 1000]")
        do {
            try tilt.check()
        } catch {
            throw .init(field: "tilt." + error.parameter.scenarioName, reason: error.reason(naming: \.scenarioName))
        }
        guard groupSize >= 1, groupSize <= CarouselLimits.maximumCount else {
            throw .init(field: "groupSize", reason: "must lie in 1…\(CarouselLimits.maximumCount)")
        }
        let longest = AutoplaySettings.maximumSeconds
        if autoplay.intervalSeconds != 0 {
            try check(autoplay.intervalSeconds, AutoplaySettings.minimumIntervalSeconds...longest, "autoplay.intervalS",
                      "must be 0 (off) or lie in [\(AutoplaySettings.minimumIntervalSeconds), \(Int(longest))] seconds")
        }
        try check(autoplay.resumeSeconds, 0...longest, "autoplay.resumeS", "must lie in [0, \(Int(longest))] seconds")
        guard autoplay.step != 0, abs(autoplay.step) <= AutoplaySettings.maximumStep else {
            throw .init(field: "autoplay.step", reason: "must be a non-zero integer within ±\(AutoplaySettings.maximumStep)")
        }
        if case let .custom(custom) = style { try custom.validate() }
        switch paging {
        case .nearest: break
        case let .momentum(rate, maxItems):
            // The range `Deceleration` works in (0.99 is UIKit's fast rate, 0.998 its normal one).
            try check(rate, Deceleration.rateRange, "paging.decelerationRate",
                      "must lie in [\(Deceleration.rateRange.lowerBound), \(Deceleration.rateRange.upperBound)]")
            if let maxItems, maxItems < 1 {
                throw .init(field: "paging.maxItemsPerFling", reason: "must be ≥ 1 or null")
            }
        case let .single(threshold):
            try check(threshold, 0...CarouselLimits.maximumSpeed, "paging.velocityThreshold", "must lie in [0, 1000000] pt/s")
        case let .distance(fraction):
            try check(fraction, 0...1, "paging.fraction", "must lie in [0, 1]")
        case let .free(rate, sticky):
            try check(rate, Deceleration.rateRange, "paging.decelerationRate",
                      "must lie in [\(Deceleration.rateRange.lowerBound), \(Deceleration.rateRange.upperBound)]")
            try check(sticky, 0...CarouselLimits.maximumSpeed, "paging.stickyVelocity", "must lie in [0, 1000000] pt/s (0 = never snap)")
        }
    }
}

/// A configuration value out of range.
public struct CarouselConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field, in scenario notation (`item.width`, `tilt.maxDeg`).
    public var field: String
    /// What is wrong with it.
    public var reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
    public var description: String { "\(field): \(reason)" }
}
