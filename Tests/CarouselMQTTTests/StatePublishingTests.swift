import CarouselMQTT
import CarouselProtocol
import Testing

/// The published state (STATE's own field names), when it is published, and the backoff.
@Suite struct StatePublishingTests {
    static func state(index: Int? = 0, position: Double = 0, phase: String = "idle", roll: Double? = 0,
                      enabled: Bool = true, sensor: String = "ok", count: Int = 10) -> BridgeState {
        BridgeState(index: index, count: count, position: position, phase: phase, rollDeg: roll, pitchDeg: 0,
                    tiltEnabled: enabled, sensor: sensor)
    }

    @Test func readsAStateLineAndPublishesItsFields() throws {
        let line = #"{"class":"STATE","seq":7,"time_ns":12,"index":3,"position":2.75,"offset":715,"velocity":-40,"phase":"snapping","count":10,"tilt":{"roll_deg":-4.5,"pitch_deg":null,"enabled":true},"sensor":"ok"}"#
        let state = try BridgeState(stateMessage: try WireJSONParser.parse(line))
        #expect(state == BridgeState(index: 3, count: 10, position: 2.75, phase: "snapping", rollDeg: -4.5, pitchDeg: nil,
                                     tiltEnabled: true, sensor: "ok"))
        #expect(String(decoding: state.payload, as: UTF8.self)
                == #"{"index":3,"count":10,"position":2.75,"phase":"snapping","tilt":{"roll_deg":-4.5,"pitch_deg":null,"enabled":true},"sensor":"ok"}"#)
        // Protocol 1.0 daemons send 0 without an estimate; an empty carousel has a null index.
        let empty = try BridgeState(stateMessage: try WireJSONParser.parse(
            #"{"class":"STATE","index":null,"position":0,"phase":"idle","count":0,"tilt":{"roll_deg":0,"pitch_deg":0,"enabled":false},"sensor":"absent"}"#))
        #expect(empty.index == nil && empty.rollDeg == 0 && empty.count == 0)
    }

    @Test func refusesAStateItCannotRead() {
        let bad = [
            (#"{"index":1}"#, "STATE has no 'count'"),
            (#"{"index":"1","count":1}"#, "STATE 'index' is not an integer or null"),
            (#"{"index":1,"count":1,"position":0,"phase":"idle","tilt":{"roll_deg":"x","pitch_deg":0,"enabled":true},"sensor":"ok"}"#,
             "STATE 'tilt.roll_deg' is a string, expected a number or null"),
            (#"{"index":1,"count":1,"position":0,"phase":"idle","tilt":{"roll_deg":0,"pitch_deg":0},"sensor":"ok"}"#,
             "STATE has no 'tilt.enabled'"),
        ]
        for (text, message) in bad {
            do {
                _ = try BridgeState(stateMessage: try WireJSONParser.parse(text))
                Issue.record("accepted \(text)")
            } catch let error as BridgeStateError {
                #expect(error.message == message)
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func discreteChangesGoOutAtOnceMotionAtMostTwiceASecond() {
        var s = StatePublishSchedule(maximumRateHz: 2)
        let ms: Int64 = 1_000_000
        #expect(s.offer(Self.state(), now: 0) == Self.state())
        #expect(s.offer(Self.state(), now: 10 * ms) == nil)                             // identical
        #expect(s.offer(Self.state(position: 0.1, phase: "tilting"), now: 20 * ms) != nil)  // starts moving
        #expect(s.offer(Self.state(position: 0.2, phase: "tilting"), now: 100 * ms) == nil) // throttled
        #expect(s.offer(Self.state(index: 1, position: 0.6, phase: "tilting"), now: 200 * ms) == nil) // index passing by
        #expect(s.deadline == 520 * ms)
        #expect(s.due(now: 519 * ms) == nil)
        #expect(s.due(now: 520 * ms) == Self.state(index: 1, position: 0.6, phase: "tilting"))  // the newest, not the first
        #expect(s.deadline == nil)
        #expect(s.offer(Self.state(index: 1, position: 1, phase: "idle"), now: 600 * ms) != nil)  // comes to rest
        #expect(s.offer(Self.state(index: 1, position: 1, roll: 0.5), now: 700 * ms) == nil)
        #expect(s.offer(Self.state(index: 1, position: 1, roll: 0.5, sensor: "stale"), now: 710 * ms) != nil)  // sensor
        #expect(s.offer(Self.state(index: 1, position: 1, roll: 0.5, enabled: false, sensor: "stale"), now: 720 * ms) != nil)
        #expect(s.offer(Self.state(index: 1, position: 1, roll: 0.5, enabled: false, sensor: "stale", count: 5), now: 730 * ms) != nil)
        #expect(s.offer(Self.state(index: 2, position: 2, enabled: false, sensor: "stale", count: 5), now: 740 * ms) != nil)  // rest on another item
        let again = s.republish(Self.state(index: 2, position: 2, enabled: false, sensor: "stale", count: 5), now: 750 * ms)
        #expect(again.index == 2)
    }

    /// The angles go out rounded to 0.1°, halves away from zero; everything else as read.
    @Test func publishesTheTiltAnglesRoundedToATenthOfADegree() {
        let state = BridgeState(index: 2, count: 10, position: 2.0625, phase: "idle", rollDeg: 1.2345678901234,
                                pitchDeg: -3.25, tiltEnabled: true, sensor: "ok")
        #expect(String(decoding: state.payload, as: UTF8.self)
                == #"{"index":2,"count":10,"position":2.0625,"phase":"idle","tilt":{"roll_deg":1.2,"pitch_deg":-3.3,"enabled":true},"sensor":"ok"}"#)
        #expect(BridgeState.publishedAngle(-0.04) == 0 && BridgeState.publishedAngle(0.05) == 0.1)
        #expect(BridgeState.publishedAngle(89.96) == 90 && BridgeState.publishedAngle(-179.94) == -179.9)
        #expect(BridgeState.publishedAngle(nil) == nil)
        // A broken daemon's ±1e300 has no fraction: passed on, not overflowed to infinity.
        #expect(BridgeState.publishedAngle(-1e300) == -1e300)
        let near = BridgeState(index: 2, count: 10, position: 2.0625, phase: "idle", rollDeg: -0.04, pitchDeg: nil,
                               tiltEnabled: true, sensor: "ok")
        #expect(String(decoding: near.payload, as: UTF8.self).contains(#""tilt":{"roll_deg":0,"pitch_deg":null,"#))
    }

    /// At rest, tilt angles are published when they move by 0.1° or more from the last published
    /// ones, never for noise around a rounding boundary; still at most twice a second.
    @Test func anglesArePublishedWhenTheyMoveByATenthOfADegree() {
        var s = StatePublishSchedule(maximumRateHz: 2)
        let ms: Int64 = 1_000_000
        #expect(s.offer(Self.state(roll: 1.249), now: 0) != nil)                   // publishes 1.2
        #expect(s.offer(Self.state(roll: 1.251), now: 600 * ms) == nil)            // rounds to 1.3, moved 0.002°
        #expect(s.offer(Self.state(roll: 1.19), now: 1200 * ms) == nil)            // moved 0.059°
        #expect(s.offer(Self.state(roll: 1.349), now: 1800 * ms) == Self.state(roll: 1.349))  // moved 0.1°
        #expect(s.offer(Self.state(roll: 1.449), now: 1900 * ms) == nil)           // moved 0.1°, but 100 ms after
        #expect(s.deadline == 2300 * ms)
        #expect(s.offer(Self.state(roll: 1.4), now: 2000 * ms) == nil)             // back within 0.1° of 1.349
        #expect(s.deadline == nil)                                                  // nothing waits any more
        // Exactly 0.1° apart in decimal is 0.09999999999999987 in binary: still a change.
        #expect(Self.state(roll: 1.3).differsNoticeably(from: Self.state(roll: 1.2)))
        #expect(!Self.state(roll: 1.29).differsNoticeably(from: Self.state(roll: 1.2)))
        // An estimate appearing or going is a change; any other field is compared exactly.
        #expect(Self.state(roll: nil).differsNoticeably(from: Self.state(roll: 0)))
        #expect(Self.state(position: 1e-9).differsNoticeably(from: Self.state()))
        #expect(!Self.state(roll: nil).differsNoticeably(from: Self.state(roll: nil)))
    }

    @Test func rateZeroPublishesOnlyDiscreteChanges() {
        var s = StatePublishSchedule(maximumRateHz: 0)
        #expect(s.offer(Self.state(), now: 0) != nil)
        #expect(s.offer(Self.state(roll: 3), now: 5_000_000_000) == nil)
        #expect(s.deadline == nil)
        #expect(s.offer(Self.state(roll: 3, sensor: "stale"), now: 5_000_000_001) != nil)
    }

    @Test func backoffDoublesUpToTheMaximumWithJitter() {
        var b = Backoff(minimumSeconds: 1, maximumSeconds: 30)
        #expect(b.nextDelaySeconds(jitter: 1) == 1)
        #expect(b.nextDelaySeconds(jitter: 1) == 2)
        #expect(b.nextDelaySeconds(jitter: 0) == 2)      // 4 · 0.5
        #expect(b.nextDelaySeconds(jitter: 0.5) == 6)    // 8 · 0.75
        #expect(b.nextDelaySeconds(jitter: 1) == 16)
        #expect(b.nextDelaySeconds(jitter: 1) == 30)
        for _ in 0..<100 { _ = b.nextDelaySeconds(jitter: 1) }
        #expect(b.nextDelaySeconds(jitter: 1) == 30)
        b.reset()
        #expect(b.nextDelaySeconds(jitter: 0) == 0.5)
    }
}
