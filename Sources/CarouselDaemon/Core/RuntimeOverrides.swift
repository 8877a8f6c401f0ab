import CarouselEngine
import CarouselProtocol

/// The carousel settings clients changed at runtime (`set_count`, `set_geometry`, `set_tilt`,
/// `set_autoplay`, `set_style`, and the count after `insert_items`/`remove_items`),
/// kept until the daemon restarts. A reload applies the file's value to every setting no
/// client has changed and keeps each one a client has: a display client that told the daemon
/// its real screen (`set_geometry`) cannot tell that a reload happened, so the file must not
/// take its geometry back; a count or a tilt sensitivity set at runtime stays for the same
/// reason. Only the fields a request named are kept (`set_tilt {"max_deg": 20}` keeps
/// `max_deg`, and the file still sets the dead zone).
struct RuntimeOverrides: Equatable {
    var count: Int?
    var viewport: CarouselSize?
    var item: CarouselSize?
    var spacing: Double?
    var axis: ScrollAxis?
    var direction: LayoutDirection?
    var tiltEnabled: Bool?
    var tiltMode: TiltMode?
    var deadZoneDegrees: Double?
    var maxDegrees: Double?
    var maxItemsPerSecond: Double?
    var autoplayEnabled: Bool?
    var autoplayIntervalSeconds: Double?
    var autoplayResumeSeconds: Double?
    var autoplayStep: Int?
    var style: LayoutStyle?

    /// Records an accepted `set_autoplay` (the user's pause is the engine's own runtime state,
    /// which a reload keeps anyway).
    mutating func record(_ a: AutoplayRequest) {
        if let v = a.enabled { autoplayEnabled = v }
        if let v = a.intervalSeconds { autoplayIntervalSeconds = v }
        if let v = a.resumeSeconds { autoplayResumeSeconds = v }
        if let v = a.step { autoplayStep = v }
    }

    /// Records an accepted `set_geometry`.
    mutating func record(_ g: GeometryRequest) {
        viewport = CarouselSize(width: g.viewport.width, height: g.viewport.height)
        item = CarouselSize(width: g.item.width, height: g.item.height)
        if let s = g.spacing { spacing = s }
        if let a = g.axis { axis = a }
        if let d = g.direction { direction = d }
    }

    /// Records an accepted `set_tilt`.
    mutating func record(_ t: TiltRequest) {
        if let v = t.enabled { tiltEnabled = v }
        if let v = t.mode { tiltMode = v }
        if let v = t.values[.deadZone] { deadZoneDegrees = v }
        if let v = t.values[.maxAngle] { maxDegrees = v }
        if let v = t.values[.maxItemsPerSecond] { maxItemsPerSecond = v }
    }

    /// `file` (a reloaded configuration) with these settings in place of the file's.
    func applied(to file: CarouselConfiguration) -> CarouselConfiguration {
        var c = file
        if let count { c.geometry.count = count }
        if let viewport { c.geometry.viewport = viewport }
        if let item { c.geometry.item = item }
        if let spacing { c.geometry.spacing = spacing }
        if let axis { c.geometry.axis = axis }
        if let direction { c.geometry.direction = direction }
        if let tiltEnabled { c.tilt.enabled = tiltEnabled }
        if let tiltMode { c.tilt.mode = tiltMode }
        if let deadZoneDegrees { c.tilt.deadZoneDegrees = deadZoneDegrees }
        if let maxDegrees { c.tilt.maxDegrees = maxDegrees }
        if let maxItemsPerSecond { c.tilt.maxItemsPerSecond = maxItemsPerSecond }
        if let autoplayEnabled { c.autoplay.enabled = autoplayEnabled }
        if let autoplayIntervalSeconds { c.autoplay.intervalSeconds = autoplayIntervalSeconds }
        if let autoplayResumeSeconds { c.autoplay.resumeSeconds = autoplayResumeSeconds }
        if let autoplayStep { c.autoplay.step = autoplayStep }
        if let style { c.style = style }
        // A file dead zone above a kept max_deg (or the reverse) is settled as set_tilt does:
        // the engine keeps max_deg above the dead zone.
        return c
    }
}
