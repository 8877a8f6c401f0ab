import CarouselDaemon
import CarouselEngine
import IIOSensors
import MotionFusion

/// The daemon core's fan-out alone, in-process and deterministic: 256 watchers of a carousel
/// scrolled by a held 20° roll, samples at 100 Hz for 6 s of scripted time, every STATE written
/// through a writer that takes all bytes (as a socket with room does). No sockets, no clock:
/// the instruction count under `valgrind --tool=callgrind` is the same on every run, so it
/// compares two versions of the core on a loaded machine (docs/PERFORMANCE.md).
struct CoreFanOutBench {
    let reporter: Reporter
    let runs: Int
    static let watchers = 256
    static let samples = 600

    /// A tilt pipeline that reads every sample as the same roll, degrees.
    private final class HeldRoll: TiltPipeline {
        let roll: Double
        init(roll: Double) { self.roll = roll }
        func process(_ sample: IMUSample) -> TiltReading? {
            TiltReading(rollDegrees: roll, pitchDegrees: 0, driveDegrees: roll)
        }
        func recenter() -> Bool { true }
    }

    /// Bytes the writers took.
    private final class Counter { var bytes = 0 }

    func run() {
        reporter.section("core fan-out (in-process DaemonCore, \(Self.watchers) watchers, \(Self.samples) samples at 100 Hz)")
        var states = 0.0
        let perSample = repeatRuns(warmups: 1, runs: runs) {
            let start = BenchClock.threadCPUNanoseconds()
            let bytes = Self.session()
            states = Double(bytes)
            return Double(BenchClock.threadCPUNanoseconds() - start) / Double(Self.samples) / 1000
        }
        reporter.report(Measurement(name: "core.fanout_us_per_sample.watchers_256", unit: "µs", samples: perSample))
        reporter.note("bytes written per session: \(Int(states))")
    }

    /// One session; returns the bytes written to all watchers.
    static func session() -> Int {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                        item: CarouselSize(width: 250, height: 160), spacing: 10, count: 20,
                                        cyclic: true)
        let ms: Int64 = 1_000_000
        var now: Int64 = 1_000 * ms
        let core = DaemonCore(engine: CarouselEngine(configuration: CarouselConfiguration(geometry: geometry), time: 0),
                              tiltPipeline: HeldRoll(roll: -20), limits: DaemonCore.Limits(maxClients: 300, maxRateHz: 60),
                              sensorStatus: .ok, now: now)
        let counter = Counter()
        let watch = Array(#"{"cmd":"watch"}"#.utf8) + [0x0A]
        for i in 1...watchers {
            let id = ClientID(i)
            core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), mayControl: true, now: now,
                                 writer: { counter.bytes += $0.count; return .wrote($0.count) })
            core.received(watch, from: id, now: now)
        }
        var due: [ClientID] = []
        let sample = IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))
        for _ in 0..<samples {
            now += 10 * ms
            core.samplesArrived([sample], now: now)
            core.takeClientsToFlush(into: &due)
            for id in due { _ = core.flush(id, now: now) { counter.bytes += $0.count; return .wrote($0.count) } }
            due.removeAll(keepingCapacity: true)
        }
        return counter.bytes
    }
}
