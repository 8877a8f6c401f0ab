#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CarouselService
import CLinux
import MotionFusion
import Synchronization

/// A remote (`ip:`) IIO sensor read on a worker thread, so that an iiod that stops answering
/// (libiio's network backend then waits 5 s per call) never holds the daemon's event loop.
///
/// The worker owns the `IIOSensorSource` and makes every libiio call: context creation, reads,
/// reconnection (every `retrySeconds` after a failure). It hands samples, log lines and the
/// source's state to the loop through a `SampleHandOff` and signals an eventfd.
/// `pollDescriptor` is an epoll set of that eventfd and a watchdog timerfd; `readAvailable` only
/// takes what was handed over. The loop judges silence itself: no sample for 5 expected periods
/// (at least `minimumSilenceNanoseconds`) while the worker last said `ok` reports `stale`, which
/// is what a hung iiod looks like from here. `stop()` never waits for the worker: it signals the
/// worker's stop event, which ends any wait of the worker at once; a worker inside a libiio call
/// stops when that call returns (up to libiio's 5 s network timeout), then releases the remote
/// context (its connection to iiod) and ends. What it hands over after `stop()` is discarded.
///
/// Stopped workers still inside libiio count against `workerQuota` (`maxWorkerThreads` in the
/// process) until they end: a start that finds it full reports `error` ("… still inside
/// libiio …") and starts its worker on the first watchdog tick (every 0.25 s) after one ends, so
/// reloads faster than libiio's timeout cannot pile up threads and iiod connections.
public final class RemoteSensorSource: SensorSource {
    public let configuration: IIOSourceConfiguration
    private let log: LogSink
    private let clock: MonotonicClock
    private let quota: ThreadQuota
    private var worker: Worker?
    /// `worker` is made but its thread waits for a place in `quota`.
    private var waitingForThread = false
    private var descriptors: DescriptorSet?
    private var watchdogFD: Int32 = -1
    private var state: SampleHandOff.State
    private var lastSampleNanoseconds: Int64 = 0
    private var silent = false
    /// Seconds between reconnection attempts after the remote source failed.
    public static let retrySeconds: Int32 = 1
    /// The shortest silence reported as stale, nanoseconds.
    public static let minimumSilenceNanoseconds: Int64 = 500_000_000
    /// Most `carouseld-iiod` threads alive at once in the process: the running worker and up to
    /// 3 stopped ones still waiting for a libiio call to return.
    public static let maxWorkerThreads = 4
    /// The process's `maxWorkerThreads` places, shared by every `RemoteSensorSource`.
    public static let workerQuota = ThreadQuota(limit: maxWorkerThreads)

    /// - Parameters:
    ///   - log: receives the worker's lines, on the loop's thread (from `readAvailable`).
    ///   - clock: CLOCK_MONOTONIC, for the loop's silence judgement; a scripted clock in tests.
    ///   - quota: the places for worker threads (`workerQuota`; a test's own in tests).
    public init(configuration: IIOSourceConfiguration, log: @escaping LogSink = { _, _ in },
                clock: MonotonicClock = SystemMonotonicClock.shared, quota: ThreadQuota = RemoteSensorSource.workerQuota) {
        self.configuration = configuration
        self.log = log
        self.clock = clock
        self.quota = quota
        state = SampleHandOff.State(status: .absent, message: "not started",
                                    name: configuration.device ?? "iio")
    }

    deinit { stop() }

    public var name: String { state.name }
    public var status: SensorStatus { silent ? .stale : state.status }
    public var statusMessage: String? {
        silent ? "no sample from \(configuration.uri ?? "iiod") for \(silenceWindow / 1_000_000) ms (iiod not answering?)"
            : state.message
    }
    public var sampleRateHz: Double? { state.rateHz }
    public var pollDescriptor: Int32? { descriptors?.fd }
    public var selectedDevice: (name: String, path: String)? {
        guard let n = state.deviceName, let p = state.devicePath else { return nil }
        return (n, p)
    }

    private var silenceWindow: Int64 {
        let period = state.rateHz.map { $0 > 0 ? Int64(1e9 / $0) : 0 } ?? 0
        return max(period * SilenceWatch.periods, Self.minimumSilenceNanoseconds)
    }

    public func start() throws(SensorError) {
        guard worker == nil else { return }
        let set: DescriptorSet
        let wake: EventNotifier, stopEvent: EventNotifier
        do {
            set = try DescriptorSet()
            wake = try EventNotifier()
            stopEvent = try EventNotifier()
        } catch {
            throw SensorError.io(device: name, what: error.call, errno: error.errno.rawValue)
        }
        let timer = clinux_timerfd_create()
        if timer < 0 { throw SensorError.io(device: name, what: "timerfd_create", errno: clinux_errno()) }
        // A hand-off per worker: a stopped worker still inside a libiio call hands its last
        // batch to one nobody reads, never to its successor's.
        let w = Worker(configuration: configuration, handOff: SampleHandOff(initial: state), wake: wake, stopEvent: stopEvent)
        let spawned: Bool
        do { spawned = try spawnThread(of: w) } catch {
            close(timer)
            throw error
        }
        worker = w
        waitingForThread = !spawned
        if !spawned {
            state.status = .error
            state.message = "\(quota.limit) threads of earlier connections to iiod are still inside libiio "
                + "(iiod not answering?); connecting when one ends"
        }
        watchdogFD = timer
        set.replaceMembers(with: [wake.fd, timer])
        descriptors = set
        lastSampleNanoseconds = clock.nowNanoseconds()
        silent = false
        let window = Self.minimumSilenceNanoseconds / 2
        _ = clinux_timerfd_set(timer, window, window)
    }

