import CarouselConfig
import CarouselEngine
import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// Hostile review of issue 15: a legal but absurd geometry (a 100 000-point viewport of 1-point
/// items) made every STATE with items list 4096 items, about 970 KB a line. A geometry that can
/// show more than `StateItemBudget.maximumItems` (338) items is now refused, naming the item
/// length along the axis, by `set_geometry` and in the configuration file alike.
@Suite struct StateItemBudgetTests {
    private func reply(_ h: CoreHarness, _ id: ClientID, _ line: String) -> WireJSON? {
        h.send(line, from: id)
        return h.read(id).first
    }

    private func geometry(itemWidth: String, viewportWidth: String = "375", extra: String = "") -> String {
        #"{"cmd":"set_geometry","viewport":{"width":\#(viewportWidth),"height":200},"item":{"width":\#(itemWidth),"height":160},"spacing":0\#(extra)}"#
    }

    @Test func theHostileGeometryIsRefusedNamingTheItemWidth() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        let e = reply(h, id, geometry(itemWidth: "1", viewportWidth: "100000"))
        #expect(e?["code"] == .string("bad_field"))
        // linear reach W/2 + w/2 = 50000.5 either side, pitch 1: ⌊100001 / 1⌋ + 1 slots, capped at
        // 4096 (the engine's enumeration bound), so the message says "at least".
        #expect(e?["message"] == .string("field 'item.width': with viewport.width 100000, item.width 1 and spacing 0, at least 4096 items "
            + "can be visible at once, more than the 338 one STATE carries; use longer items, more spacing or a shorter viewport"))
        // Vertical: the item's height is along the axis.
        let v = reply(h, id, #"{"cmd":"set_geometry","viewport":{"width":200,"height":100000},"item":{"width":160,"height":1},"spacing":0,"axis":"vertical"}"#)
        #expect(v?["message"]?.stringValue?.hasPrefix("field 'item.height': with viewport.height 100000, item.height 1 and spacing 0") == true)
        // The running geometry is kept (pitch 260).
        #expect(h.core.engine.configuration.geometry.pitch == 260)
    }

    @Test func aStartAlignedCustomStyleCountsItsShiftOnOneSide() throws {
        // Viewport 800, items 250 + 10 (p = 260), aligned to the start: the picture moves by
        // (250 − 800) / 2 = −275, so items reach the viewport from up to 275 points further on the
        // side of the end only. Custom reach (⌈limit⌉ + 1) · p: limit 167 → 43 680, slots
        // ⌊(43 680 + 43 955) / 260⌋ + 1 = ⌊337.06⌋ + 1 = 338, accepted (counting the shift on both
        // sides gives ⌊338.12⌋ + 1 = 339 and would refuse it); limit 168 → 43 940,
        // ⌊339.06⌋ + 1 = 340, refused.
        var g = CarouselGeometry(viewport: CarouselSize(width: 800, height: 300), item: CarouselSize(width: 250, height: 200),
                                 spacing: 10, count: 10)
        g.align = .start
        func configuration(limit: Double) -> CarouselConfiguration {
            var custom = CustomStyle()
            custom.limit = limit
            return CarouselConfiguration(geometry: g, style: .custom(custom))
        }
        #expect(StateItemBudget.visibleItems(configuration(limit: 167)) == 338)
        #expect(StateItemBudget.problem(configuration(limit: 167), names: .file) == nil)
        let refused = try #require(StateItemBudget.problem(configuration(limit: 168), names: .file))
        #expect(refused.section == "style.custom" && refused.field == "limit")
        #expect(refused.message == "with limit 168, up to 340 items can be visible at once, more than the 338 one STATE "
            + "carries; use a limit of at most 167")
    }

    @Test func theBoundIsExactAndIndependentOfTheCount() {
        // Linear style, viewport 375, spacing 0, item w: ⌊(375 + w) / w⌋ + 1 slots. w = 1.113:
        // 375 / 1.113 = 336.93 → ⌊337.93⌋ + 1 = 338, accepted; w = 1.1128: 375 / 1.1128 = 336.99
        // → 338 too; w = 1.1127: 375 / 1.1127 = 337.02 → ⌊338.02⌋ + 1 = 339, refused — with 10
        // items as with a billion, so a later set_count cannot pass the bound.
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        #expect(reply(h, id, geometry(itemWidth: "1.113"))?["class"] == .string("ACK"))
        #expect(reply(h, id, geometry(itemWidth: "1.1128"))?["class"] == .string("ACK"))
        let e = reply(h, id, geometry(itemWidth: "1.1127"))
        #expect(e?["message"]?.stringValue?.contains("up to 339 items") == true, "\(String(describing: e))")
        #expect(h.core.engine.state.count == 10)
    }

    @Test func theLargestStateAllowedStaysWithinTheOutputBound() throws {
        // w = 1.113 (a 338-slot reach) with a million items, centered on item 500 000: the
        // slots from ⌈500000 − 376.113 / 2 / 1.113⌉ = ⌈499831.04⌉ to ⌊500168.96⌋, 337 items.
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        #expect(reply(h, id, #"{"cmd":"set_count","count":1000000}"#)?["class"] == .string("ACK"))
        #expect(reply(h, id, geometry(itemWidth: "1.113"))?["class"] == .string("ACK"))
        h.send(#"{"cmd":"scroll_to","index":500000,"animated":false}"#, from: id)
        _ = h.read(id)
        h.send(#"{"cmd":"watch","items":true}"#, from: id)
        let bytes = Array(h.core.pendingOutput(for: id))
        let state = try #require(bytes.split(separator: 0x0A).last { $0.count > 1000 })
        let items = try WireJSONParser.parse(state)["items"]
        guard case let .array(list)? = items else { Issue.record("no items"); return }
        #expect(list.count == 337)
        #expect(state.count < 256 * 1024, "\(state.count) bytes")
    }

    @Test func theConfigurationFileIsCheckedTheSameWay() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\nviewport_width = 100000\nitem_width = 1\n"))
        // Default spacing 40: pitch 41, ⌊100001 / 41⌋ + 1 = 2440 slots.
        #expect(throws: ConfigurationError.unusable(
            path: path, line: 3, section: "carousel", key: "item_width",
            message: "with viewport_width 100000, item_width 1 and spacing 40, up to 2440 items can be visible at once, "
                + "more than the 338 one STATE carries; use longer items, more spacing or a shorter viewport")) {
            try CarouseldCommandLine.loadConfiguration(path: path, explicit: true, socketPathOverride: nil)
        }
        // A custom style whose limit is the cause names `[style.custom] limit` and its line:
        // pitch 520 (default item 480 + spacing 40), viewport reach 640 + 240 = 880 < 2 · 520, so the slots
        // are 2 · (⌈limit⌉ + 1) + 1: 1003 for limit 500, at most 337 for limit ≤ 167.
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\nstyle = custom\n\n[style.custom]\nnext_scale = 0.8\nlimit = 500\n"))
        #expect(throws: ConfigurationError.unusable(
            path: path, line: 6, section: "style.custom", key: "limit",
            message: "with limit 500, up to 1003 items can be visible at once, more than the 338 one STATE carries; "
                + "use a limit of at most 167")) {
            try CarouseldCommandLine.loadConfiguration(path: path, explicit: true, socketPathOverride: nil)
        }
        // The built-in defaults and the shipped files are well within it.
        #expect(StateItemBudget.visibleItems(EngineSetup.carouselConfiguration(.defaults)) <= 8)
    }
}
