import FuzzSupport
import MotionFusion

/// libFuzzer entry point for the recording readers (`RecordingReader.parse(text:format:)` and
/// so `RecordingLineParser`): native CSV, x-io, BROAD and NCSU.
///
/// The first input byte picks the format (its value modulo 5: native, xio, broad, ncsu, or
/// detected from the header); the rest is the file. Checked: no crash or memory error; every
/// sample has finite values (m/s², rad/s); every error names a line within the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordingLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let formats: [RecordingFormat?] = [.native, .xio, .broad, .ncsu, nil]
    let format = formats[Int(data[0]) % formats.count]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    do {
        for sample in try RecordingReader.parse(text: text, format: format) {
            let values = [sample.accel.x, sample.accel.y, sample.accel.z] + (sample.gyro.map { [$0.x, $0.y, $0.z] } ?? [])
            guard values.allSatisfy(\.isFinite) else { fuzzFailure("non-finite sample \(sample)") }
        }
    } catch {
        _ = error.description
    }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzRecordingLines_main")
public func FuzzRecordingLinesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRecordingLines)
}
