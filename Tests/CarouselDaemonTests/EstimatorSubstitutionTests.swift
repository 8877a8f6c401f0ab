import CarouselEngine
import CarouselProtocol
import IIOSensors
import MotionFusion
import Testing
@testable import CarouselDaemon

/// An accelerometer without a gyroscope under a gyro method (docs/SENSORS.md "Accelerometer
/// only"): the pipeline uses `accel` with its low-pass, and SENSOR, STATUS and the log say so.
@Suite struct EstimatorSubstitutionTests {
    static let level = IMUSample(timestampNanoseconds: 10_000_000, accel: Vector3(0, 0, standardGravity), gyro: nil)
    static let inertialInstead = WireEstimator(configured: "inertial", used: "accel", lowpassHz: 3,
                                               reason: "the sensor has no gyroscope")

    @Test func thePipelineSaysWhichEstimatorItUsedInPlaceOfTheConfiguredOne() {
        let pipeline = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .inertial), mapper: TiltInputMapper())
        #expect(pipeline.estimatorSubstitution == nil)
        _ = pipeline.process(Self.level)
        #expect(pipeline.estimatorSubstitution == Self.inertialInstead)
        // A configured low-pass is the one used.
        let configured = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .fusion, lowpassCutoffHz: 5),
                                            mapper: TiltInputMapper())
        _ = configured.process(Self.level)
        #expect(configured.estimatorSubstitution?.lowpassHz == 5)
        #expect(configured.estimatorSubstitution?.configured == "fusion")
        // With a gyroscope the configured estimator is used; `accel` is never a substitution.
        _ = pipeline.process(IMUSample(timestampNanoseconds: 20_000_000, accel: Self.level.accel, gyro: Vector3(0, 0, 0)))
        #expect(pipeline.estimatorSubstitution == nil)
        let accel = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .accel), mapper: TiltInputMapper())
        _ = accel.process(Self.level)
        #expect(accel.estimatorSubstitution == nil)
    }

    @Test func sensorAndStatusCarryTheSubstitutionOnceItHappens() throws {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                        item: CarouselSize(width: 250, height: 160), spacing: 10, count: 10)
        let pipeline = MotionTiltPipeline(calibration: .identity, estimator: .init(method: .inertial), mapper: TiltInputMapper())
        let now: Int64 = 1_000_000_000
        let core = DaemonCore(engine: CarouselEngine(configuration: CarouselConfiguration(geometry: geometry), time: 0),
                              tiltPipeline: pipeline, limits: DaemonCore.Limits(), sensorStatus: .ok, now: now)
        var told: [WireEstimator?] = []
        core.estimatorChanged = { told.append($0) }
        let id = ClientID(1)
        core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), mayControl: true, now: now)
        func read() -> [WireJSON] {
            let bytes = Array(core.pendingOutput(for: id))
            core.wrote(bytes.count, to: id, blocked: false, now: now)
            return bytes.split(separator: 0x0A).compactMap { try? WireJSONParser.parse($0) }
        }
        core.received(Array(#"{"cmd":"watch"}"#.utf8) + [0x0A], from: id, now: now)
        #expect(try read().last == WireJSONParser.parse(#"{"class":"SENSOR","status":"ok"}"#))
        core.samplesArrived([Self.level], now: now + 10_000_000)
        let sentence = "the sensor has no gyroscope: [filter] method inertial replaced by accel with a 3 Hz low-pass"
        let sensor = try #require(read().first { $0["class"] == .string("SENSOR") })
        #expect(try sensor == WireJSONParser.parse(#"{"class":"SENSOR","status":"ok","message":"\#(sentence)","estimator":{"configured":"inertial","used":"accel","lowpass_hz":3,"reason":"the sensor has no gyroscope"}}"#))
        #expect(told == [Self.inertialInstead])
        // Said once: more accelerometer-only samples change nothing.
        core.samplesArrived([Self.level], now: now + 20_000_000)
        #expect(read().allSatisfy { $0["class"] != .string("SENSOR") })
        #expect(told.count == 1)
        core.received(Array(#"{"cmd":"status"}"#.utf8) + [0x0A], from: id, now: now + 30_000_000)
        let status = try #require(read().first { $0["class"] == .string("STATUS") })
        #expect(status["estimator"]?["used"] == .string("accel"))
        #expect(status["estimator"]?["configured"] == .string("inertial"))
        #expect(status["estimator"]?["lowpass_hz"] == .number(3))
    }
}
