import FuzzSupport
import CarouselProtocol

/// libFuzzer entry point for the request path of a client connection: `LineFramer` splits the
/// input at newlines (64 KiB limit), `RequestDecoder.decode(line:)` decodes every line.
///
/// Checked: no crash or memory error; every error is one of the request codes (`bad_json`,
/// `unknown_cmd`, `bad_field`) with a non-empty message; the framer never holds more than its
/// limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var framer = LineFramer()
    framer.append(bytes)
    framer.append([UInt8(ascii: "\n")])
    while true {
        let line: ArraySlice<UInt8>?
        do {
            line = try framer.nextLine()
        } catch {
            break  // too_long: the daemon answers and closes
        }
        guard let line else { break }
        do {
            _ = try RequestDecoder.decode(line: line)
        } catch {
            guard [.badJSON, .unknownCommand, .badField].contains(error.code) else {
                fuzzFailure("unexpected error code \(error.code) for a request line")
            }
            guard !error.message.isEmpty else { fuzzFailure("empty error message") }
        }
    }
    guard framer.pendingByteCount <= LineFramer.requestLimit else { fuzzFailure("framer holds \(framer.pendingByteCount) bytes") }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzRequestDecoder_main")
public func FuzzRequestDecoderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRequestDecoder)
}
