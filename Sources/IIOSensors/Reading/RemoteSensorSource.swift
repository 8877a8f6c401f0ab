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
/// source's state to the loop through a `SampleHandOff` and writes a byte to a pipe.
/// `pollDescriptor` is an epoll set of that pipe and a watchdog timerfd; `readAvailable` only
/// takes what was handed over. The loop judges silence itself: no sample for 5 expected periods
/// (at least `minimumSilenceNanoseconds`) while the worker last said `ok` reports `stale`, which
/// is what a hung iiod looks like from here. `stop()` never waits for the worker: it asks it to
/// stop, and the worker releases the remote context when its current call returns.
public final class RemoteSensorSource: SensorSource {
    public let configuration: IIOSourceConfiguration
    private let log: LogSink
    private let clock: MonotonicClock
    private let handOff: SampleHandOff
    private var worker: Worker?
    private var descriptors: DescriptorSet?
    private var watchdogFD: Int32 = -1
    private var state: SampleHandOff.State
    private var lastSampleNanoseconds: Int64 = 0
    private var silent = false
    /// Seconds between reconnection attempts after the remote source failed.
    public static let retrySeconds: Int32 = 1
    /// The shortest silence reported as stale, nanoseconds.
    public static let minimumSilenceNanoseconds: Int64 = 500_000_000

    /// - Parameters:
    ///   - log: receives the worker's lines, on the loop's thread (from `readAvailable`).
    ///   - clock: CLOCK_MONOTONIC, for the loop's silence judgement; a scripted clock in tests.
    public init(configuration: IIOSourceConfiguration, log: @escaping LogSink = { _, _ in },
                clock: MonotonicClock = SystemMonotonicClock.shared) {
        self.configuration = configuration
        self.log = log
        self.clock = clock
        state = SampleHandOff.State(status: .absent, message: "not started",
                                    name: configuration.device ?? "iio")
        handOff = SampleHandOff(initial: state)
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
        do { set = try DescriptorSet() } catch {
            throw SensorError.io(device: name, what: "epoll_create1", errno: error.errno.rawValue)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SensorError.io(device: name, what: "pipe", errno: errno) }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let timer = clinux_timerfd_create()
        if timer < 0 {
            let code = clinux_errno()
            close(ends[0]); close(ends[1])
            throw SensorError.io(device: name, what: "timerfd_create", errno: code)
        }
        let w = Worker(configuration: configuration, handOff: handOff, wakeRead: ends[0], wakeWrite: ends[1])
        guard w.spawn() else {
            close(timer)
            throw SensorError.io(device: name, what: "pthread_create", errno: EAGAIN)
        }
        worker = w
        watchdogFD = timer
        set.replaceMembers(with: [ends[0], timer])
        descriptors = set
        lastSampleNanoseconds = clock.nowNanoseconds()
        silent = false
        let window = Self.minimumSilenceNanoseconds / 2
        _ = clinux_timerfd_set(timer, window, window)
    }

    public func stop() {
        worker?.requestStop()
        worker = nil
        descriptors = nil
        if watchdogFD >= 0 { close(watchdogFD); watchdogFD = -1 }
        silent = false
        state.status = .absent
        state.message = "not started"
    }

    public func readAvailable(into samples: inout [IMUSample]) throws(SensorError) {
        guard let worker else { return }
        worker.drainWake()
        if watchdogFD >= 0 { _ = clinux_timerfd_read(watchdogFD) }
        let batch = handOff.take()
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

/// The thread that owns the remote `IIOSensorSource`; shares only `handOff`, the pipe and the
/// stop flag with the loop.
private final class Worker: @unchecked Sendable {
    let configuration: IIOSourceConfiguration
    let handOff: SampleHandOff
    let wakeRead: Int32
    let wakeWrite: Int32
    private let stopRequested = Atomic<Bool>(false)

    init(configuration: IIOSourceConfiguration, handOff: SampleHandOff, wakeRead: Int32, wakeWrite: Int32) {
        self.configuration = configuration
        self.handOff = handOff
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the detached thread, which holds a reference to `self` until it ends.
    func spawn() -> Bool {
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&thread, &attributes, { context in
            let worker = Unmanaged<Worker>.fromOpaque(context!).takeRetainedValue()
            worker.run()
            return nil
        }, context)
        if result != 0 { Unmanaged<Worker>.fromOpaque(context).release() }
        return result == 0
    }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    private var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// Empties the wake pipe (the loop's side).
    func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        let handOff = self.handOff
        let source = IIOSensorSource(configuration: configuration, log: { level, text in handOff.log(level, text) })
        var started = false
        var samples: [IMUSample] = []
        var lastState: SampleHandOff.State?
        func publish() {
            let device = source.selectedDevice
            let state = SampleHandOff.State(status: source.status, message: source.statusMessage, name: source.name,
                                            rateHz: source.sampleRateHz, deviceName: device?.name, devicePath: device?.path)
            if state != lastState { handOff.publish(state); lastState = state; wake() }
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
                        handOff.publish(state); lastState = state; wake()
                    }
                    pause(milliseconds: Int32(RemoteSensorSource.retrySeconds) * 1000)
                    continue
                }
            }
            guard let fd = source.pollDescriptor else { started = false; continue }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            samples.removeAll(keepingCapacity: true)
            do {
                try source.readAvailable(into: &samples)
            } catch {
                source.stop()
                started = false
            }
            if !samples.isEmpty { handOff.push(samples); wake() }
            publish()
            if !started { pause(milliseconds: Int32(RemoteSensorSource.retrySeconds) * 1000) }
        }
        source.stop()
    }

    /// Sleeps up to `milliseconds`, in steps short enough to notice a stop request.
    private func pause(milliseconds: Int32) {
        var left = milliseconds
        while left > 0, !stopping {
            usleep(50_000)
            left -= 50
        }
    }
}
