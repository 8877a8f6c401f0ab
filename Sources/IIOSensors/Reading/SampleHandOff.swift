import CarouselService
import MotionFusion
import Synchronization

/// What a worker thread hands to the event loop: samples (a bounded FIFO that drops its oldest
/// entries when the loop falls behind, counting them), log lines (bounded the same way), and the
/// latest sensor state (only the newest matters). Guarded by one mutex held only to copy in or
/// out, never across a libiio call. Waking the loop is the caller's business (`RemoteSensorSource`
/// writes to a pipe after each `push`).
public final class SampleHandOff: Sendable {
    /// The sensor's state as the worker last saw it.
    public struct State: Equatable, Sendable {
        public var status: SensorStatus
        public var message: String?
        public var name: String
        /// Delivered rate, Hz, or nil while unknown.
        public var rateHz: Double?
        /// The selected device's IIO `name` and sysfs path.
        public var deviceName: String?
        public var devicePath: String?

        public init(status: SensorStatus, message: String?, name: String, rateHz: Double? = nil,
                    deviceName: String? = nil, devicePath: String? = nil) {
            self.status = status
            self.message = message
            self.name = name
            self.rateHz = rateHz
            self.deviceName = deviceName
            self.devicePath = devicePath
        }
    }

    /// One `take()`: everything handed over since the previous one.
    public struct Batch: Sendable {
        public var samples: [IMUSample]
        public var logs: [(level: LogLevel, text: String)]
        public var state: State
        /// Samples dropped (oldest first) since the previous take because the queue was full.
        public var droppedSamples: Int
    }

    private struct Shared {
        var samples: [IMUSample] = []
        var logs: [(level: LogLevel, text: String)] = []
        var state: State
        var dropped = 0
    }

    /// Most samples held (≥ 1); at 1 kHz the default is 0.5 s of samples.
    public let sampleCapacity: Int
    /// Most log lines held (≥ 1).
    public let logCapacity: Int
    private let shared: Mutex<Shared>

    public init(initial: State, sampleCapacity: Int = 512, logCapacity: Int = 64) {
        self.sampleCapacity = max(sampleCapacity, 1)
        self.logCapacity = max(logCapacity, 1)
        shared = Mutex(Shared(state: initial))
    }

    /// Appends `samples`; when more than `sampleCapacity` are waiting, the oldest go and are counted.
    public func push(_ samples: [IMUSample]) {
        guard !samples.isEmpty else { return }
        let capacity = sampleCapacity
        shared.withLock { s in
            s.samples.append(contentsOf: samples)
            let excess = s.samples.count - capacity
            if excess > 0 {
                s.samples.removeFirst(excess)
                s.dropped += excess
            }
        }
    }

    /// Appends a log line; beyond `logCapacity` the oldest go (not counted: the samples' count
    /// says the loop fell behind).
    public func log(_ level: LogLevel, _ text: String) {
        let capacity = logCapacity
        shared.withLock { s in
            s.logs.append((level, text))
            if s.logs.count > capacity { s.logs.removeFirst(s.logs.count - capacity) }
        }
    }

    /// Replaces the state.
    public func publish(_ state: State) {
        shared.withLock { $0.state = state }
    }

    /// Takes everything waiting and resets the drop count.
    public func take() -> Batch {
        shared.withLock { s in
            let batch = Batch(samples: s.samples, logs: s.logs, state: s.state, droppedSamples: s.dropped)
            s.samples.removeAll(keepingCapacity: true)
            s.logs.removeAll(keepingCapacity: true)
            s.dropped = 0
            return batch
        }
    }
}
