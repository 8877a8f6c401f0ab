import CarouselConfig
import CarouselEngine
import CarouselTestSupport
import MotionFusion
import Testing
@testable import CarouselDaemon

/// `configs/demo.conf` replays data/demo-recording.csv, which rests at 0–3.8 s, 14.5–18.7 s and
/// 19.5–22 s with a roll of up to about −3.3° (accelerometer) / −3.8° (estimate) and tilts to
/// about +61° (4.5–9 s) and −55° (10–14 s). Through the daemon's own pipeline and engine set-up,
/// the carousel must stand still while the device rests and move while it is tilted.
@Suite struct DemoConfigRestTests {
    private static let root = TestPaths.packageRoot

    /// Offsets at each sample time, through the pipeline and engine built from `configuration`.
    private static func replay(_ configuration: DaemonConfiguration) throws -> [(time: Double, state: CarouselState)] {
        let text = try #require(readTextFile(configuration.sensor.replayFile))
        let samples = try RecordingReader.parse(text: text)
        let pipeline = MotionTiltPipeline(calibration: .identity,
                                          estimator: EngineSetup.estimatorConfiguration(configuration),
                                          mapper: EngineSetup.tiltMapper(configuration, calibration: .identity))
        var engine = CarouselEngine(configuration: EngineSetup.carouselConfiguration(configuration))
        var states: [(time: Double, state: CarouselState)] = []
        for sample in samples {
            let time = Double(sample.timestampNanoseconds) / 1e9
            if let reading = pipeline.process(sample) { engine.tilt(rollDegrees: reading.driveDegrees, at: time) }
            engine.advance(to: time)
            states.append((time, engine.state))
        }
        return states
    }

    private static func offsets(_ states: [(time: Double, state: CarouselState)], in window: ClosedRange<Double>) -> [Double] {
        states.filter { window.contains($0.time) }.map(\.state.offset)
    }

    @Test func theDemoCarouselRestsStillWhileTheRecordingRests() throws {
        let configuration = try DaemonConfiguration.load(path: Self.root + "/configs/demo.conf")
        let states = try Self.replay(configuration)
        // The first rest: never leaves item 0. The rest after the left tilt: once the snap to a
        // centered item has ended (it ends within 1.5 s of the tilt), the offset stays put.
        #expect(Set(Self.offsets(states, in: 0.5...3.8)) == [0])
        let rest = Self.offsets(states, in: 16...18.5)
        #expect(!rest.isEmpty && Set(rest).count == 1, "offset moved at rest: \(Set(rest).sorted())")
        #expect(states.filter { (16...18.5).contains($0.time) }.allSatisfy { $0.state.phase == .idle })
        // The tilts still drive it: the index moves during the right tilt.
        let tilted = states.filter { (5...9).contains($0.time) }.compactMap(\.state.index)
        #expect(Set(tilted).count > 1)
    }

    @Test func withTheThreeDegreeDefaultTheSameRestCreeps() throws {
        var configuration = try DaemonConfiguration.load(path: Self.root + "/configs/demo.conf")
        configuration.tilt.mapping.deadZoneDegrees = TiltSettings().deadZoneDegrees
        let rest = Self.offsets(try Self.replay(configuration), in: 16...18.5)
        #expect(Set(rest).count > 1, "the recording no longer rests past 3°: this test no longer shows the fix")
    }
}
