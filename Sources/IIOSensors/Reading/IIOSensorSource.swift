#if canImport(Glibc)
import Glibc
#endif
import CLinux
import MotionFusion

/// How `IIOSensorSource` reads (config key `[sensor] mode`).
public enum IIOReadMode: String, Sendable, CaseIterable {
    /// Buffered when the device has a buffer, polled otherwise or when the buffer fails.
    case auto
    /// Buffered; still falls back to polled (with a message) when the buffer cannot work.
    case buffered
    /// `*_raw` reads on a timer only.
    case polled
}

/// What `IIOSensorSource` reads and how.
public struct IIOSourceConfiguration: Sendable {
    /// libiio URI; nil or `local:` for this machine, `ip:HOST` for a remote iiod.
    public var uri: String?
    /// Configured sensor: name, label, sysfs path, `iio:deviceN` or `/dev/iio:deviceN`; nil for
    /// automatic choice (`SensorSelection.choose`).
    public var device: String?
    /// Requested sample rate, Hz.
    public var sampleRateHz: Double
    public var mode: IIOReadMode
    public var accelConvention: AccelConvention
    /// Follow udev add/remove events (local contexts only).
    public var watchHotplug: Bool

    public init(uri: String? = nil, device: String? = nil, sampleRateHz: Double = 100,
                mode: IIOReadMode = .auto, accelConvention: AccelConvention = .gravity,
                watchHotplug: Bool = true) {
        self.uri = uri
        self.device = device
        self.sampleRateHz = sampleRateHz
        self.mode = mode
        self.accelConvention = accelConvention
        self.watchHotplug = watchHotplug
    }
}

/// Samples from real IIO hardware (DESIGN §6): discovery and selection, buffered or polled
/// reading with automatic fallback, accel + gyro pairing, hotplug.
///
/// `pollDescriptor` is an epoll fd that gathers the buffer fds or timerfds, a watchdog timerfd
/// and the udev monitor, so the daemon waits on one fd whatever happens inside; it stays valid
/// from `start()` to `stop()`, also while the sensor is absent. Status: `ok` while samples flow,
/// `stale` after 5 expected periods without one (the buffer is re-enabled once, then polled),
/// `absent` when no sensor matches or it was unplugged (a re-plugged one is picked up again),
/// `error` when reading failed for good. Messages go to `log` with their level.
public final class IIOSensorSource: SensorSource {
    public let configuration: IIOSourceConfiguration
    private let log: LogSink
    public private(set) var status: SensorStatus = .absent
    public private(set) var statusMessage: String? = "not started"
    /// The sensor(s) being read, when present.
    public private(set) var selection: SensorSelection?
    private var epollFD: Int32 = -1
    private var registered: Set<Int32> = []
    private var monitor: SensorMonitor?
    private var watchdogFD: Int32 = -1
    private var inventory: SensorInventory?
    private var accelReader: IIODeviceReader?
    private var gyroReader: IIODeviceReader?
    private var latestGyro: Vector3?
    private var lastSampleNanoseconds: Int64 = 0
    private var reenabledAfterSilence = false
    /// Devices whose `remove` uevent arrived (their sysfs tree may linger a moment); ignored by
    /// discovery until an `add` for them.
    private var removedPaths: Set<String> = []

    /// - Parameter log: receives each event with its level (`.warning`, "accel_3d (iio:device0): …").
    public init(configuration: IIOSourceConfiguration, log: @escaping LogSink = { _, _ in }) {
        self.configuration = configuration
        self.log = log
    }

    deinit { stop() }

    public var name: String { selection.map { $0.accel.name } ?? (configuration.device ?? "iio") }

    public var sampleRateHz: Double? { accelReader?.rateHz }

    public var pollDescriptor: Int32? { epollFD >= 0 ? epollFD : nil }

    public var selectedDevice: (name: String, path: String)? {
        selection.map { (name: $0.accel.name, path: $0.accel.path) }
    }

    /// The read mode of the accelerometer device, or nil while absent.
    public var currentMode: ReadMode? { accelReader?.mode }

