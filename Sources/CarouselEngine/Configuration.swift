/// How tilt drives the carousel (INTERFACES §1).
public enum TiltMode: String, Hashable, Sendable, CaseIterable {
    /// Rate control: the roll angle sets a scrolling speed, integrated over time.
    case velocity
    /// Parallax: the roll angle sets a bounded displacement that springs back when level.
    case position
}

/// The tilt mapping the engine owns (DESIGN §4). Angles in degrees, relative to neutral.
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

/// Everything a `CarouselEngine` starts from. Defaults follow INTERFACES §1.
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

    public init(geometry: CarouselGeometry, initialIndex: Int = 0,
                style: LayoutStyle = .linear(LinearStyle()), paging: PagingPolicy = .default,
                dragThreshold: Double = 10, tilt: TiltSettings = TiltSettings(),
                outerScrollRatio: Double = 0.8) {
        self.geometry = geometry
        self.initialIndex = initialIndex
        self.style = style
        self.paging = paging
        self.dragThreshold = dragThreshold
        self.tilt = tilt
        self.outerScrollRatio = outerScrollRatio
    }

    /// Checks every number for range and finiteness.
    /// - Throws: `CarouselConfigurationError` naming the first bad field (its camelCase name as
    ///   in `carouselctl simulate` scenarios, e.g. `item.width`).
    public func validate() throws(CarouselConfigurationError) {
        func positive(_ v: Double, _ field: String) throws(CarouselConfigurationError) {
            guard v.isFinite, v > 0 else { throw .init(field: field, reason: "must be a finite number > 0") }
        }
        func nonNegative(_ v: Double, _ field: String) throws(CarouselConfigurationError) {
            guard v.isFinite, v >= 0 else { throw .init(field: field, reason: "must be a finite number ≥ 0") }
        }
        try positive(geometry.viewport.width, "viewport.width")
        try positive(geometry.viewport.height, "viewport.height")
        try positive(geometry.item.width, "item.width")
        try positive(geometry.item.height, "item.height")
        guard geometry.spacing.isFinite, geometry.itemAlong + geometry.spacing > 0 else {
            throw .init(field: "spacing", reason: "must be finite and leave a positive pitch (item length + spacing > 0)")
        }
        guard geometry.count >= 0 else { throw .init(field: "count", reason: "must be ≥ 0") }
        try nonNegative(dragThreshold, "dragThreshold")
        guard outerScrollRatio.isFinite else { throw .init(field: "outerScroll.ratio", reason: "must be finite") }
        try nonNegative(tilt.deadZoneDegrees, "tilt.deadZoneDeg")
        guard tilt.maxDegrees.isFinite, tilt.maxDegrees > tilt.deadZoneDegrees else {
            throw .init(field: "tilt.maxDeg", reason: "must be finite and greater than tilt.deadZoneDeg")
        }
        try nonNegative(tilt.maxItemsPerSecond, "tilt.maxItemsPerSecond")
        switch paging {
        case .nearest: break
        case let .momentum(rate, maxItems):
            guard rate.isFinite, rate > 0, rate < 1 else {
                throw .init(field: "paging.decelerationRate", reason: "must lie strictly between 0 and 1")
            }
            if let maxItems, maxItems < 1 {
                throw .init(field: "paging.maxItemsPerFling", reason: "must be ≥ 1 or null")
            }
        case let .single(threshold):
            try nonNegative(threshold, "paging.velocityThreshold")
        case let .distance(fraction):
            guard fraction.isFinite, fraction >= 0, fraction <= 1 else {
                throw .init(field: "paging.fraction", reason: "must lie in [0, 1]")
            }
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
