import CarouselEngine
import CarouselProtocol

/// Checks `set_geometry` and `set_tilt` against the running configuration before they are
/// applied, with the engine's own rules (`CarouselGeometry.validate()`, `TiltSettings.check()`)
/// and the daemon's `StateItemBudget` and `CustomStyleEyeCheck`, so a request the engine would clamp or silently adjust,
/// or one that would make every STATE huge, gets `bad_field` instead of an ACK.
///
/// Why here and not in `RequestDecoder`: both requests are partial (set_tilt may carry only
/// `dead_zone_deg`, set_geometry keeps the axis), so only the merged result can be judged — a
/// dead zone of 30° is fine alone and wrong when the running `max_deg` is 25°; a viewport of
/// 1e308 points is a positive number but makes the pitch infinite and freezes the carousel.
enum RuntimeSettingsCheck {
    /// Why `request` cannot be applied to `current`, naming the field as the request does; nil when it can.
    static func geometry(_ request: GeometryRequest, current: CarouselConfiguration) -> String? {
        var g = current.geometry
        g.viewport = CarouselSize(width: request.viewport.width, height: request.viewport.height)
        g.item = CarouselSize(width: request.item.width, height: request.item.height)
        if let spacing = request.spacing { g.spacing = spacing }
        if let axis = request.axis { g.axis = axis }
        do {
            try g.validate()
        } catch {
            return "field '\(error.field)': \(error.reason)"
        }
        var merged = current
        merged.geometry = g
        if let problem = StateItemBudget.problem(merged, names: .wire) ?? CustomStyleEyeCheck.problem(merged, wire: true) {
            return "field '\(problem.field)': \(problem.message)"
        }
        return nil
    }

    /// Why `request` cannot be applied to `current`'s tilt settings; nil when it can.
    static func tilt(_ request: TiltRequest, current: CarouselConfiguration) -> String? {
        let merged = request.applied(to: current.tilt)
        do {
            try merged.check()
            return nil
        } catch {
            let running = "(now dead_zone_deg \(WireJSONWriter.format(merged.deadZoneDegrees)), "
                + "max_deg \(WireJSONWriter.format(merged.maxDegrees)))"
            return "field '\(error.parameter.wireName)': \(error.reason(naming: \.wireName)) \(running)"
        }
    }
}
