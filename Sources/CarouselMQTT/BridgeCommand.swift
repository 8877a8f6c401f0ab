import CarouselProtocol

/// A command topic under `<topic_prefix>/<device_id>/` and the control request it becomes
/// (docs/PROTOCOL.md, "Requests").
public enum BridgeCommand: String, Sendable, CaseIterable {
    /// Integer payload → `scroll_to {index, animated: true}`.
    case setIndex = "set/index"
    /// Integer payload → `set_count {count}`.
    case setCount = "set/count"
    /// `ON` / `OFF` (any case) → `set_tilt {enabled}`.
    case setTilt = "set/tilt"
    /// Any payload → `recenter_tilt`.
    case recenter = "recenter"

    /// The request for `payload`.
    /// - Throws: `BridgeCommandError` naming what the payload should have been.
    public func request(payload: [UInt8]) throws(BridgeCommandError) -> Request {
        switch self {
        case .recenter:
            return .recenterTilt
        case .setIndex:
            let index = try Self.integer(payload, what: "an item index")
            guard index >= 0 else { throw BridgeCommandError("expected an item index ≥ 0, got \(index)") }
            return .scrollTo(index: index, animated: true)
        case .setCount:
            let count = try Self.integer(payload, what: "an item count")
            guard count >= 0 else { throw BridgeCommandError("expected an item count ≥ 0, got \(count)") }
            return .setCount(count)
        case .setTilt:
            switch try Self.text(payload).lowercased() {
            case "on": return .setTilt(TiltRequest(enabled: true))
            case "off": return .setTilt(TiltRequest(enabled: false))
            default: throw BridgeCommandError("expected ON or OFF")
            }
        }
    }

    /// The payload as UTF-8 text without surrounding ASCII whitespace.
    private static func text(_ payload: [UInt8]) throws(BridgeCommandError) -> String {
        var bytes = payload[...]
        while let first = bytes.first, Self.isSpace(first) { bytes.removeFirst() }
        while let last = bytes.last, Self.isSpace(last) { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BridgeCommandError("the payload is not UTF-8 text")
        }
        return text
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// A decimal integer; `3.0` is accepted as 3 (what a dashboard slider may send), `3.5` is not.
    private static func integer(_ payload: [UInt8], what: String) throws(BridgeCommandError) -> Int {
        let text = try Self.text(payload)
        if let value = Int(text) { return value }
        guard !text.isEmpty, text.allSatisfy({ "0123456789+-.".contains($0) }), let value = Double(text),
              value.rounded(.towardZero) == value, abs(value) <= 1e9 else {
            throw BridgeCommandError("expected \(what) (a whole number)")
        }
        return Int(value)
    }
}

/// Why a command payload was refused; published on the `error` topic.
public struct BridgeCommandError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