    public func start() throws(SensorError) {
        if epollFD < 0 {
            let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard fd >= 0 else { throw SensorError.io(device: name, what: "epoll_create1", errno: clinux_errno()) }
            epollFD = fd
        }
        let local = (configuration.uri ?? "local:") == "local:" || (configuration.uri ?? "").isEmpty
        if configuration.watchHotplug, local, monitor == nil {
            do {
                monitor = try SensorMonitor()
            } catch {
                log(.warning, "udev monitor unavailable, hotplug will not be noticed: \(error)")
            }
        }
        if watchdogFD < 0 {
            watchdogFD = clinux_timerfd_create()
            if watchdogFD < 0 { throw SensorError.io(device: name, what: "timerfd_create", errno: clinux_errno()) }
        }
        try open()
        syncEpoll()
    }

    public func stop() {
        closeReaders()
        monitor = nil
        if watchdogFD >= 0 { close(watchdogFD); watchdogFD = -1 }
        if epollFD >= 0 { close(epollFD); epollFD = -1 }
        registered.removeAll()
    }

    public func readAvailable(into samples: inout [IMUSample]) throws(SensorError) {
        if let monitor, isReady(monitor.pollDescriptor) {
            for event in monitor.events() { handle(event) }
        }
        guard let accelReader else { return }
        let before = samples.count
        if let gyroReader {
            do {
                if let g = try gyroReader.read().last?.gyro { latestGyro = g }
            } catch {
                try readFailed(gyroReader, error)
                return
            }
        }
        let readings: [IIOReading]
        do {
            readings = try accelReader.read()
        } catch {
            try readFailed(accelReader, error)
            return
        }
        for r in readings {
            guard let accel = r.accel, accel.isFinite else { continue }
            let gyro = r.gyro ?? (gyroReader == nil ? nil : latestGyro)
            samples.append(IMUSample(timestampNanoseconds: r.timestampNanoseconds, accel: accel, gyro: gyro))
        }
        let now = clinux_monotonic_ns()
        if samples.count > before {
            lastSampleNanoseconds = now
            reenabledAfterSilence = false
            if status != .ok { setStatus(.ok, nil) }
        }
        checkSilence(now: now)
    }

    // MARK: - opening and closing

    /// Discovers, selects and starts the reader(s); absent (not thrown) when nothing matches.
    private func open() throws(SensorError) {
        closeReaders()
        let inventory = try SensorDiscovery.inventory(uri: configuration.uri)
        let present = inventory.sensors.filter { !removedPaths.contains($0.path) }
        let selection: SensorSelection
        do {
            selection = try SensorSelection.choose(from: present, selector: configuration.device)
        } catch {
            setStatus(.absent, "\(error); waiting for a sensor")
            log(.warning, "\(error); waiting for a sensor to be plugged in")
            return
        }
        for note in selection.notes { log(.info, "\(note)") }
        for w in selection.accel.warnings + (selection.gyro?.warnings ?? []) { log(.warning, "\(selection.accel.name): \(w)") }
        self.inventory = inventory
        self.selection = selection
        let transform = makeTransform(selection)
        accelReader = try makeReader(selection.accel, inventory: inventory, transform: transform)
        if let g = selection.gyro {
            gyroReader = try makeReader(g, inventory: inventory, transform: transform)
        }
        latestGyro = nil
        lastSampleNanoseconds = clinux_monotonic_ns()
        reenabledAfterSilence = false
        armWatchdog()
        let what = selection.gyro.map { "\(selection.accel.name) (\(selection.accel.id)) + \($0.name) (\($0.id))" }
            ?? "\(selection.accel.name) (\(selection.accel.id))"
        log(.info, "reading \(what) in \(accelReader?.mode == .buffered ? "buffered" : "polled") mode at \(SamplingRate.text(accelReader?.rateHz ?? 0)) Hz")
        setStatus(.ok, nil)
    }

