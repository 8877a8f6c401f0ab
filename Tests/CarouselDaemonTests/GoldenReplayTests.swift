import CarouselConfig
import CarouselEngine
import CarouselProtocol
import CarouselTestSupport
import IIOSensors
import MotionFusion
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// Golden replays, as gpsd keeps them: a recording and timed requests go through `DaemonCore`
/// with the real tilt pipeline and a scripted clock (the recording's own timestamps), and what
/// the client receives must equal `Tests/Fixtures/golden/NAME.ndjson` byte for byte.
///
/// Regenerate after an intended change (then review the diff):
/// `CAROUSEL_GOLDEN_UPDATE=1 swift test --filter GoldenReplayTests`
@Suite struct GoldenReplayTests {
    /// One request at a time after the recording's start, milliseconds.
    struct TimedRequest {
        var atMilliseconds: Int64
        var line: String
    }

    /// The bundled demo recording (≈ 22 s at 100 Hz, resting just past the 3° dead zone) with
    /// the built-in configuration: a watcher at 5 Hz, a scroll, a recenter (the creep stops),
    /// position-mode tilt, and `poll` at the end.
    @Test func demoRecordingWithRequests() throws {
        try check("demo-recording", recording: TestPaths.packageRoot + "/data/demo-recording.csv", requests: [
            TimedRequest(atMilliseconds: 0, line: #"{"cmd":"watch","max_rate_hz":5}"#),
            TimedRequest(atMilliseconds: 4_000, line: #"{"cmd":"scroll_to","index":3}"#),
            TimedRequest(atMilliseconds: 9_000, line: #"{"cmd":"recenter_tilt"}"#),
            TimedRequest(atMilliseconds: 14_000, line: #"{"cmd":"set_tilt","mode":"position"}"#),
            TimedRequest(atMilliseconds: 24_000, line: #"{"cmd":"poll"}"#),
        ])
    }

    private func check(_ name: String, recording: String, requests: [TimedRequest]) throws {
        let text = try #require(readTextFile(recording), "cannot read \(recording)")
        let samples = try RecordingReader.parse(text: text)
        let got = Self.replay(samples: samples, requests: requests)
        let path = TestPaths.fixture("golden/\(name).ndjson")
        if getenv("CAROUSEL_GOLDEN_UPDATE") != nil {
            try TestTemp.write(got, to: path)
            return
        }
        let expected = try #require(readTextFile(path),
                                    "missing \(path): run CAROUSEL_GOLDEN_UPDATE=1 swift test --filter GoldenReplayTests")
        let gotLines = got.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        if let i = (0..<min(gotLines.count, expectedLines.count)).first(where: { gotLines[$0] != expectedLines[$0] }) {
            Issue.record("\(name): line \(i + 1) differs:\n got      \(gotLines[i])\n expected \(expectedLines[i])")
        } else {
            #expect(gotLines.count == expectedLines.count, "\(name): \(gotLines.count) lines, expected \(expectedLines.count)")
        }
    }

    /// Drives the core: requests and frame deadlines due before each sample, then the sample;
    /// after the last sample, 3 s more of frames. Returns every line one client received.
    static func replay(samples: [IMUSample], requests: [TimedRequest]) -> String {
        let ms: Int64 = 1_000_000
        let start: Int64 = 1_000 * ms
        let c = DaemonConfiguration()
        let core = DaemonCore(engine: CarouselEngine(configuration: EngineSetup.carouselConfiguration(c), time: 0),
                              tiltPipeline: DaemonRuntime.makePipeline(c), limits: DaemonRuntime.limits(c),
                              sensorStatus: .replay, now: start)
        let id = ClientID(1)
        core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), mayControl: true, now: start)
        var out: [UInt8] = []
        func take(_ now: Int64) {
            let bytes = Array(core.pendingOutput(for: id))
            out += bytes
            core.wrote(bytes.count, to: id, blocked: false, now: now)
        }
        var pending = requests[...]
        var steps = 0
        func advance(to t: Int64) {
            // Every step consumes a request or moves a deadline past its time; the cap only
            // turns a core that stops doing so into a failing comparison instead of a hang.
            while steps < 1_000_000 {
                steps += 1
                let request = pending.first.map { start + $0.atMilliseconds * ms }
                let deadline = core.nextDeadline
                guard let next = [request, deadline].compactMap({ $0 }).min(), next <= t else { return }
                if let r = request, r == next, let line = pending.popFirst()?.line {
                    core.received(Array((line + "\n").utf8), from: id, now: r)
                } else {
                    core.tick(now: next)
                }
                take(next)
            }
        }
        let first = samples.first?.timestampNanoseconds ?? 0
        var sensorStarted = false
        for sample in samples {
            let t = start + sample.timestampNanoseconds - first
            advance(to: t)
            if !sensorStarted, core.needsSamples {
                core.sensorStarted(now: t)
                sensorStarted = true
            }
            if sensorStarted { core.samplesArrived([sample], now: t) }
            take(t)
        }
        let end = start + (samples.last?.timestampNanoseconds ?? 0) - first + 3_000 * ms
        advance(to: max(end, start + (requests.last?.atMilliseconds ?? 0) * ms))
        return String(decoding: out, as: UTF8.self)
    }
}
