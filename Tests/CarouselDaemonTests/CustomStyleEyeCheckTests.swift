import CarouselConfig
import CarouselEngine
import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// Hostile review: a custom style with `translate_z · limit · pitch ≥ perspective` put cards at
/// or behind the eye (scale 10⁶, `m44` = 0). `set_style`, `set_geometry` under a custom style
/// and a loaded file refuse it, naming the `translate_z` field.
@Suite struct CustomStyleEyeCheckTests {
    private func reply(_ h: CoreHarness, _ id: ClientID, _ line: String) -> WireJSON? {
        h.send(line, from: id)
        return h.read(id).first
    }

    @Test func setStyleAndSetGeometryRefuseCardsAtTheEye() {
        var h = CoreHarness()
        let id = h.connect()
        _ = h.read(id)
        // Pitch 260 (item 250 + spacing 10): 1 × 1 × 260 = 260 points, the eye at 260.
        let e = reply(h, id, #"{"cmd":"set_style","style":"custom","custom":{"next_translate_z":1,"perspective":260}}"#)
        #expect(e?["code"] == .string("bad_field"))
        #expect(e?["message"] == .string("field 'custom.next_translate_z': custom.next_translate_z 1 × limit 1 × pitch 260 = "
            + "260 points toward the viewer, at or behind the eye (perspective 260); use less than 1, a longer perspective "
            + "or a smaller limit"))
        // The previous side is checked first; limit 2 doubles the depth: 0.5 × 2 × 260 = 260.
        let p = reply(h, id, #"{"cmd":"set_style","style":"custom","custom":{"prev_translate_z":0.5,"limit":2,"perspective":260}}"#)
        #expect(p?["message"]?.stringValue?.hasPrefix("field 'custom.prev_translate_z': custom.prev_translate_z 0.5 × limit 2 × pitch 260 = 260 points") == true)
        // 0.5 × 1 × 260 = 130 < 260: accepted.
        #expect(reply(h, id, #"{"cmd":"set_style","style":"custom","custom":{"next_translate_z":0.5,"perspective":260}}"#)?["class"]
            == .string("ACK"))
        // A pitch of 520 (item 510 + spacing 10) brings the same card to 260 points: refused, the
        // running geometry kept.
        let g = reply(h, id, #"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":510,"height":160},"spacing":10}"#)
        #expect(g?["message"] == .string("field 'custom.next_translate_z': custom.next_translate_z 0.5 × limit 1 × pitch 520 = "
            + "260 points toward the viewer, at or behind the eye (perspective 260); use less than 0.5, a longer perspective "
            + "or a smaller limit"))
        #expect(h.core.engine.configuration.geometry.pitch == 260)
    }

    @Test func theConfigurationFileNamesTheKeyAndItsLine() {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        // Default pitch 520 (item 480 + spacing 40): 1 × 1 × 520 = 520 = perspective.
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\nstyle = custom\n[style.custom]\nnext_translate_z = 1\n"
            + "prev_translate_z = 1\nperspective = 520\n"))
        #expect(throws: ConfigurationError.unusable(
            path: path, line: 5, section: "style.custom", key: "prev_translate_z",
            message: "prev_translate_z 1 × limit 1 × pitch 520 = 520 points toward the viewer, at or behind the eye "
                + "(perspective 520); use less than 1, a longer perspective or a smaller limit")) {
            try CarouseldCommandLine.loadConfiguration(path: path, explicit: true, socketPathOverride: nil)
        }
        // Perspective 0 divides by nothing: any depth is allowed.
        #expect(ServiceTestSupport.writeFile(path, "[carousel]\nstyle = custom\n[style.custom]\nnext_translate_z = 5\nperspective = 0\n"))
        #expect(throws: Never.self) {
            try CarouseldCommandLine.loadConfiguration(path: path, explicit: true, socketPathOverride: nil)
        }
    }
}
