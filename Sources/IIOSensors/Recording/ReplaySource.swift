#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CLinux
import MotionFusion

/// Samples from a recording (native CSV, x-io, BROAD or NCSU, read by MotionFusion's
/// `RecordingReader`), released in real time on a CLOCK_MONOTONIC timerfd, or as fast as
/// possible. Status is `replay` while samples come, and `stale` (docs/PROTOCOL.md "Server messages") once none was
/// released for 5 expected periods: a long gap in the recording's timestamps, or its end
/// without `loop`; the next sample makes it `replay` again. The period is the recording's
/// median interval divided by `speed`, at least 5 ms (one wake-up, see
/// `minimumWakeNanoseconds`). Released as fast as possible, a recording is never stale. All
/// times come from `clock`, so tests script them.
///
/// Two time bases, kept apart on purpose (docs/SENSORS.md "Replay time"):
/// - Release (pacing): sample `i` is released at wall time `t0 + (ts_i − ts_0) / speed` on
///   CLOCK_MONOTONIC, `t0` being the `start()` time. `speed` changes only this.
/// - Timestamps: sample `i` carries `T0 + (ts_i − ts_0)`, the recording's own spacing, so an
///   estimator integrating gyro rates over sample time sees the recorded rotation whatever the
///   speed. `T0` is the `start()` time, or just after the last published timestamp when that is
///   later (a restart after a fast replay), so timestamps never go backwards. At speed ≠ 1 they
///   therefore drift from CLOCK_MONOTONIC: consumers that need wall time (physics, publishing,
///   staleness) use their own clock.
///
/// `start()` replays from the first sample. With `loop`, the recording restarts after its last
/// sample, one median sample interval later, keeping time increasing.
public final class ReplaySource: SensorSource {
    public let name: String
    private let samples: [IMUSample]
    private let speed: Double
    private let loop: Bool
    private let asFastAsPossible: Bool
    private let clock: MonotonicClock
    private var timerFD: Int32 = -1
    private var silence = SilenceWatch(periodNanoseconds: 1, now: 0)
    private var next = 0
    private var startNanoseconds: Int64 = 0
    /// Recording-time offset of the current pass (grows by one recording length per loop), ns.
    private var passOffset: Int64 = 0
    /// `T0`: the timestamp the first sample of this run carries, ns.
    private var timestampBase: Int64 = 0
    private var lastTimestamp: Int64?
    private let intervalNanoseconds: Int64
    /// The largest recording replayed, bytes (256 MiB, about 3.5 million native CSV rows, over
    /// nine hours at 100 Hz): it is held whole, as text and as samples.
    public static let maximumFileBytes = 256 << 20
    /// Wake-ups are batched to at most one per 5 ms (200 Hz), so a fast replay of a 100 Hz
    /// recording does not wake the loop for every sample.
    private static let minimumWakeNanoseconds: Int64 = 5_000_000

    public private(set) var status: SensorStatus = .replay
    public private(set) var statusMessage: String?
    public var sampleRateHz: Double? { intervalNanoseconds > 0 ? 1e9 * speed / Double(intervalNanoseconds) : nil }
    public var pollDescriptor: Int32? { timerFD >= 0 ? timerFD : nil }
    /// Whether every sample has been released (never true with `loop`).
    public var finished: Bool { !loop && next >= samples.count }

    /// Loads a recording.
    /// - Parameters:
    ///   - path: the file; its name becomes `name`.
    ///   - speed: time factor (2 = twice as fast), > 0.
    ///   - loop: start again after the end.
    ///   - asFastAsPossible: ignore time and release everything at once.
    ///   - clock: CLOCK_MONOTONIC (release times, staleness); a scripted clock in tests.
    /// - Throws: `SensorError.recording(file:line:reason:)` for a missing, empty or bad file, one
    ///   that is not a regular file (`/dev/zero`, a FIFO, a directory) or one over
    ///   `maximumFileBytes`, or timestamps it cannot pace (`timelineProblem`).
    public init(path: String, speed: Double = 1, loop: Bool = false, asFastAsPossible: Bool = false,
                clock: MonotonicClock = SystemMonotonicClock.shared) throws(SensorError) {
        let text: String
        do {
            text = String(decoding: try BoundedFile.read(path, limit: Self.maximumFileBytes), as: UTF8.self)
        } catch {
            throw SensorError.recording(file: path, line: 0, reason: "cannot read: \(error.reason)")
        }
        do {
            samples = try RecordingReader.parse(text: text)
        } catch {
            throw SensorError.recording(file: path, line: error.line, reason: error.reason)
        }
        guard !samples.isEmpty else { throw SensorError.recording(file: path, line: 0, reason: "no samples") }
        if let problem = Self.timelineProblem(samples) { throw SensorError.recording(file: path, line: 0, reason: problem) }
        guard speed > 0, speed.isFinite else { throw SensorError.recording(file: path, line: 0, reason: "speed must be > 0") }
        name = path.split(separator: "/").last.map(String.init) ?? path
        self.speed = speed
        self.loop = loop
        self.asFastAsPossible = asFastAsPossible
        self.clock = clock
        var gaps = zip(samples.dropFirst(), samples).map { $0.timestampNanoseconds - $1.timestampNanoseconds }.filter { $0 > 0 }
        gaps.sort()
        intervalNanoseconds = gaps.isEmpty ? 10_000_000 : gaps[gaps.count / 2]
    }

