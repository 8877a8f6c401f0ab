import CarouselEngine
import CarouselProtocol
import Testing
@testable import CarouselCommandLine

/// docs/ENGINE.md "carouselctl simulate: scenarios": the per-item objects of `carouselctl simulate` and of
/// the protocol's STATE
/// `items` are identical.
@Suite struct SimulateWireItemsTests {
    @Test func simulateFrameItemsAreTheProtocolItemsArray() throws {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                        item: CarouselSize(width: 200, height: 160), spacing: 0, count: 20, cyclic: true)
        var engine = CarouselEngine(configuration: CarouselConfiguration(geometry: geometry, style: .cylinder(RingStyle())))
        engine.scrollTo(index: 3, animated: true, at: 0)
        engine.advance(to: 0.1)  // mid-animation: fractional offsets, turned cards, negative zeros
        let items = engine.visibleItems()
        let line = FrameEncoder.line(time: 0.1, state: engine.state, items: items)
        let wire = String(decoding: WireItem.encodeArray(items.map(WireItem.init)), as: UTF8.self)
        #expect(line.hasSuffix(",\"items\":\(wire)}"))
        // And it parses back to the same values, 16 transform numbers per item.
        let parsed = try WireJSONParser.parse(line)
        #expect(parsed["items"]?.arrayValue?.count == items.count)
        #expect(parsed["items"]?[0]?["transform"]?.arrayValue?.count == 16)
        #expect(!line.contains("-0,") && !line.contains("-0]"))
    }
}