    private func makeTransform(_ s: SensorSelection) -> SampleTransform {
        func axes(_ info: SensorInfo?, _ type: String) -> [AxisCalibration] {
            ["x", "y", "z"].map { axis in
                let c = info?.channels.first { $0.name == "\(type)_\(axis)" }
                return AxisCalibration(scale: c?.scale ?? 1, offset: c?.offset ?? 0)
            }
        }
        let gyroInfo = s.gyro ?? (s.accel.hasGyro ? s.accel : nil)
        // Gyro frame: its own matrix when it has one, else the accelerometer's (DESIGN §3).
        let gyroMatrix: MountMatrix
        if let g = s.gyro, g.mountMatrixSource != .identity {
            gyroMatrix = g.mountMatrix
        } else {
            gyroMatrix = s.accel.gyroMountMatrix ?? s.accel.mountMatrix
        }
        return SampleTransform(accelAxes: axes(s.accel, "accel"), accelMatrix: s.accel.mountMatrix,
                               gyroAxes: axes(gyroInfo, "anglvel"), gyroMatrix: gyroMatrix,
                               convention: configuration.accelConvention)
    }

    private func makeReader(_ info: SensorInfo, inventory: SensorInventory,
                            transform: SampleTransform) throws(SensorError) -> IIODeviceReader {
        guard let device = inventory.device(of: info), let attributes = inventory.attributes(of: info) else {
            throw SensorError.notFound(info.path)
        }
        let reader = IIODeviceReader(info: info, device: device, attributes: attributes, transform: transform,
                                     requestedRateHz: configuration.sampleRateHz, log: log)
        reader.configureRate(requestedHz: configuration.sampleRateHz)
        if configuration.mode != .polled, info.buffered {
            do {
                try reader.startBuffered()
                return reader
            } catch {
                log(.warning, "\(bufferFailureMessage(info, error)); reading in polled mode")
            }
        } else if configuration.mode == .buffered {
            log(.warning, "\(info.name) (\(info.id)): no buffer; reading in polled mode")
        }
        try reader.startPolled()
        return reader
    }

    /// The message for a buffer that cannot be used; `EBUSY` gets its usual cause spelled out.
    func bufferFailureMessage(_ info: SensorInfo, _ error: SensorError) -> String {
        if case let .io(_, what, code) = error, code == EBUSY {
            return "\(info.name) (\(info.id)): buffer busy (\(what): EBUSY): another process such as iio-sensor-proxy holds \(info.dev.isEmpty ? info.id : info.dev)"
        }
        return "\(info.name) (\(info.id)): buffer unavailable: \(error)"
    }

    private func closeReaders() {
        accelReader?.stop()
        gyroReader?.stop()
        accelReader = nil
        gyroReader = nil
        inventory = nil
        if watchdogFD >= 0 { _ = clinux_timerfd_set(watchdogFD, 0, 0) }
    }

    // MARK: - hotplug, silence, failures

    private func handle(_ event: SensorHotplugEvent) {
        log(.debug, "udev: \(event.action.rawValue) \(event.syspath)")
        switch event.action {
        case .remove:
            removedPaths.insert(event.syspath)
            guard let s = selection, event.syspath == s.accel.path || event.syspath == s.gyro?.path else { return }
            lost(event.syspath == s.accel.path ? s.accel : (s.gyro ?? s.accel))
        case .add:
            removedPaths.remove(event.syspath)
            guard event.sysname.hasPrefix("iio:device") else { return }
            // Absent, or reading an accelerometer alone while a gyroscope may have come back.
            guard accelReader == nil || (selection?.gyro == nil && selection?.accel.kind == .accel) else { return }
            do {
                try open()
            } catch {
                log(.error, "cannot open \(event.sysname) after hotplug: \(error)")
                setStatus(.error, "\(error)")
            }
            syncEpoll()
        case .change:
            return
        }
    }

    /// A device being read went away: stop, then carry on with what is left (an accelerometer
    /// whose gyroscope went) or wait as `absent`.
    private func lost(_ gone: SensorInfo) {
        removedPaths.insert(gone.path)
        closeReaders()
        selection = nil
        log(.warning, "\(gone.name) (\(gone.id)) removed")
        do {
            try open()
        } catch {
            log(.error, "\(error)")
            setStatus(.absent, "\(gone.name) (\(gone.id)) removed")
        }
        syncEpoll()
    }

    /// The watchdog fires every 5 expected periods, in both modes: a polled device whose every
    /// read is skipped (garbage in `*_raw`) is as silent as a wedged buffer.
    private func armWatchdog() {
        guard watchdogFD >= 0, let reader = accelReader else { return }
        let period = SamplingRate.periodNanoseconds(reader.rateHz) * 5
        _ = clinux_timerfd_set(watchdogFD, period, period)
    }