    deinit { stop() }

    /// The longest recording replayed: its last timestamp at most 30 days after its first, so
    /// that its release times (`(ts_i − ts_0) / speed`, at the slowest speed of 0.01) and its
    /// loop passes stay far within Int64 nanoseconds.
    public static let maximumSpanNanoseconds: Int64 = 30 * 86_400 * 1_000_000_000
    /// The most samples one `readAvailable` releases. Those due beyond it wait for the next
    /// wake-up (5 ms later), so a recording denser than the daemon can follow (all its rows at
    /// one instant, looped: every row once per 10 ms pass) costs CPU, not memory without bound.
    public static let maximumBatch = 10_000

    /// Why the samples' timestamps cannot be paced, nil when they can: they must not decrease
    /// (then each loop pass ends after it starts and takes time; a pass ending before its start
    /// made every later pass due at once) and span at most `maximumSpanNanoseconds` (two rows
    /// 9e18 ns apart made the daemon trap on an Int64 overflow).
    static func timelineProblem(_ samples: [IMUSample]) -> String? {
        guard let first = samples.first?.timestampNanoseconds, let last = samples.last?.timestampNanoseconds else { return nil }
        for k in samples.indices.dropFirst() where samples[k].timestampNanoseconds < samples[k - 1].timestampNanoseconds {
            return "sample \(k + 1)'s timestamp \(samples[k].timestampNanoseconds) ns is before sample \(k)'s "
                + "\(samples[k - 1].timestampNanoseconds) ns: timestamps must not decrease"
        }
        let (span, overflow) = last.subtractingReportingOverflow(first)
        if overflow || span > maximumSpanNanoseconds {
            return "the timestamps span from \(first) to \(last) ns, more than the "
                + "\(maximumSpanNanoseconds / 86_400_000_000_000) days a replay may last"
        }
        return nil
    }

    public func start() throws(SensorError) {
        stop()
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw SensorError.io(device: name, what: "timerfd_create", errno: clinux_errno()) }
        timerFD = fd
        next = 0
        passOffset = 0
        startNanoseconds = clock.nowNanoseconds()
        timestampBase = max(startNanoseconds, (lastTimestamp ?? Int64.min) + intervalNanoseconds)
        let wallPeriod = Int64(Double(intervalNanoseconds) / speed)
        silence = SilenceWatch(periodNanoseconds: max(wallPeriod, Self.minimumWakeNanoseconds), now: startNanoseconds)
        setReplaying()
        arm(now: startNanoseconds)
    }

    private func setReplaying() {
        status = .replay
        statusMessage = "replaying \(name) at \(speed)× speed\(loop ? ", looping" : "")"
    }

    public func stop() {
        if timerFD >= 0 {
            close(timerFD)
            timerFD = -1
        }
    }

    public func readAvailable(into out: inout [IMUSample]) throws(SensorError) {
        guard timerFD >= 0 else { return }
        _ = clinux_timerfd_read(timerFD)
        let now = clock.nowNanoseconds()
        let before = out.count
        let first = samples[0].timestampNanoseconds
        while next < samples.count, out.count - before < Self.maximumBatch {
            if !asFastAsPossible && releaseTime(next) > now { break }
            var s = samples[next]
            s.timestampNanoseconds = timestampBase + passOffset + (samples[next].timestampNanoseconds - first)
            lastTimestamp = s.timestampNanoseconds
            out.append(s)
            next += 1
            if next == samples.count && loop {
                passOffset += samples[samples.count - 1].timestampNanoseconds - first + intervalNanoseconds
                next = 0
                if asFastAsPossible { break }
            }
        }
        if out.count > before {
            silence.sampleArrived(now: now)
            if status != .replay { setReplaying() }
        } else if !asFastAsPossible, status == .replay, let silent = silence.check(now: now) {
            status = .stale
            statusMessage = finished ? "end of recording: no sample for \(silent.silentMilliseconds) ms"
                : "no sample for \(silent.silentMilliseconds) ms (a gap in the recording)"
        }
        arm(now: now)
    }

    /// Arms the timer for the next due sample (immediately when replaying as fast as possible),
    /// or for the end of the silence window when that comes first, so `stale` is noticed.
    private func arm(now: Int64) {
        guard timerFD >= 0 else { return }
        if asFastAsPossible {
            _ = clinux_timerfd_set(timerFD, next < samples.count ? 1 : 0, 0)
            return
        }
        var wake: Int64? = next < samples.count ? releaseTime(next) : nil
        if status == .replay { wake = min(wake ?? silence.deadline, silence.deadline) }
        guard let wake else {
            _ = clinux_timerfd_set(timerFD, 0, 0)
            return
        }
        _ = clinux_timerfd_set(timerFD, max(Self.minimumWakeNanoseconds, wake - now), 0)
    }

    /// When sample `index` of the current pass comes due, CLOCK_MONOTONIC ns (the only place
    /// `speed` acts).
    private func releaseTime(_ index: Int) -> Int64 {
        let recorded = passOffset + samples[index].timestampNanoseconds - samples[0].timestampNanoseconds
        return startNanoseconds + Int64(Double(recorded) / speed)
    }
}
