import CarouselEngine
import CarouselProtocol
import IIOSensors

/// The most items one STATE with `items` may carry, and the check that keeps every geometry the
/// daemon accepts (a `set_geometry`, a `set_style`, the `[carousel]` and `[style.custom]` keys
/// of a loaded file) within it.
///
/// Why: the engine lists every item that can meet the viewport, up to
/// `CarouselEngine.maximumVisibleSlots` (4096). A legal but absurd geometry (a 100 000-point
/// viewport of 1-point items) would make each STATE about 4096 items × ~240 bytes ≈ 970 KB, four
/// times the 256 KiB per-client output bound, for every watcher at every frame.
///
/// The bound is a byte budget: `maximumItems` items at their widest (`widestItemBytes`: every
/// number in its longest wire form, as a custom style with full-precision numbers and rotated
/// items makes them) plus the rest of the STATE at its widest (`widestStateBytes`) stay
/// `reserveBytes` under the output bound, so the largest possible STATE, and the lines that may
/// queue beside it while a watcher pauses, never pass the bound. A count of items alone would
/// not: 512 items of ~524 bytes were 267,712-byte lines, and a watcher that paused 3 s was dropped.
///
/// The bound is checked without regard to `count` (as if the carousel had
/// `CarouselLimits.maximumCount` items), so a later `set_count` cannot pass it.
enum StateItemBudget {
    /// The per-client output bound the budget is made for, bytes (`DaemonCore.Limits.outputLimit`).
    static let outputBoundBytes = 256 * 1024
    /// Room left beside the largest STATE for what may be queued with it while a watcher does
    /// not read: LAYOUT (at most ~900 bytes), SENSOR, held INDEX lines, replies. 16 KiB.
    static let reserveBytes = 16 * 1024
    /// The longest text `WireJSONWriter.format` makes of a number, bytes: 17 significant digits,
    /// a sign, a point and a three-digit exponent (`-2.2250738585072014e-308`).
    static let widestNumberBytes = 24

    /// One item object at its widest, with the comma that separates it from the next: every
    /// number `widestNumberBytes` long and `index`/`instance` as long as any `Int`.
    static let widestItemBytes: Int = {
        let n = widestNumber
        let item = WireItem(index: Int.min, instance: Int.min, center: (n, n), size: (n, n), scale: (n, n), alpha: n,
                            zIndex: n, transform: Array(repeating: n, count: 16))
        var w = WireJSONWriter()
        item.write(to: &w)
        return w.bytes.count + 1
    }()

    /// A STATE line at its widest with an empty `items` array (newline included).
    static let widestStateBytes: Int = {
        let n = widestNumber
        let longest = { (names: [String]) in names.max { $0.utf8.count < $1.utf8.count } ?? "" }
        let state = StateMessage(seq: UInt64.max, timeNanoseconds: Int64.min, index: Int.min, position: n, offset: n,
                                 velocity: n, phase: longest(CarouselPhase.allCases.map(\.rawValue)), count: Int.min,
                                 tilt: WireTilt(rollDeg: n, pitchDeg: n, enabled: false),
                                 sensor: longest(SensorStatus.allCases.map(\.rawValue)),
                                 autoplay: longest(AutoplayState.allCases.map(\.rawValue)))
        return state.encodedLine(itemsJSON: Array("[]".utf8)).count
    }()

    /// Most items one STATE may list: as many of the widest items as fit in the output bound
    /// less the reserve and the rest of the widest STATE.
    static let maximumItems = (outputBoundBytes - reserveBytes - widestStateBytes) / widestItemBytes

    /// The largest STATE line `maximumItems` items can make, bytes.
    static var largestStateBytes: Int { widestStateBytes + maximumItems * widestItemBytes - 1 }

    /// A number whose wire form is `widestNumberBytes` long.
    static let widestNumber = -2.2250738585072014e-308

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
