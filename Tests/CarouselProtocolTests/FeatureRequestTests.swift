import CarouselEngine
import Testing
@testable import CarouselProtocol

private func decode(_ line: String) throws(ProtocolError) -> Request {
    try RequestDecoder.decode(line: Array(line.utf8))
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// `set_autoplay`, `insert_items`, `remove_items`, `set_style`, STATE `autoplay` and LAYOUT's
/// alignment, groups and custom parameters (protocol 1.1, additive).
@Suite struct FeatureRequestTests {
    @Test func setAutoplayDecodesEveryFieldAndKeepsAbsentOnes() throws {
        #expect(try decode(#"{"cmd":"set_autoplay","paused":true}"#) == .setAutoplay(AutoplayRequest(paused: true)))
        #expect(try decode(#"{"cmd":"set_autoplay","enabled":true,"interval_s":4.5,"resume_s":0,"step":-2}"#)
            == .setAutoplay(AutoplayRequest(enabled: true, intervalSeconds: 4.5, resumeSeconds: 0, step: -2)))
        #expect(try decode(#"{"cmd":"set_autoplay","interval_s":0}"#) == .setAutoplay(AutoplayRequest(intervalSeconds: 0)))
    }

    @Test(arguments: [
        (#"{"cmd":"set_autoplay","interval_s":0.05}"#, "field 'interval_s': must be 0 (off) or lie in [0.1, 86400] seconds, got 0.05"),
        (#"{"cmd":"set_autoplay","interval_s":"5"}"#, "field 'interval_s': expected a number, got a string"),
        (#"{"cmd":"set_autoplay","resume_s":-1}"#, "field 'resume_s': must lie in [0, 86400] seconds, got -1"),
        (#"{"cmd":"set_autoplay","step":0}"#, "field 'step': must be a non-zero integer within ±1000, got 0"),
        (#"{"cmd":"set_autoplay","step":1.5}"#, "field 'step': expected an integer, got 1.5"),
        (#"{"cmd":"set_autoplay","paused":null}"#, "field 'paused': expected a boolean, got null (omit the field instead)"),
        (#"{"cmd":"insert_items","at":-1,"count":2}"#, "field 'at': out of range 0…1000000000, got -1"),
        (#"{"cmd":"insert_items","at":1e20,"count":2}"#, "field 'at': out of range 0…1000000000, got 1e+20"),
        (#"{"cmd":"insert_items","at":0,"count":0}"#, "field 'count': out of range 1…1000000000, got 0"),
        (#"{"cmd":"insert_items","at":0,"count":1e300}"#, "field 'count': out of range 1…1000000000, got 1e+300"),
        (#"{"cmd":"remove_items","at":0,"count":null}"#, "field 'count': expected an integer, got null"),
        (#"{"cmd":"insert_items","at":0,"count":1,"animated":null}"#, "field 'animated': expected a boolean, got null (omit the field instead)"),
        (#"{"cmd":"set_autoplay","step":null}"#, "field 'step': expected an integer, got null (omit the field instead)"),
        (#"{"cmd":"set_autoplay","step":1e300}"#, "field 'step': must be a non-zero integer within ±1000, got 1e+300"),
        (#"{"cmd":"set_autoplay","interval_s":null}"#, "field 'interval_s': expected a number, got null (omit the field instead)"),
        (#"{"cmd":"set_style","style":"custom","custom":null}"#, "field 'custom': expected an object of numbers, got null (omit the field instead)"),
        (#"{"cmd":"set_style","style":"linear","custom":null}"#, "field 'custom': expected an object of numbers, got null (omit the field instead)"),
        (#"{"cmd":"set_style","style":"custom","custom":{"prev_rotate_y":null}}"#, "field 'custom.prev_rotate_y': expected a number, got null (omit the field to keep its value)"),
        (#"{"cmd":"remove_items","count":1}"#, "missing field 'at'"),
        (#"{"cmd":"set_style","style":"flat"}"#, "field 'style': expected one of linear, zoom, stacked, coverFlow, rotary, cylinder, custom, got 'flat'"),
        (#"{"cmd":"set_style","style":"custom","custom":{"next_opacity":2}}"#, "field 'custom.next_opacity': must lie in [0, 1], got 2"),
        (#"{"cmd":"set_style","style":"custom","custom":{"limit":0}}"#, "field 'custom.limit': must be > 0 and ≤ 1000 items, got 0"),
        (#"{"cmd":"set_style","style":"custom","custom":[1]}"#, "field 'custom': expected an object of numbers, got an array"),
        (#"{"cmd":"set_style","style":"zoom","custom":{"limit":2}}"#, "field 'custom': only goes with style 'custom', got style 'zoom'"),
        // Unknown numbers inside `custom` are refused, as the file's [style.custom] refuses them
        // (a misspelt number was ACKed and kept its old value).
        (#"{"cmd":"set_style","style":"custom","custom":{"prev_rotate_y":40,"next_rotae_y":-40}}"#,
         "field 'custom.next_rotae_y': unknown custom style number; known: prev_translate_x, prev_translate_y, "
            + "prev_translate_z, prev_rotate_x, prev_rotate_y, prev_rotate_z, prev_scale, prev_opacity, next_translate_x, "
            + "next_translate_y, next_translate_z, next_rotate_x, next_rotate_y, next_rotate_z, next_scale, next_opacity, "
            + "limit, perspective"),
    ])
    func badFieldsNameTheField(line: String, message: String) {
        do {
            _ = try decode(line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == .badField)
            #expect(error.message == message)
        }
    }

    @Test func itemEditsAndStylesRoundTripThroughTheEncoder() throws {
        let requests: [Request] = [
            .insertItems(ItemEditRequest(at: 3, count: 2, animated: false)),
            .removeItems(ItemEditRequest(at: 0, count: 1)),
            .setAutoplay(AutoplayRequest(enabled: false, paused: true, intervalSeconds: 3, resumeSeconds: 12, step: 1)),
            .setStyle(StyleRequest(style: .zoom)),
            .setStyle(StyleRequest(style: .custom, custom: [.next(.rotateY): -45, .previous(.rotateY): 45, .perspective: 800])),
        ]
        for r in requests { #expect(try RequestDecoder.decode(line: r.jsonLine.dropLast()) == r) }
        #expect(requests[0].jsonText == #"{"cmd":"insert_items","at":3,"count":2,"animated":false}"#)
        #expect(requests.map(\.requiresControl).allSatisfy { $0 })
    }

    @Test func stateCarriesAutoplay() {
        let state = StateMessage(seq: 1, timeNanoseconds: 0, index: 0, position: 0, offset: 0, velocity: 0, phase: "idle",
                                 count: 3, tilt: WireTilt(rollDeg: nil, pitchDeg: nil, enabled: false), sensor: "absent",
                                 autoplay: "paused")
        #expect(text(state.encodedLine()).hasSuffix(#","sensor":"absent","autoplay":"paused"}"# + "\n"))
    }

    /// LAYOUT of a custom, start-aligned, contained, grouped carousel: every parameter by its
    /// wire name, in table order.
    @Test func layoutCarriesAlignmentGroupsAndCustomParameters() {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 800, height: 400), item: CarouselSize(width: 300, height: 200),
                                        spacing: 20, count: 9, align: .start, contain: true)
        let custom = CustomStyle(previous: CustomSide(translateX: -1, rotateY: 40, scale: 0.8),
                                 next: CustomSide(translateX: 1, rotateY: -40, scale: 0.8, opacity: 0.5), limit: 2, perspective: 600)
        let line = text(LayoutMessage(CarouselConfiguration(geometry: geometry, style: .custom(custom), groupSize: 3)).encodedLine())
        #expect(line == #"{"class":"LAYOUT","viewport":{"width":800,"height":400},"item":{"width":300,"height":200},"spacing":20,"axis":"horizontal","direction":"ltr","style":"custom","cyclic":false,"count":9,"align":"start","contain":true,"group_size":3,"custom":{"prev_translate_x":-1,"prev_translate_y":0,"prev_translate_z":0,"prev_rotate_x":0,"prev_rotate_y":40,"prev_rotate_z":0,"prev_scale":0.8,"prev_opacity":1,"next_translate_x":1,"next_translate_y":0,"next_translate_z":0,"next_rotate_x":0,"next_rotate_y":-40,"next_rotate_z":0,"next_scale":0.8,"next_opacity":0.5,"limit":2,"perspective":600}}"# + "\n")
        #expect(StyleName.allCases.map { StyleName($0.style(custom: custom)) } == StyleName.allCases)
    }
}
