#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import CLinux
import MotionFusion
import Testing
@testable import IIOSensors

/// The remote worker waits on events, never on a clock: between reconnection attempts it sleeps
/// until the next one or a stop request, and a stop request ends it at once. Its iiod is a
/// loopback port nobody listens on, so every attempt is refused at once and the worker spends
/// its time in the retry pause (`RemoteSensorSource.retrySeconds`).
@Suite(.serialized) struct RemoteSensorSourceStopTests {
    /// A loopback TCP port that was free a moment ago (listened on, then closed).
    static func closedPort() throws -> UInt16 {
        let server = try HungServer()
        defer { server.close() }
        return server.port
    }

    /// A started source whose worker has reported its first refused connection; returns it
    /// with the worker's thread id.
    static func startedAndRefused() throws -> (RemoteSensorSource, Int32) {
        let source = RemoteSensorSource(configuration: IIOSourceConfiguration(uri: "ip:127.0.0.1:\(try closedPort())"))
        try source.start()
        var samples: [IMUSample] = []
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while source.status != .error, clinux_monotonic_ns() < deadline {
            var entry = pollfd(fd: try #require(source.pollDescriptor), events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 100)
            try source.readAvailable(into: &samples)
        }
        #expect(source.status == .error, "the worker never reported the refused connection: \(source.statusMessage ?? "")")
        return (source, try #require(source.workerThreadID))
    }

    /// `voluntary_ctxt_switches` of a thread of this process: how often it went to sleep and
    /// was woken.
    static func wakeUps(ofThread id: Int32) throws -> Int {
        let text = try #require(readText("/proc/self/task/\(id)/status"))
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].filter { !$0.isWhitespace }))
    }

    static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil { text += String(cString: buffer) }
        return text
    }

    static func threadExists(_ id: Int32) -> Bool { access("/proc/self/task/\(id)", F_OK) == 0 }

    /// A reload storm against a hung iiod: 100 sources started and stopped (what 100 reloads
    /// that change `[sensor] uri` do), the last one left running. Every stopped worker stays
    /// inside libiio until its call times out, so without a bound each reload would leave one
    /// more thread (100 here) and one more connection to iiod.
    @Test func reloadsWhileIIODHangsLeaveABoundedNumberOfWorkers() throws {
        let iiod = try HungServer()
        let configuration = IIOSourceConfiguration(uri: "ip:127.0.0.1:\(iiod.port)")
        var sources: [RemoteSensorSource] = []
        for _ in 0..<100 {
            sources.last?.stop()
            let source = RemoteSensorSource(configuration: configuration)
            try source.start()
            sources.append(source)
            // A reload comes after its worker is inside libiio's connect or read (one that
            // is stopped before its thread runs ends at once), or finds it waiting for a place.
            let deadline = clinux_monotonic_ns() + 100_000_000
            while source.workerThreadID == nil, source.status != .error, clinux_monotonic_ns() < deadline { usleep(1000) }
            // Its connection reaching the hung iiod is the sign that the worker is inside libiio.
            if source.status != .error { #expect(iiod.acceptConnection(timeoutSeconds: 5), "a worker never connected") }
        }
        let last = try #require(sources.last)
        defer { last.stop() }
        let alive = ProcessTasks.threads(named: RemoteSensorSource.threadName)
        #expect(alive == RemoteSensorSource.maxWorkerThreads, "\(alive) \(RemoteSensorSource.threadName) threads alive")
        #expect(RemoteSensorSource.workerQuota.count == RemoteSensorSource.maxWorkerThreads)
        // The newest source waits for a place, and says so.
        var samples: [IMUSample] = []
        try last.readAvailable(into: &samples)
        #expect(last.workerThreadID == nil)
        #expect(last.status == .error)
        #expect(last.statusMessage == "4 threads of earlier connections to iiod are still inside libiio "
                + "(iiod not answering?); connecting when one ends")
        // iiod goes away: its connections are reset, the stopped workers end, and the newest
        // source's worker starts on a watchdog tick (every 0.25 s) and reports the refused
        // connection. The bound is libiio's own: a stopped worker that the reset does not reach
        // (a loaded machine, a call between two reads) still returns within its 5 s network
        // timeout, so 15 s leaves that timeout, a tick and a loaded scheduler room.
        iiod.close()
        let closed = clinux_monotonic_ns()
        let deadline = closed + 15_000_000_000
        while last.workerThreadID == nil || last.status != .error || last.statusMessage?.hasSuffix("retrying") != true,
              clinux_monotonic_ns() < deadline {
            var entry = pollfd(fd: try #require(last.pollDescriptor), events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 100)
            try last.readAvailable(into: &samples)
        }
        let waited = Double(clinux_monotonic_ns() - closed) / 1e9
        let state = "after \(waited) s: \(ProcessTasks.threads(named: RemoteSensorSource.threadName)) threads, "
            + "\(RemoteSensorSource.workerQuota.count) places taken, status '\(last.statusMessage ?? "")'"
        #expect(last.workerThreadID != nil, "the newest worker never started: \(state)")
        #expect(last.statusMessage?.hasSuffix("; retrying") == true, "\(state)")
        // The newest worker starts when the first stopped one gives its place back; the other
        // stopped ones are still ending then. Wait for that (their last act is giving the place
        // back, then the thread exits), with a bound of its own.
        let ended = Self.waitUntil(seconds: 10) {
            RemoteSensorSource.workerQuota.count == 1 && ProcessTasks.threads(named: RemoteSensorSource.threadName) == 1
        }
        let threads = ProcessTasks.threads(named: RemoteSensorSource.threadName), taken = RemoteSensorSource.workerQuota.count
        #expect(ended, "stopped workers still alive 10 s after iiod closed: \(threads) threads, \(taken) places taken")
        last.stop()
        #expect(Self.waitUntil(seconds: 10) { RemoteSensorSource.workerQuota.count == 0 },
                "\(RemoteSensorSource.workerQuota.count) places still taken 10 s after the last stop")
    }

    /// Checks `done` every millisecond until it holds (true) or `seconds` have passed (false).
    static func waitUntil(seconds: Double, _ done: () -> Bool) -> Bool {
        let deadline = clinux_monotonic_ns() + Int64(seconds * 1e9)
        while !done() {
            if clinux_monotonic_ns() >= deadline { return false }
            usleep(1000)
        }
        return true
    }

    @Test func theWorkerIsNamedForTopAndPs() throws {
        let (source, thread) = try Self.startedAndRefused()
        defer { source.stop() }
        #expect(Self.readText("/proc/self/task/\(thread)/comm") == "carouseld-iiod\n")
    }

    /// 0.6 s of a 1 s retry pause: the worker sleeps through it (a clock of 50 ms slices woke
    /// it 12 times).
    @Test func anIdleWorkerSleepsThroughItsRetryPause() throws {
        let (source, thread) = try Self.startedAndRefused()
        defer { source.stop() }
        let before = try Self.wakeUps(ofThread: thread)
        usleep(600_000)
        let woken = try Self.wakeUps(ofThread: thread) - before
        // At most one reconnection attempt (one wake-up and its refused connect) in the window.
        #expect(woken <= 2, "the idle worker woke \(woken) times in 0.6 s")
    }

    /// From `stop()` to the worker's thread being gone, in 10 stops of a worker in its retry
    /// pause: a worker that notices the request on its next 50 ms tick takes 25 ms on average.
    @Test func stopEndsAWaitingWorkerAtOnce() throws {
        var latencies: [Double] = []
        for _ in 0..<10 {
            let (source, thread) = try Self.startedAndRefused()
            let t0 = clinux_monotonic_ns()
            source.stop()
            while Self.threadExists(thread), clinux_monotonic_ns() - t0 < 1_000_000_000 { usleep(200) }
            #expect(!Self.threadExists(thread))
            latencies.append(Double(clinux_monotonic_ns() - t0) * 1e-6)
        }
        let mean = latencies.reduce(0, +) / Double(latencies.count)
        #expect(mean < 10, "stop took \(latencies.map { Int($0.rounded()) }) ms, mean \(mean) ms")
    }
}
