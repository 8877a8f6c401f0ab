#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
import IIOSensors

/// libFuzzer entry point for the IIO scan-element type check (`scan_elements/*_type`, e.g.
/// `le:s12/16>>4`): libiio parses the text, `IIOChannel.formatProblem` decides whether the
/// daemon may decode it, `IIOChannel.typeString` writes it back for `carouselctl sensors`.
///
/// The input is the type text of channel `accel_x` in a libiio XML context (`xml:FILE`, the
/// backend that reads the same `format` strings as the local one), opened through the public
/// `IIOContext(uri:)`. Checked: no crash or memory error; a format the check accepts has a
/// storage size of 8, 16, 32 or 64 bits holding its value bits and shift, and its `typeString`,
/// read back the same way, is accepted again with the same text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScanElementType(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let channel = accelX(format: text) else { return 0 }
    guard channel.channel.formatProblem == nil else { return 0 }
    let f = channel.channel.dataFormat
    guard [8, 16, 32, 64].contains(f.length), f.bits >= 1, f.shift + f.bits <= f.length else {
        fuzzFailure("accepted '\(text)': length \(f.length), bits \(f.bits), shift \(f.shift)")
    }
    let written = channel.channel.typeString
    guard let again = accelX(format: written) else { fuzzFailure("typeString '\(written)' of '\(text)' does not load") }
    guard again.channel.formatProblem == nil, again.channel.typeString == written else {
        fuzzFailure("typeString '\(written)' of '\(text)' reads back as '\(again.channel.typeString)'")
    }
    return 0
}

/// The context file, in a private directory made once per fuzzing process (under
/// `$CAROUSEL_FUZZ_TMP`, else /tmp).
private nonisolated(unsafe) var contextPath: String?

/// Opens a one-device XML context whose `accel_x` has the given scan-element format; nil when
/// libiio refuses the document (libxml2 rejects bytes that are not XML text).
private func accelX(format: String) -> (context: IIOContext, channel: IIOChannel)? {
    guard let path = preparedPath() else { fuzzFailure("cannot create a temporary directory") }
    let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <context name="xml" version-major="0" version-minor="24" version-git="fuzz" description="fuzz">\
        <device id="iio:device0" name="fuzz-accel">\
        <channel id="accel_x" type="input">\
        <scan-element index="0" format="\(escaped(format))" scale="0.01"/>\
        <attribute name="raw" filename="in_accel_x_raw"/>\
        </channel></device></context>
        """
    let bytes = Array(xml.utf8)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { fuzzFailure("cannot write \(path): errno \(errno)") }
    let written = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count else { fuzzFailure("short write to \(path)") }
    guard let context = try? IIOContext(uri: "xml:" + path),
          let channel = context.devices.first?.channels.first(where: { $0.id == "accel_x" }) else { return nil }
    return (context, channel)
}

private func preparedPath() -> String? {
    if let contextPath { return contextPath }
    // scripts/fuzz points CAROUSEL_FUZZ_TMP at a directory it removes when it ends.
    let parent = getenv("CAROUSEL_FUZZ_TMP").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(parent)/carousel-fuzz-scan-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let made else { return nil }
    let path = made + "/context.xml"
    contextPath = path
    return path
}

/// The text as an XML attribute value.
private func escaped(_ text: String) -> String {
    var out = ""
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzScanElementType_main")
public func FuzzScanElementTypeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzScanElementType)
}
