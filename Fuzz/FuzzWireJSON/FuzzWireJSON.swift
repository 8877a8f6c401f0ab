import FuzzSupport
import CarouselProtocol

/// libFuzzer entry point for `WireJSONParser.parse` (the strict JSON of the wire protocol).
///
/// Parses the input with the wire limits and with the request limits (duplicate keys
/// rejected). Checked: no crash or memory error (address sanitizer); a text the request limits
/// accept is accepted by the wire limits as the same value; an error's byte offset lies within
/// the input and maps to a line and column ≥ 1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let wire: WireJSON?
    do {
        wire = try WireJSONParser.parse(bytes, limits: .wire)
    } catch {
        wire = nil
        check(error, size: size, bytes: bytes)
    }
    do {
        let strict = try WireJSONParser.parse(bytes, limits: .request)
        guard let wire, strict == wire else { fuzzFailure("request limits accepted what the wire limits did not, or a different value") }
    } catch {
        check(error, size: size, bytes: bytes)
    }
    return 0
}

private func check(_ error: WireJSONParseError, size: Int, bytes: UnsafeBufferPointer<UInt8>) {
    guard error.offset >= 0, error.offset <= size else { fuzzFailure("error offset \(error.offset) outside 0...\(size)") }
    let position = error.lineAndColumn(in: String(decoding: bytes, as: UTF8.self))
    guard position.line >= 1, position.column >= 1 else { fuzzFailure("line/column \(position) for offset \(error.offset)") }
    _ = error.description
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzWireJSON_main")
public func FuzzWireJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzWireJSON)
}
