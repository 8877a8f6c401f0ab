import CarouselEngine
import CarouselProtocol
import IIOSensors
import Testing
@testable import CarouselDaemon

/// The item bound is a byte budget: the largest STATE any accepted geometry and style can make
/// stays under the 256 KiB output bound with room for what queues beside it, so a watcher that
/// pauses is not dropped however wide its items' numbers are.
@Suite struct StateByteBudgetTests {
    @Test func theBudgetFigures() {
        print("STATE byte budget: widest item \(StateItemBudget.widestItemBytes) bytes, widest STATE without items "
              + "\(StateItemBudget.widestStateBytes) bytes, \(StateItemBudget.maximumItems) items, largest line "
              + "\(StateItemBudget.largestStateBytes) bytes")
        #expect(StateItemBudget.largestStateBytes <= StateItemBudget.outputBoundBytes - StateItemBudget.reserveBytes)
        #expect(StateItemBudget.outputBoundBytes == DaemonCore.Limits().outputLimit)
    }

    /// No number is written longer than `widestNumberBytes`: the extremes of every binade's
    /// form (subnormal, normal, huge, fixed notation around 1e-4 and 2^53) and a sweep of bit
    /// patterns with full 17-digit mantissas.
    @Test func noNumberIsWiderThanTheWidestNumber() {
        var values: [Double] = [-2.2250738585072014e-308, -Double.leastNonzeroMagnitude, -Double.greatestFiniteMagnitude,
                                -0.00012345678901234567, -0.00099999999999999993, -9007199254740993.0, -1.2345678901234567e16,
                                -1.2345678901234567e-5, -123456789012345.67, -0.1 - 0.2]
        var bits: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 {
            bits = bits &* 6364136223846793005 &+ 1442695040888963407
            let v = Double(bitPattern: bits)
            if v.isFinite { values.append(v) }
        }
        let widest = values.map { WireJSONWriter.format($0).utf8.count }.max() ?? 0
        #expect(widest == StateItemBudget.widestNumberBytes)
        #expect(WireJSONWriter.format(StateItemBudget.widestNumber).utf8.count == StateItemBudget.widestNumberBytes)
    }

    /// The largest possible line: `maximumItems` items and the STATE around them with every
    /// field at its widest, encoded by the daemon's own encoders, is `largestStateBytes` long
    /// and within the bound.
    @Test func theLargestPossibleStateLineFitsTheBound() throws {
        let n = StateItemBudget.widestNumber
        let item = WireItem(index: Int.min, instance: Int.min, center: (n, n), size: (n, n), scale: (n, n), alpha: n,
                            zIndex: n, transform: Array(repeating: n, count: 16))
        let items = WireItem.encodeArray(Array(repeating: item, count: StateItemBudget.maximumItems))
        let state = StateMessage(seq: .max, timeNanoseconds: .min, index: .min, position: n, offset: n, velocity: n,
                                 phase: "outer_scrolling", count: .min, tilt: WireTilt(rollDeg: n, pitchDeg: n, enabled: false),
                                 sensor: "absent", autoplay: "running")
        let line = state.encodedLine(itemsJSON: items)
        #expect(line.count == StateItemBudget.largestStateBytes)
        #expect(line.count <= 256 * 1024 - 16 * 1024)
        // One more item would not fit.
        #expect(line.count + StateItemBudget.widestItemBytes > 256 * 1024 - 16 * 1024)
    }

    /// The attack: a custom style with `limit` 253.98, full-precision numbers and 196-point
    /// items listed 511 items of ~524 bytes, 267,712-byte lines over the 256 KiB bound, and a
    /// watcher that paused 3 s was dropped. That style is refused now; with the largest limit
    /// the message offers, the same watcher pauses 3 s of scrolling and stays.
    @Test func aWatcherPausingUnderTheWidestCustomStyleIsNotDropped() throws {
        var h = CoreHarness()
        let c = h.connect()
        _ = h.read(c)
        h.send(#"{"cmd":"set_count","count":1000000}"#, from: c)
        h.send(#"{"cmd":"set_geometry","viewport":{"width":375,"height":200},"item":{"width":196,"height":160},"spacing":10}"#, from: c)
        let custom = #""prev_translate_x":-0.7071067811865476,"prev_translate_y":0.1234567890123457,"prev_translate_z":-0.3333333333333333,"#
            + #""prev_rotate_x":11.111111111111112,"prev_rotate_y":33.333333333333336,"prev_rotate_z":7.777777777777778,"#
            + #""prev_scale":0.7777777777777778,"prev_opacity":0.3333333333333333,"#
            + #""next_translate_x":0.7071067811865476,"next_translate_y":-0.1234567890123457,"next_translate_z":-0.3333333333333333,"#
            + #""next_rotate_x":-11.111111111111112,"next_rotate_y":-33.333333333333336,"next_rotate_z":-7.777777777777778,"#
            + #""next_scale":0.7777777777777778,"next_opacity":0.3333333333333333,"perspective":1234.5678901234567"#
        h.send(#"{"cmd":"set_style","style":"custom","custom":{\#(custom),"limit":253.98}}"#, from: c)
        let replies = h.read(c)
        #expect(replies.map { $0["class"]?.stringValue ?? "?" } == ["ACK", "ACK", "ERROR"])
        let message = try #require(replies.last?["message"]?.stringValue)
        #expect(message.hasPrefix("field 'custom.limit': with custom.limit 253.98, up to 511 items can be visible at once, "
            + "more than the \(StateItemBudget.maximumItems) one STATE carries; use a limit of at most "))
        let fitting = try #require(Int(message.split(separator: " ").last ?? ""))
        h.send(#"{"cmd":"set_style","style":"custom","custom":{\#(custom),"limit":\#(fitting)}}"#, from: c)
        #expect(h.read(c).map { $0["class"]?.stringValue ?? "?" } == ["ACK"])
        h.send(#"{"cmd":"scroll_to","index":500000,"animated":false}"#, from: c)
        h.send(#"{"cmd":"watch","items":true}"#, from: c)
        let first = h.read(c)
        let state = try #require(first.first { $0["class"] == .string("STATE") })
        let listed = state["items"]?.arrayValue?.count ?? 0
        #expect(listed > StateItemBudget.maximumItems - 3 && listed <= StateItemBudget.maximumItems)
        // It stops reading (its socket is full) while the carousel scrolls for 3 s.
        h.core.wrote(0, to: c, blocked: true, now: h.now)
        h.send(#"{"cmd":"scroll_to","index":500020,"animated":true}"#, from: c)
        _ = h.run(until: h.now + 3_000 * CoreHarness.ms, reading: ClientID(99))
        #expect(!h.core.shouldClose(c), "a paused watcher was dropped")
        #expect(h.core.pendingOutput(for: c).count <= StateItemBudget.outputBoundBytes)
    }
}
