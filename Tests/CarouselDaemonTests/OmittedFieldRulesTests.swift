import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// What a request that leaves a field out means (docs/PROTOCOL.md, Conventions: an omitted field
/// of a `set_*` request keeps the running value), and a request that could only be ACKed
/// without effect.
struct OmittedFieldRulesTests {
    /// `set_geometry` without `spacing` reset it to 0 while an omitted `axis` kept the running
    /// axis. Both keep their running values.
    @Test func setGeometryWithoutSpacingKeepsTheRunningSpacing() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_geometry","viewport":{"width":800,"height":400},"item":{"width":300,"height":200},"spacing":20,"axis":"vertical"}"#, from: c)
        h.send(#"{"cmd":"set_geometry","viewport":{"width":800,"height":400},"item":{"width":300,"height":200}}"#, from: c)
        #expect(h.read(c).map { $0["class"]?.stringValue ?? "?" } == ["ACK", "ACK"])
        let g = h.core.engine.configuration.geometry
        #expect(g.spacing == 20)
        #expect(g.axis == .vertical)
        #expect(g.pitch == 220)  // vertical: item height 200 + spacing 20
        // A reload keeps it too: what the client set is remembered field by field.
        #expect(h.core.overrides.spacing == 20)
    }

    /// `set_autoplay {"enabled": true}` with no interval (none given, `[carousel] autoplay_s`
    /// 0) was ACKed while autoplay stayed `off`: it is refused, naming what is missing, and
    /// accepted with an interval.
    @Test func enablingAutoplayWithoutAnIntervalIsRefused() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_autoplay","enabled":true}"#, from: c)
        h.send(#"{"cmd":"set_autoplay","enabled":true,"interval_s":0}"#, from: c)
        h.send(#"{"cmd":"set_autoplay","enabled":true,"interval_s":5}"#, from: c)
        h.send(#"{"cmd":"set_autoplay","enabled":false}"#, from: c)
        h.send(#"{"cmd":"set_autoplay","enabled":true}"#, from: c)
        h.send(#"{"cmd":"poll"}"#, from: c)
        let got = h.read(c)
        #expect(got.count == 6)
        #expect(try got[0] == WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'enabled': autoplay cannot run: no interval is set ([carousel] autoplay_s is 0); give interval_s (0.1 … 86400 seconds) with it","cmd":"set_autoplay"}"#))
        #expect(try got[1] == WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'enabled': autoplay cannot run: interval_s 0 is off; give interval_s (0.1 … 86400 seconds) with it","cmd":"set_autoplay"}"#))
        // With the interval of 5 s set once, switching off and on again needs no interval.
        #expect(got[2...4].map { $0["class"]?.stringValue ?? "?" } == ["ACK", "ACK", "ACK"])
        #expect(got[5]["autoplay"] == .string("running"))
    }
}
