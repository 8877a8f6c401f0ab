import CarouselEngine
import CarouselProtocol

/// Keeps every card of a `custom` style in front of the eye point.
///
/// Why: the style moves a card `z = translate_z · f · p` points toward the viewer (`f` ≤ `limit`,
/// `p` the pitch) and divides by `w = 1 − z / perspective` (`CustomStyle`). At `z ≥ perspective`
/// the card is at or behind the eye: `m44` of its transform is 0 or negative (no valid
/// projection) and the 2D scale is clamped to `s · 10⁶`. The furthest card reaches `f = limit`,
/// so the rule is `translate_z · min(limit, 1000) · p < perspective` for each side, checked
/// wherever the geometry is known (`set_style`, `set_geometry` under a custom style, a loaded
/// file). With `perspective` 0 (none) nothing divides and every depth is allowed.
enum CustomStyleEyeCheck {
    /// The first side (previous, then next) whose nearest card reaches the eye, or nil. `wire`
    /// picks the field's notation (`custom.next_translate_z` on the wire, `next_translate_z` in
    /// the file); `section` is the file section (`style.custom`).
    static func problem(_ configuration: CarouselConfiguration, wire: Bool) -> (section: String, field: String, message: String)? {
        guard case let .custom(style) = configuration.style, style.perspective > 0 else { return nil }
        let pitch = configuration.geometry.pitch
        let limit = min(style.limit, CustomStyle.maximumLimit)
        let f = WireJSONWriter.format
        for (parameter, side) in [(CustomStyleParameter.previous(.translateZ), style.previous),
                                  (.next(.translateZ), style.next)] {
            let z = side.translateZ * limit * pitch
            guard z >= style.perspective else { continue }
            let field = (wire ? "custom." : "") + parameter.wireName
            let message = "\(field) \(f(side.translateZ)) × limit \(f(limit)) × pitch \(f(pitch)) = \(f(z)) points toward the "
                + "viewer, at or behind the eye (perspective \(f(style.perspective))); use less than "
                + "\(f(style.perspective / (limit * pitch))), a longer perspective or a smaller limit"
            return ("style.custom", field, message)
        }
        return nil
    }
}
