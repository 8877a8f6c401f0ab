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

    /// Why `configuration` does not pass the budget, or nil. `names` gives the field names of the
    /// caller's notation (`item.width` on the wire, `item_width` in the file). The message names
    /// what alone can always fix it: the custom style's `limit` when its reach
    /// `(⌈limit⌉ + 1) · p` (`CustomStyle.maximumVisibleDistance`) is what passes the budget (the
    /// geometry passes with a limit of 1), with the largest whole limit that fits; otherwise the
    /// item length along the axis. `section` is the file section of `field`.
    static func problem(_ configuration: CarouselConfiguration, names: FieldNames)
        -> (section: String, field: String, message: String)? {
        let items = visibleItems(configuration)
        guard items > maximumItems else { return nil }
        let f = WireJSONWriter.format
        // The engine enumerates at most `maximumVisibleSlots`: a count at that cap is a floor.
        let many = items >= CarouselEngine.maximumVisibleSlots ? "at least \(items)" : "up to \(items)"
        if case let .custom(custom) = configuration.style, let fitting = largestFittingLimit(configuration, custom) {
            let message = "with \(names.customLimit) \(f(custom.limit)), \(many) items can be visible at once, more "
                + "than the \(maximumItems) one STATE carries; use a limit of at most \(fitting)"
            return (names.customLimitSection, names.customLimit, message)
        }
        let g = configuration.geometry
        let horizontal = g.axis == .horizontal
        let field = horizontal ? names.itemWidth : names.itemHeight
        let viewport = horizontal ? names.viewportWidth : names.viewportHeight
        let message = "with \(viewport) \(f(g.viewportAlong)), \(field) \(f(g.itemAlong)) and \(names.spacing) "
            + "\(f(g.spacing)), \(many) items can be visible at once, more than the \(maximumItems) one STATE "
            + "carries; use longer items, more spacing or a shorter viewport"
        return ("carousel", field, message)
    }

    /// The largest whole `limit` (1 … `CustomStyle.maximumLimit`) with which `configuration`
    /// passes the budget, or nil when even a limit of 1 does not (then the geometry is the cause).
    /// The visible count grows with the limit, so a bisection finds it.
    private static func largestFittingLimit(_ configuration: CarouselConfiguration, _ custom: CustomStyle) -> Int? {
        func fits(_ limit: Int) -> Bool {
            var c = configuration, s = custom
            s.limit = Double(limit)
            c.style = .custom(s)
            return visibleItems(c) <= maximumItems
        }
        guard fits(1) else { return nil }
        var low = 1, high = Int(CustomStyle.maximumLimit)
        while low < high {
            let middle = (low + high + 1) / 2
            if fits(middle) { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Field names in one notation.
    struct FieldNames {
        var viewportWidth, viewportHeight, itemWidth, itemHeight, spacing: String
        /// The custom style's `limit` and the file section that holds it.
        var customLimit: String, customLimitSection: String

        /// `set_geometry`'s and `set_style`'s names.
        static let wire = FieldNames(viewportWidth: "viewport.width", viewportHeight: "viewport.height",
                                     itemWidth: "item.width", itemHeight: "item.height", spacing: "spacing",
                                     customLimit: "custom.limit", customLimitSection: "style.custom")
        /// The `[carousel]` and `[style.custom]` keys.
        static let file = FieldNames(viewportWidth: "viewport_width", viewportHeight: "viewport_height",
                                     itemWidth: "item_width", itemHeight: "item_height", spacing: "spacing",
                                     customLimit: "limit", customLimitSection: "style.custom")
    }
}
