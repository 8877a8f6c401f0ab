import FuzzSupport
import MotionFusion

/// libFuzzer entry point for `CalibrationFile.parse(text:path:)` (the INI calibration file that
/// `carouselctl calibrate` writes and the daemon reads).
///
/// Checked: no crash or memory error; a file that parses, written back with `serialized()`,
/// parses again to the same calibration for the same sensor (what the daemon writes it can
/// read).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalibrationFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let file: CalibrationFile
    do {
        file = try CalibrationFile.parse(text: text, path: "fuzz.conf")
    } catch {
        _ = error.description
        return 0
    }
    do {
        let again = try CalibrationFile.parse(text: file.serialized(), path: "fuzz-again.conf")
        guard same(again.calibration, file.calibration), again.sensorName == file.sensorName,
              again.sensorPath == file.sensorPath else {
            fuzzFailure("serialized() does not read back as the same calibration")
        }
    } catch {
        fuzzFailure("serialized() of a parsed file does not parse: \(error)")
    }
    return 0
}

private func same(_ a: Calibration, _ b: Calibration) -> Bool {
    let left = [a.gyroBias, a.accelOffset, a.accelScale].flatMap { [$0.x, $0.y, $0.z] } + [a.neutralRoll, a.neutralPitch]
    let right = [b.gyroBias, b.accelOffset, b.accelScale].flatMap { [$0.x, $0.y, $0.z] } + [b.neutralRoll, b.neutralPitch]
    return zip(left, right).allSatisfy { nearlyEqual($0, $1) }
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzCalibrationFile_main")
public func FuzzCalibrationFileMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzCalibrationFile)
}
