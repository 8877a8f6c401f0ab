import CarouselEngine
import CarouselMQTT
import CarouselProtocol
import Testing

/// Command topics → control requests (docs/PROTOCOL.md "Requests"), and the `error` payload.
@Suite struct BridgeCommandTests {
    static func request(_ command: BridgeCommand, _ payload: String) -> Result<Request, BridgeCommandError> {
        do { return .success(try command.request(payload: Array(payload.utf8))) } catch { return .failure(error) }
    }

    @Test func payloadsThatWork() {
        #expect(Self.request(.setIndex, "3") == .success(.scrollTo(index: 3, animated: true)))
        #expect(Self.request(.setIndex, " 7\n") == .success(.scrollTo(index: 7, animated: true)))
        #expect(Self.request(.setIndex, "4.0") == .success(.scrollTo(index: 4, animated: true)))
        #expect(Self.request(.setIndex, "+2") == .success(.scrollTo(index: 2, animated: true)))
        #expect(Self.request(.setCount, "0") == .success(.setCount(0)))
        #expect(Self.request(.setTilt, "ON") == .success(.setTilt(TiltRequest(enabled: true))))
        #expect(Self.request(.setTilt, "off") == .success(.setTilt(TiltRequest(enabled: false))))
        #expect(Self.request(.setTilt, "On ") == .success(.setTilt(TiltRequest(enabled: true))))
        #expect(Self.request(.recenter, "") == .success(.recenterTilt))
        #expect(Self.request(.recenter, "PRESS") == .success(.recenterTilt))
    }

    @Test func payloadsThatAreRefused() {
        #expect(Self.request(.setIndex, "abc") == .failure(BridgeCommandError("expected an item index (a whole number)")))
        #expect(Self.request(.setIndex, "") == .failure(BridgeCommandError("expected an item index (a whole number)")))
        #expect(Self.request(.setIndex, "2.5") == .failure(BridgeCommandError("expected an item index (a whole number)")))
        #expect(Self.request(.setIndex, "1e400") == .failure(BridgeCommandError("expected an item index (a whole number)")))
        #expect(Self.request(.setIndex, "-1") == .failure(BridgeCommandError("expected an item index ≥ 0, got -1")))
        #expect(Self.request(.setCount, "-5") == .failure(BridgeCommandError("expected an item count ≥ 0, got -5")))
        #expect(Self.request(.setTilt, "yes") == .failure(BridgeCommandError("expected ON or OFF")))
        do {
            _ = try BridgeCommand.setCount.request(payload: [0xFF, 0xFE])
            Issue.record("no error")
        } catch {
            #expect(error.message == "the payload is not UTF-8 text")
        }
    }

    @Test func topicsAndCommands() {
        let topics = BridgeTopics(topicPrefix: "site/a", deviceID: "k1")
        #expect(topics.command(.setIndex) == "site/a/k1/set/index")
        #expect(topics.command(.recenter) == "site/a/k1/recenter")
        for command in BridgeCommand.allCases { #expect(topics.command(forTopic: topics.command(command)) == command) }
        #expect(topics.command(forTopic: "site/a/k1/state") == nil)
        #expect(topics.command(forTopic: "site/a/k2/set/index") == nil)
        #expect(topics.error == "site/a/k1/error")
    }

    @Test func errorPayload() throws {
        let bytes = BridgeErrorPayload.encode(topic: "c/k/set/index", payload: Array("a\"b".utf8), message: "bad")
        let json = try WireJSONParser.parse(bytes)
        #expect(json == .object([("topic", .string("c/k/set/index")), ("payload", .string("a\"b")), ("message", .string("bad"))]))
        let long = BridgeErrorPayload.encode(topic: "t", payload: [UInt8](repeating: 0x41, count: 1000), message: "m")
        #expect(try WireJSONParser.parse(long)["payload"]?.stringValue == String(repeating: "A", count: 256) + "…")
    }

    /// The requests the bridge sends are exactly what the daemon's decoder reads back.
    @Test func requestLinesRoundTripThroughTheDaemonsDecoder() throws {
        let requests: [Request] = [
            .scrollTo(index: 3, animated: true), .setCount(12), .setTilt(TiltRequest(enabled: false)), .recenterTilt,
            .watch(WatchRequest(enable: true, items: false, maxRateHz: 20)), .poll, .status, .sensors, .samples(enable: false),
            .drag(phase: .ended, location: 12.5, velocity: -300), .tap(location: 4, cross: nil), .outerScroll(y: 8),
            .outerScrollEnded(y: nil), .reload,
            .setGeometry(GeometryRequest(viewport: WireSize(width: 375, height: 200), item: WireSize(width: 250, height: 160),
                                         spacing: 10, axis: .vertical, direction: .rightToLeft)),
            .setTilt(TiltRequest(enabled: true, mode: .position, values: [.deadZone: 2, .maxAngle: 20, .maxItemsPerSecond: 1.5])),
        ]
        for request in requests {
            #expect(try RequestDecoder.decode(line: request.jsonLine.dropLast()) == request, "\(request.jsonText)")
            #expect(request.jsonLine.last == 0x0A)
        }
        #expect(Request.scrollTo(index: 3, animated: true).jsonText == #"{"cmd":"scroll_to","index":3,"animated":true}"#)
        #expect(Request.setTilt(TiltRequest(enabled: true)).jsonText == #"{"cmd":"set_tilt","enabled":true}"#)
    }
}
