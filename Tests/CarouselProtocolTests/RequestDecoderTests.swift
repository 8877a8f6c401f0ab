import Testing
@testable import CarouselEngine
import CarouselProtocol

private func decode(_ line: String) throws(ProtocolError) -> Request {
    try RequestDecoder.decode(line: Array(line.utf8))
}

@Suite struct RequestDecoderTests {
    @Test func decodesEveryCommand() throws {
        #expect(try decode(#"{"cmd":"watch","enable":true,"items":true,"max_rate_hz":30}"#)
            == .watch(WatchRequest(enable: true, items: true, maxRateHz: 30)))
        #expect(try decode(#"{"cmd":"watch"}"#) == .watch(WatchRequest(enable: true, items: false, maxRateHz: nil)))
        #expect(try decode(#"{"cmd":"watch","orientation":true}"#)
            == .watch(WatchRequest(enable: true, items: false, maxRateHz: nil, orientation: true)))
        #expect(try decode(#"{"cmd":"set_display_rotation","degrees":270}"#) == .setDisplayRotation(degrees: 270))
        #expect(try decode(#"{"cmd":"poll"}"#) == .poll)
        #expect(try decode(#"{"cmd":"status"}"#) == .status)
        #expect(try decode(#"{"cmd":"sensors"}"#) == .sensors)
        #expect(try decode(#"{"cmd":"samples","enable":false}"#) == .samples(enable: false))
        #expect(try decode(#"{"cmd":"scroll_to","index":3}"#) == .scrollTo(index: 3, animated: true))
        #expect(try decode(#"{"cmd":"scroll_to","index":3.0,"animated":false}"#) == .scrollTo(index: 3, animated: false))
        #expect(try decode(#"{"cmd":"drag","phase":"ended","location":200,"velocity":-1200}"#)
            == .drag(phase: .ended, location: 200, velocity: -1200))
        #expect(try decode(#"{"cmd":"drag","phase":"began","location":300}"#) == .drag(phase: .began, location: 300, velocity: nil))
        #expect(try decode(#"{"cmd":"tap","location":330,"cross":20}"#) == .tap(location: 330, cross: 20))
        #expect(try decode(#"{"cmd":"outer_scroll","y":500}"#) == .outerScroll(y: 500))
        #expect(try decode(#"{"cmd":"outer_scroll_ended"}"#) == .outerScrollEnded(y: nil))
        #expect(try decode(#"{"cmd":"set_count","count":4}"#) == .setCount(4))
        #expect(try decode(#"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":250,"height":160},"spacing":10,"axis":"vertical","direction":"rtl"}"#)
            == .setGeometry(GeometryRequest(viewport: WireSize(width: 375, height: 200), item: WireSize(width: 250, height: 160),
                                            spacing: 10, axis: .vertical, direction: .rightToLeft)))
        #expect(try decode(#"{"cmd":"set_tilt","enabled":false,"mode":"position","dead_zone_deg":2,"max_deg":20,"max_items_per_second":1.5}"#)
            == .setTilt(TiltRequest(enabled: false, mode: .position,
                                    values: [.deadZone: 2, .maxAngle: 20, .maxItemsPerSecond: 1.5])))
        #expect(try decode(#"{"cmd":"recenter_tilt"}"#) == .recenterTilt)
        #expect(try decode(#"{"cmd":"reload","future_field":1}"#) == .reload)
    }

    @Test func controlRights() throws {
        #expect(try !decode(#"{"cmd":"watch"}"#).requiresControl)
        #expect(try !decode(#"{"cmd":"sensors"}"#).requiresControl)
        #expect(try decode(#"{"cmd":"samples"}"#).requiresControl)
        #expect(try decode(#"{"cmd":"set_count","count":1}"#).requiresControl)
    }

    @Test(arguments: [
        ("{\"cmd\":", ProtocolError(.badJSON, "invalid JSON at byte 7: unexpected end of input")),
        ("[1]", ProtocolError(.badJSON, "a request must be a JSON object, got an array")),
        // A repeated key is refused, not last-wins: byte 19 is just past the second "cmd".
        ("{\"cmd\":\"poll\",\"cmd\":\"status\"}", ProtocolError(.badJSON, "invalid JSON at byte 19: duplicate key 'cmd'")),
        ("{\"cmd\":\"set_geometry\",\"viewport\":{\"width\":1,\"width\":2}}", ProtocolError(.badJSON, "invalid JSON at byte 51: duplicate key 'width'")),
        ("{}", ProtocolError(.unknownCommand, "missing field 'cmd'")),
        ("{\"cmd\":7}", ProtocolError(.badField, "field 'cmd': expected a string, got a number")),
        ("{\"cmd\":\"fly\"}", ProtocolError(.unknownCommand, "unknown command 'fly'", cmd: "fly")),
        ("{\"cmd\":\"scroll_to\"}", ProtocolError(.badField, "missing field 'index'", cmd: "scroll_to")),
        ("{\"cmd\":\"scroll_to\",\"index\":\"3\"}", ProtocolError(.badField, "field 'index': expected an integer, got a string", cmd: "scroll_to")),
        ("{\"cmd\":\"scroll_to\",\"index\":2.5}", ProtocolError(.badField, "field 'index': expected an integer, got 2.5", cmd: "scroll_to")),
        ("{\"cmd\":\"scroll_to\",\"index\":-1}", ProtocolError(.badField, "field 'index': out of range 0…1000000000, got -1", cmd: "scroll_to")),
        ("{\"cmd\":\"scroll_to\",\"index\":1,\"animated\":1}", ProtocolError(.badField, "field 'animated': expected a boolean, got a number", cmd: "scroll_to")),
        ("{\"cmd\":\"drag\",\"phase\":\"up\",\"location\":1}", ProtocolError(.badField, "field 'phase': expected one of began, moved, ended, got 'up'", cmd: "drag")),
        ("{\"cmd\":\"watch\",\"max_rate_hz\":0}", ProtocolError(.badField, "field 'max_rate_hz': must be greater than 0, got 0", cmd: "watch")),
        ("{\"cmd\":\"set_count\",\"count\":-2}", ProtocolError(.badField, "field 'count': out of range 0…1000000000, got -2", cmd: "set_count")),
        ("{\"cmd\":\"set_geometry\",\"viewport\":{\"width\":375},\"item\":{\"width\":1,\"height\":1}}", ProtocolError(.badField, "field 'viewport.height': missing", cmd: "set_geometry")),
        ("{\"cmd\":\"set_geometry\",\"viewport\":[375,200],\"item\":{\"width\":1,\"height\":1}}", ProtocolError(.badField, "field 'viewport': expected an object {\"width\", \"height\"}, got an array", cmd: "set_geometry")),
        ("{\"cmd\":\"set_tilt\",\"dead_zone_deg\":10,\"max_deg\":5}", ProtocolError(.badField, "field 'max_deg': must be greater than dead_zone_deg (10)", cmd: "set_tilt")),
        ("{\"cmd\":\"set_tilt\",\"dead_zone_deg\":95}", ProtocolError(.badField, "field 'dead_zone_deg': must lie in [0, 89] degrees, got 95", cmd: "set_tilt")),
        ("{\"cmd\":\"set_tilt\",\"max_items_per_second\":0}", ProtocolError(.badField, "field 'max_items_per_second': must lie in [0.01, 100] items per second, got 0", cmd: "set_tilt")),
        ("{\"cmd\":\"set_geometry\",\"viewport\":{\"width\":1,\"height\":1},\"item\":{\"width\":1,\"height\":1},\"axis\":\"diagonal\"}", ProtocolError(.badField, "field 'axis': expected horizontal or vertical, got 'diagonal'", cmd: "set_geometry")),
        ("{\"cmd\":\"set_tilt\",\"mode\":\"fast\"}", ProtocolError(.badField, "field 'mode': expected velocity or position, got 'fast'", cmd: "set_tilt")),
    ])
    func badInputNamesTheProblem(line: String, expected: ProtocolError) {
        #expect(throws: expected) { try decode(line) }
    }

    @Test func setDisplayRotationTakesQuarterTurnsOnly() {
        #expect(throws: ProtocolError(.badField, "field 'degrees': expected one of 0, 90, 180, 270, got 45",
                                      cmd: "set_display_rotation")) {
            try decode(#"{"cmd":"set_display_rotation","degrees":45}"#)
        }
        #expect(throws: ProtocolError(.badField, "field 'degrees': out of range 0…270, got 360", cmd: "set_display_rotation")) {
            try decode(#"{"cmd":"set_display_rotation","degrees":360}"#)
        }
    }
}
