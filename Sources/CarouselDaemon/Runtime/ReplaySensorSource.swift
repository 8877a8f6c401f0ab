import CLinux
import IIOSensors
import MotionFusion
#if canImport(Glibc)
import Glibc
#endif

/// Replays a recording (any format `RecordingReader` knows) as a `SensorSource`: a timerfd
/// releases the samples as their recorded time comes due, scaled by `speed`.
///
/// Timestamps keep the recording's own spacing (so the estimator integrates the real angular
/// rates) shifted to start at the CLOCK_MONOTONIC time of the first release; with `loop`, each
/// pass continues one sample period after the last. Status is `replay`, or `error` when the file
/// cannot be read.
final class ReplaySensorSource: SensorSource {
    let path: String
    let speed: Double
    let loop: Bool

    private(set) var status: SensorStatus = .replay
    private(set) var statusMessage: String?
    private var samples: [IMUSample] = []
    private var loaded = false
    private var timerFD: Int32 = -1
    private var cursor = 0
    /// Wall time (monotonic ns) and recording time (ns) that correspond at the current anchor.
    private var anchorWall: Int64 = 0
    private var anchorRecorded: Int64 = 0
    /// Added to recorded timestamps to form the published ones.
    private var timeShift: Int64 = 0
    private var lastPublished: Int64?

    /// Wake-ups are batched to at most one per this many ns (200 Hz) at high replay speeds.
    private static let minimumWakeNanoseconds: Int64 = 5_000_000

    init(path: String, speed: Double, loop: Bool) {
        self.path = path
        self.speed = speed > 0 && speed.isFinite ? speed : 1
        self.loop = loop
    }

    var name: String { path.split(separator: "/").last.map(String.init) ?? path }

    var sampleRateHz: Double? {
        guard samples.count > 1, let first = samples.first, let last = samples.last,
              last.timestampNanoseconds > first.timestampNanoseconds else { return nil }
        return Double(samples.count - 1) / (Double(last.timestampNanoseconds - first.timestampNanoseconds) * 1e-9) * speed
    }

    var pollDescriptor: Int32? { timerFD >= 0 ? timerFD : nil }

    func start() throws(SensorError) {
        if timerFD >= 0 { return }
        if !loaded { try load() }
        timerFD = clinux_timerfd_create()
        guard timerFD >= 0 else { throw .io(device: name, what: "timerfd_create", errno: clinux_errno()) }
        if cursor >= samples.count { cursor = loop ? 0 : samples.count }
        let now = clinux_monotonic_ns()
        anchorWall = now
        if cursor < samples.count {
            anchorRecorded = samples[cursor].timestampNanoseconds
            let wanted = now - samples[cursor].timestampNanoseconds
            // Published time never goes backwards across a stop/start.
            timeShift = max(wanted, (lastPublished ?? Int64.min) + 1 - samples[cursor].timestampNanoseconds)
        }
        arm(now: now)
    }

    func stop() {
        if timerFD >= 0 { close(timerFD) }
        timerFD = -1
    }

    func readAvailable(into out: inout [IMUSample]) throws(SensorError) {
        guard timerFD >= 0 else { return }
        _ = clinux_timerfd_read(timerFD)
        let now = clinux_monotonic_ns()
        while true {
            if cursor >= samples.count {
                guard loop, samples.count > 1, let first = samples.first, let last = samples.last else { break }
                // Continue one median-ish period after the last sample.
                let period = max((last.timestampNanoseconds - first.timestampNanoseconds) / Int64(samples.count - 1), 1)
                let passLength = last.timestampNanoseconds - first.timestampNanoseconds + period
                anchorRecorded -= passLength
                timeShift += passLength
                cursor = 0
                continue
            }
            let sample = samples[cursor]
            guard sample.timestampNanoseconds <= anchorRecorded + Int64(Double(now - anchorWall) * speed) else { break }
            var shifted = sample
            shifted.timestampNanoseconds = sample.timestampNanoseconds + timeShift
            lastPublished = shifted.timestampNanoseconds
            out.append(shifted)
            cursor += 1
        }
        arm(now: now)
    }

    private func arm(now: Int64) {
        guard timerFD >= 0 else { return }
        guard cursor < samples.count || (loop && samples.count > 1) else {
            _ = clinux_timerfd_set(timerFD, 0, 0)
            return
        }
        let next = cursor < samples.count ? samples[cursor].timestampNanoseconds : anchorRecorded
        let dueWall = anchorWall + Int64(Double(next - anchorRecorded) / speed)
        _ = clinux_timerfd_set(timerFD, max(dueWall - now, Self.minimumWakeNanoseconds), 0)
    }

    private func load() throws(SensorError) {
        guard let text = readSmallFile(path, limit: 256 << 20) , !text.isEmpty else {
            status = .error
            statusMessage = "\(path): cannot read the recording (errno \(clinux_errno()))"
            throw .recording(file: path, line: 0, reason: "cannot be read")
        }
        do {
            samples = try RecordingReader.parse(text: text)
        } catch {
            status = .error
            statusMessage = "\(path): \(error)"
            throw .recording(file: path, line: 0, reason: "\(error)")
        }
        guard !samples.isEmpty else {
            status = .error
            statusMessage = "\(path): the recording holds no samples"
            throw .recording(file: path, line: 0, reason: "no samples")
        }
        loaded = true
        statusMessage = "replaying \(name) at \(JSONNumber.text(speed))× speed\(loop ? ", looping" : "")"
    }
}

/// Short number text for messages (no Foundation formatting).
enum JSONNumber {
    static func text(_ x: Double) -> String {
        x.rounded() == x && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }
}
