import CarouselEngine
import CarouselProtocol

/// The most items one STATE with `items` may carry, and the check that keeps every geometry the
/// daemon accepts (a `set_geometry`, the `[carousel]` keys of a loaded file) within it.
///
/// Why: the engine lists every item that can meet the viewport, up to
/// `CarouselEngine.maximumVisibleSlots` (4096). A legal but absurd geometry (a 100 000-point
/// viewport of 1-point items) would make each STATE about 4096 items × ~240 bytes ≈ 970 KB, four
/// times the 256 KiB per-client output bound, for every watcher at every frame. 512 items of at
/// most ~500 bytes each stay within that bound; a real screen shows a few dozen.
///
/// The bound is checked without regard to `count` (as if the carousel had
/// `CarouselLimits.maximumCount` items), so a later `set_count` cannot pass it.
enum StateItemBudget {
    /// Most items one STATE may list.
    static let maximumItems = 512

    /// The most items a STATE can list with `configuration`'s geometry and style, for any count.
    static func visibleItems(_ configuration: CarouselConfiguration) -> Int {
        var c = configuration
        c.geometry.count = CarouselLimits.maximumCount
        return c.maximumVisibleItemCount
    }

    /// Why `configuration` passes the budget, or nil. `names` gives the field names of the
    /// caller's notation (`item.width` on the wire, `item_width` in the file); the message names
    /// the item length along the axis, the one field that alone can always fix it.
    static func problem(_ configuration: CarouselConfiguration, names: FieldNames) -> (field: String, message: String)? {
        let items = visibleItems(configuration)
        guard items > maximumItems else { return nil }
        let g = configuration.geometry
        let horizontal = g.axis == .horizontal
        let field = horizontal ? names.itemWidth : names.itemHeight
        let viewport = horizontal ? names.viewportWidth : names.viewportHeight
        let f = WireJSONWriter.format
        let message = "with \(viewport) \(f(g.viewportAlong)), \(field) \(f(g.itemAlong)) and \(names.spacing) "
            + "\(f(g.spacing)), up to \(items) items can be visible at once, more than the \(maximumItems) one STATE "
            + "carries; use longer items, more spacing or a shorter viewport"
        return (field, message)
    }

    /// Field names in one notation.
    struct FieldNames {
        var viewportWidth, viewportHeight, itemWidth, itemHeight, spacing: String

        /// `set_geometry`'s names.
        static let wire = FieldNames(viewportWidth: "viewport.width", viewportHeight: "viewport.height",
                                     itemWidth: "item.width", itemHeight: "item.height", spacing: "spacing")
        /// The `[carousel]` keys.
        static let file = FieldNames(viewportWidth: "viewport_width", viewportHeight: "viewport_height",
                                     itemWidth: "item_width", itemHeight: "item_height", spacing: "spacing")
    }
}
