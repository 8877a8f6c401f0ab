#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import MotionFusion
import Testing
@testable import IIOSensors

/// The stale / re-enable / fall-back rule (`SilenceWatch`, `SilenceStep`) on scripted times:
/// a 100 Hz device (10 ms period) is stale after 5 periods, 50 ms, without a sample.
struct SilenceWatchTests {
    let ms: Int64 = 1_000_000

    @Test func staleAfterFivePeriodsThenOneStepPerWindow() {
        var watch = SilenceWatch(periodNanoseconds: 10 * ms, now: 0)
        #expect(watch.check(now: 49 * ms) == nil)
        let first = watch.check(now: 50 * ms)
        #expect(first?.window == 1 && first?.silentMilliseconds == 50)
        // The next window runs from the step just taken: 50 ms more.
        #expect(watch.check(now: 60 * ms) == nil)
        #expect(watch.check(now: 99 * ms) == nil)
        let second = watch.check(now: 100 * ms)
        #expect(second?.window == 2 && second?.silentMilliseconds == 100)
        // A sample starts over: stale again only 50 ms after it, as window 1.
        watch.sampleArrived(now: 120 * ms)
        #expect(watch.isQuiet)
        #expect(watch.check(now: 169 * ms) == nil)
        #expect(watch.check(now: 170 * ms)?.window == 1)
    }

    @Test func aLateCheckIsOneStepNotSeveral() {
        // The loop slept 300 ms (6 windows): one step (window 1), the next a full window later.
        var watch = SilenceWatch(periodNanoseconds: 10 * ms, now: 0)
        let late = watch.check(now: 300 * ms)
        #expect(late?.window == 1 && late?.silentMilliseconds == 300)
        #expect(watch.check(now: 349 * ms) == nil)
        #expect(watch.check(now: 350 * ms)?.window == 2)
        #expect(watch.deadline == 400 * ms)
    }

    @Test func stepsByReadMode() {
        #expect(SilenceStep(window: 1, mode: .polled) == .markStale)
        #expect(SilenceStep(window: 2, mode: .polled) == .markStale)
        #expect(SilenceStep(window: 1, mode: .buffered) == .reenableBuffer)
        #expect(SilenceStep(window: 2, mode: .buffered) == .fallBackToPolled)
        #expect(SilenceStep(window: 3, mode: .buffered) == .fallBackToPolled)
    }
}

/// A replay that stops delivering goes `stale` (issue: it reported `replay` forever and the
/// carousel kept scrolling on the last tilt), on a scripted clock.
struct ReplayStaleTests {
    let ms: Int64 = 1_000_000

    /// A native recording at `/tmp/carousel-replay-stale-PID-NAME.csv`: one name per test, since
    /// tests run in parallel and two with the same times must not share (and delete) one file.
    func recording(_ name: String, _ timesMilliseconds: [Int64]) -> String {
        let path = "/tmp/carousel-replay-stale-\(getpid())-\(name).csv"
        let rows = timesMilliseconds.map { "\($0 * 1_000_000),0,0,9.8,,," }
        let text = (["timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"] + rows).joined(separator: "\n") + "\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        return path
    }

    @Test func theEndOfARecordingWithoutLoopIsStaleFivePeriodsAfterTheLastSample() throws {
        let path = recording("end", [0, 10, 20])
        defer { unlink(path) }
        let clock = ScriptedClock()
        let replay = try ReplaySource(path: path, clock: clock)
        try replay.start()
        var out: [IMUSample] = []
        try replay.readAvailable(into: &out)
        #expect(out.count == 1)
        clock.advance(milliseconds: 20)
        try replay.readAvailable(into: &out)
        #expect(out.count == 3)
        #expect(replay.finished)
        #expect(replay.status == .replay)
        // Last sample released at 20 ms; 100 Hz → stale at 20 + 5 · 10 = 70 ms.
        clock.advance(milliseconds: 49)
        try replay.readAvailable(into: &out)
        #expect(replay.status == .replay)
        clock.advance(milliseconds: 1)
        try replay.readAvailable(into: &out)
        #expect(replay.status == .stale)
        #expect(replay.statusMessage == "end of recording: no sample for 50 ms")
        #expect(out.count == 3)
    }

    @Test func aLongGapIsStaleUntilSamplesComeAgain() throws {
        let path = recording("gap", [0, 10, 20, 1020, 1030])
        defer { unlink(path) }
        let clock = ScriptedClock()
        let replay = try ReplaySource(path: path, clock: clock)
        try replay.start()
        var out: [IMUSample] = []
        clock.advance(milliseconds: 20)
        try replay.readAvailable(into: &out)
        #expect(out.count == 3)
        clock.advance(milliseconds: 50)
        try replay.readAvailable(into: &out)
        #expect(replay.status == .stale)
        #expect(replay.statusMessage == "no sample for 50 ms (a gap in the recording)")
        clock.advance(milliseconds: 950)  // 1020 ms: the recording resumes
        try replay.readAvailable(into: &out)
        #expect(out.count == 4)
        #expect(replay.status == .replay)
        #expect(replay.statusMessage == "replaying \(path.split(separator: "/").last!) at 1.0× speed")
    }

    @Test func atTwiceTheSpeedTheWindowIsHalvedAndLoopingNeverGoesStale() throws {
        let path = recording("twice", [0, 10, 20])
        defer { unlink(path) }
        let clock = ScriptedClock()
        let fast = try ReplaySource(path: path, speed: 2, clock: clock)
        try fast.start()
        var out: [IMUSample] = []
        clock.advance(milliseconds: 10)  // all three are due by 10 ms of wall time
        try fast.readAvailable(into: &out)
        #expect(out.count == 3)
        clock.advance(milliseconds: 24)  // window 5 · 10 ms / 2 = 25 ms
        try fast.readAvailable(into: &out)
        #expect(fast.status == .replay)
        clock.advance(milliseconds: 1)
        try fast.readAvailable(into: &out)
        #expect(fast.status == .stale)

        let looping = try ReplaySource(path: path, loop: true, clock: clock)
        try looping.start()
        for _ in 0..<20 {
            clock.advance(milliseconds: 10)
            try looping.readAvailable(into: &out)
            #expect(looping.status == .replay)
        }
    }
}
