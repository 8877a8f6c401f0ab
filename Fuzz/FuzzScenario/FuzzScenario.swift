import CarouselCommandLine
import CarouselProtocol
import FuzzSupport

/// libFuzzer entry point for the `carouselctl simulate` scenario reader
/// (`ScenarioSimulation.plan`, and `run` for the scenarios small enough to run quickly).
///
/// The input is the whole scenario file. Checked: no crash or memory error; an error has a
/// non-empty message, and its description (what `carouselctl simulate` prints before exiting
/// 65) is one line without control characters, whatever keys and strings the scenario holds; a
/// scenario that reads asks for at least one frame, and one with at most 2,000 item objects of
/// output runs and prints exactly one JSON object per frame (wire JSON, so only finite numbers)
/// with the frame's `t` ascending.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let plan: ScenarioSimulation.Plan
    do {
        plan = try ScenarioSimulation.plan(text)
    } catch {
        guard !error.message.isEmpty else { fuzzFailure("empty message at path '\(error.path)'") }
        guard !error.description.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            fuzzFailure("error message not one clean line: \(error.description.debugDescription)")
        }
        return 0
    }
    guard plan.frameCount >= 1 else { fuzzFailure("a scenario with no frame") }
    // The reader bounds the output at 10 million items; running that on every input would make
    // each execution take seconds (4,101 frames of 4 items: 3.5 s with the sanitizer and
    // coverage, where carouselctl takes 0.2 s), so only small runs are run.
    guard plan.frameCount * max(plan.visibleItemBound, 1) <= 2_000 else { return 0 }
    var lines = 0
    var lastTime = -Double.infinity
    do {
        try ScenarioSimulation.run(text) { line in
            lines += 1
            let frame: WireJSON
            do {
                frame = try WireJSONParser.parse(Array(line.utf8), limits: .wire)
            } catch {
                fuzzFailure("frame \(lines) is not wire JSON (\(error)): \(line)")
            }
            guard case let .number(t)? = frame["t"], t >= lastTime else {
                fuzzFailure("frame \(lines) has no t after \(lastTime): \(line)")
            }
            lastTime = t
        }
    } catch {
        fuzzFailure("plan() accepted what run() refused: \(error)")
    }
    guard lines == plan.frameCount else { fuzzFailure("\(lines) frames printed, \(plan.frameCount) planned") }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzScenario_main")
public func FuzzScenarioMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzScenario)
}
