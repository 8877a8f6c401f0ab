import CarouselConfig
import CarouselEngine
import FuzzSupport

/// libFuzzer entry point for the configuration loader: `DaemonConfiguration.parse(text:path:)`,
/// which runs `INIReader` (libinih) and then validates every section, key and value.
///
/// The input is the whole file. Checked: no crash or memory error; an error names the file, a
/// line within the file when it names one, maps to exit status 78 and is one line without
/// control characters (so a hostile file cannot write into the journal or a terminal); a
/// configuration that parses satisfies the loader's own cross-key rules (`max_deg` above
/// `dead_zone_deg`, a replay source has an absolute `replay_file`) and parses again to the
/// same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigurationFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let path = "/fuzz/carouseld.conf"
    let configuration: DaemonConfiguration
    do {
        configuration = try DaemonConfiguration.parse(text: text, path: path)
    } catch {
        check(error, path: path, lineCount: text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 })
        return 0
    }
    do {
        try configuration.tilt.mapping.check()
    } catch {
        fuzzFailure("accepted tilt settings that check() refuses: \(error)")
    }
    if configuration.sensor.source == .replay && !configuration.sensor.replayFile.hasPrefix("/") {
        fuzzFailure("accepted replay source with replay_file '\(configuration.sensor.replayFile)'")
    }
    guard configuration.calibration.file.hasPrefix("/") else {
        fuzzFailure("calibration file '\(configuration.calibration.file)' not made absolute")
    }
    do {
        guard try DaemonConfiguration.parse(text: text, path: path) == configuration else {
            fuzzFailure("the same text parsed twice gives two configurations")
        }
    } catch {
        fuzzFailure("the same text parsed once, then failed: \(error)")
    }
    return 0
}

private func check(_ error: ConfigurationError, path: String, lineCount: Int) {
    guard error.path == path else { fuzzFailure("error names \(error.path), not \(path)") }
    if let line = error.line, !(1...lineCount).contains(line) {
        fuzzFailure("error names line \(line) of a \(lineCount)-line file: \(error)")
    }
    guard error.exitStatus == .configuration else { fuzzFailure("content error \(error) maps to \(error.exitStatus)") }
    let message = error.description
    guard message.hasPrefix(path), !message.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
        fuzzFailure("error message not one clean line: \(message.debugDescription)")
    }
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzConfigurationFile_main")
public func FuzzConfigurationFileMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzConfigurationFile)
}