    /// The worker's thread name (/proc/PID/task/TID/comm, `top -H`).
    public static let threadName = "carouseld-iiod"

    /// The running worker's kernel thread id (/proc/self/task/TID), once its thread has started;
    /// nil before, and after `stop()`.
    var workerThreadID: Int32? {
        guard let id = worker?.threadID.load(ordering: .acquiring), id > 0 else { return nil }
        return id
    }

    /// Starts `w`'s thread when `quota` has a place; false (nothing started) when it has none.
    /// - Throws: `SensorError.io` naming `pthread_create` (EAGAIN: the system's thread limit).
    private func spawnThread(of w: Worker) throws(SensorError) -> Bool {
        guard quota.acquire() else { return false }
        let quota = self.quota
        do {
            try DetachedThread.spawn(name: Self.threadName) {
                w.run()
                quota.release()
            }
        } catch {
            quota.release()
            throw SensorError.io(device: name, what: "pthread_create", errno: error.errno.rawValue)
        }
        return true
    }

    public func stop() {
        worker?.requestStop()
        worker = nil
        waitingForThread = false
        descriptors = nil
        if watchdogFD >= 0 { close(watchdogFD); watchdogFD = -1 }
        silent = false
        state.status = .absent
        state.message = "not started"
    }

    public func readAvailable(into samples: inout [IMUSample]) throws(SensorError) {
        guard let worker else { return }
        if watchdogFD >= 0 { _ = clinux_timerfd_read(watchdogFD) }
        if waitingForThread {
            guard try spawnThread(of: worker) else { return }
            waitingForThread = false
        }
        worker.wake.drain()
        let batch = worker.handOff.take()
        for line in batch.logs { log(line.level, line.text) }
        if batch.droppedSamples > 0 {
            log(.warning, "\(state.name): the loop fell behind; \(batch.droppedSamples) remote samples dropped")
        }
        state = batch.state
        let now = clock.nowNanoseconds()
        if !batch.samples.isEmpty {
            samples.append(contentsOf: batch.samples)
            lastSampleNanoseconds = now
        }
        let wasSilent = silent
        silent = state.status == .ok && now - lastSampleNanoseconds > silenceWindow
        if silent && !wasSilent { log(.warning, "\(state.name): \(statusMessage ?? ""): stale") }
        if state.status != .ok { lastSampleNanoseconds = now }
    }
}

/// The thread that owns the remote `IIOSensorSource`; shares only `handOff`, the two event
/// descriptors and the stop flag with the loop.
private final class Worker: Sendable {
    let configuration: IIOSourceConfiguration
    let handOff: SampleHandOff
    /// Worker → loop: something was handed over.
    let wake: EventNotifier
    /// Loop → worker: stop. The worker waits on it (with the source's descriptor while
    /// reading, alone with the retry pause as timeout while retrying), so a stop request ends
    /// any wait at once and an idle worker sleeps until its next retry.
    let stopEvent: EventNotifier
    private let stopRequested = Atomic<Bool>(false)
    /// `gettid()` of the thread, 0 until it runs.
    let threadID = Atomic<Int32>(0)

    init(configuration: IIOSourceConfiguration, handOff: SampleHandOff, wake: EventNotifier, stopEvent: EventNotifier) {
        self.configuration = configuration
        self.handOff = handOff
        self.wake = wake
        self.stopEvent = stopEvent
    }

    /// Asks the worker to stop; it does when its current libiio call returns (at once when it
    /// waits), then releases the remote context and ends. Never waits.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        stopEvent.signal()
    }

    private var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    func run() {
        threadID.store(clinux_gettid(), ordering: .releasing)
        let handOff = self.handOff
        let source = IIOSensorSource(configuration: configuration, log: { level, text in handOff.log(level, text) })
        var started = false
        var samples: [IMUSample] = []
        var lastState: SampleHandOff.State?
        func publish() {
            let device = source.selectedDevice
            let state = SampleHandOff.State(status: source.status, message: source.statusMessage, name: source.name,
                                            rateHz: source.sampleRateHz, deviceName: device?.name, devicePath: device?.path)
            if state != lastState { handOff.publish(state); lastState = state; wake.signal() }
        }
        while !stopping {
            if !started {
                do {
                    try source.start()
                    started = true
                    publish()
                } catch {
                    source.stop()
                    let state = SampleHandOff.State(status: .error, message: "\(error); retrying", name: source.name)
                    if state != lastState {
                        handOff.log(.error, "sensor \(source.name): \(error)")
                        handOff.publish(state); lastState = state; wake.signal()
                    }
                    pauseBeforeRetry()
                    continue
                }
            }
            guard let fd = source.pollDescriptor else { started = false; continue }
            // No timeout: the source's own watchdog timerfd is in its set, and a stop request
            // makes `stopEvent` readable.
            var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stopEvent.fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, -1) > 0, entries[0].revents != 0, !stopping else { continue }
            samples.removeAll(keepingCapacity: true)
            do {
                try source.readAvailable(into: &samples)
            } catch {
                source.stop()
                started = false
            }
            if !samples.isEmpty { handOff.push(samples); wake.signal() }
            publish()
            if !started { pauseBeforeRetry() }
        }
        source.stop()
    }

    /// Waits `RemoteSensorSource.retrySeconds`, or less when a stop is requested.
    private func pauseBeforeRetry() {
        _ = stopEvent.wait(timeoutMilliseconds: Int32(RemoteSensorSource.retrySeconds) * 1000)
    }
}