    /// No sample for 5 expected periods → stale; a buffer is re-enabled once, then polled.
    private func checkSilence(now: Int64) {
        guard watchdogFD >= 0, clinux_timerfd_read(watchdogFD) > 0, let reader = accelReader else { return }
        let limit = SamplingRate.periodNanoseconds(reader.rateHz) * 5
        guard now - lastSampleNanoseconds >= limit else { return }
        // A device whose sysfs tree is gone (its remove uevent lost, or never sent) is removed,
        // not stale: re-enabling it would only fail.
        for r in [reader, gyroReader].compactMap({ $0 }) {
            if r.attributes.isPresent == false { return lost(r.info) }
        }
        let who = "\(reader.info.name) (\(reader.info.id))"
        let ms = (now - lastSampleNanoseconds) / 1_000_000
        if reader.mode == .polled {
            if status == .ok {
                setStatus(.stale, "no valid sample for \(ms) ms")
                log(.warning, "\(who): no valid sample for \(ms) ms (5 periods): stale")
            }
            return
        }
        if !reenabledAfterSilence {
            reenabledAfterSilence = true
            setStatus(.stale, "no sample for \(ms) ms")
            log(.warning, "\(who): no sample for \(ms) ms (5 periods): stale; re-enabling the buffer")
            do {
                try reader.startBuffered()
                try gyroReader?.startBuffered()
            } catch {
                log(.warning, "\(who): re-enabling the buffer failed: \(error)")
            }
        } else {
            log(.warning, "\(who): buffer still silent after re-enabling; falling back to polled mode")
            do {
                try reader.startPolled()
                if let g = gyroReader, g.mode == .buffered { try g.startPolled() }
            } catch {
                setStatus(.error, "\(error)")
            }
            armWatchdog()
        }
        lastSampleNanoseconds = now
        syncEpoll()
    }

    private func readFailed(_ reader: IIODeviceReader, _ error: SensorError) throws(SensorError) {
        let who = "\(reader.info.name) (\(reader.info.id))"
        // Gone: the sysfs directory, or (while the kernel is still tearing it down) its files.
        let goneErrno: Bool
        if case let .io(_, _, code) = error { goneErrno = code == ENODEV || code == ENOENT || code == ENXIO } else { goneErrno = false }
        if let present = reader.attributes.isPresent, goneErrno || !present {
            lost(reader.info)
            return
        }
        if reader.mode == .buffered {
            log(.warning, "\(who): buffer read failed (\(error)); reading in polled mode")
            do {
                try reader.startPolled()
            } catch {
                setStatus(.error, "\(error)")
                throw error
            }
            armWatchdog()
            syncEpoll()
            return
        }
        setStatus(.error, "\(error)")
        log(.error, "\(error)")
        throw error
    }

    private func setStatus(_ s: SensorStatus, _ message: String?) {
        status = s
        statusMessage = message
    }

    /// Whether `fd` of the epoll set has input waiting (one `epoll_wait` with no timeout). The
    /// udev monitor is read only then: asking libudev on every sample cost a `recvmsg` per
    /// sample, far heavier under umockdev, which emulates the uevent socket.
    private func isReady(_ fd: Int32) -> Bool {
        guard epollFD >= 0 else { return true }
        return withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 8) { events in
            let n = epoll_wait(epollFD, events.baseAddress, Int32(events.count), 0)
            guard n >= 0 else { return true }  // cannot tell: ask libudev, as before
            return events[0..<Int(n)].contains { $0.data.fd == fd }
        }
    }

    /// Makes the epoll set hold exactly the fds that matter now.
    private func syncEpoll() {
        guard epollFD >= 0 else { return }
        var wanted: Set<Int32> = []
        if let m = monitor { wanted.insert(m.pollDescriptor) }
        if watchdogFD >= 0 { wanted.insert(watchdogFD) }
        for r in [accelReader, gyroReader].compactMap({ $0 }) where r.pollDescriptor >= 0 {
            wanted.insert(r.pollDescriptor)
        }
        // Remove and re-add everything: a closed fd leaves the set by itself and its number may
        // already belong to a new buffer or timer, so a diff against `registered` could miss it.
        for fd in registered {
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        }
        for fd in wanted {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        }
        registered = wanted
    }
}
