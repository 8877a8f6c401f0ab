#if canImport(Glibc)
import Glibc
#endif
import CarouselPosix
import CarouselService
import CLinux
import MotionFusion

/// Samples from real IIO hardware (docs/SENSORS.md "Modes and fallbacks"): discovery and selection, buffered or polled
/// reading with automatic fallback, accel + gyro pairing, hotplug.
///
/// Each device is read by a `DeviceReader`, `BufferedDeviceReader` or `PolledDeviceReader`,
/// swapped on failure or silence. `pollDescriptor` is an epoll fd that gathers the readers'
/// fds, a watchdog timerfd and the udev monitor, so the daemon waits on one fd whatever happens
/// inside; it stays valid from `start()` to `stop()`, also while the sensor is absent. Status:
/// `ok` while samples flow, `stale` after 5 expected periods without one (`SilenceWatch`: the
/// buffer is re-enabled once, then polled), `absent` when no sensor matches or it was unplugged
/// (a re-plugged one is picked up again), `error` when reading failed for good. Messages go to
/// `log` with their level. Elapsed time is read from `clock` only, so the silence policy runs
/// on a scripted clock in tests.
public final class IIOSensorSource: SensorSource {
    public let configuration: IIOSourceConfiguration
    private let log: LogSink
    private let clock: MonotonicClock
    public private(set) var status: SensorStatus = .absent
    public private(set) var statusMessage: String? = "not started"
    /// The sensor(s) being read, when present.
    public private(set) var selection: SensorSelection? {
        didSet { selected = selection.map { (name: $0.accel.name, path: $0.accel.path) } }
    }
    /// The accelerometer's name and sysfs path of `selection`, kept as it is set: the daemon
    /// asks for them at every wake-up (`name`, `selectedDevice`), where copying the whole
    /// selection was ~12 % of a debug build's instructions per wake-up (bench/callgrind-per-wake).
    private var selected: (name: String, path: String)?
    /// Why no sensor was selected at the last look (e.g. "no sensor matches 'bmi160'"), for a
    /// caller that gives up rather than waits; `statusMessage` adds that the source waits.
    /// nil once a sensor is selected.
    public private(set) var selectionFailure: String?
    private var descriptors: DescriptorSet?
    private var monitor: SensorMonitor?
    private var watchdogFD: Int32 = -1
    private var inventory: SensorInventory?
    private var accelReader: DeviceReader?
    private var gyroReader: DeviceReader?
    private var latestGyro: Vector3?
    /// Why a device of the current selection is polled although it has a buffer (EBUSY…).
    private var fallbackNotes: [String] = []
    private var silence = SilenceWatch(periodNanoseconds: 1, now: 0)
    /// Whether the accelerometer's buffer has delivered a sample since the selection was
    /// opened, and when it was opened (`clock`): a buffer that never delivers within
    /// `FirstSampleWait` is read polled at once (`bufferNeverFilled`).
    private var bufferDelivered = false
    /// The resting magnitude of the accelerometer (`GravityMagnitudeWatch`), from `open()`.
    private var gravityWatch = GravityMagnitudeWatch()
    private var openedNanoseconds: Int64 = 0
    /// Devices whose `remove` uevent arrived (their sysfs tree may linger a moment); ignored by
    /// discovery until an `add` for them.
    private var removedPaths: Set<String> = []
    /// With hotplug watched, the devices selection may use: those present at the first listing
    /// after `start()`, and each whose own `add` or `change` uevent has arrived since. A device
    /// that turns up in a listing made for another device's event (a sensor hub's second
    /// device, its event still to come) is left until its own event: udev sends that after its
    /// rules ran, the node's group and mode and the `RUN+=` that gives the buffer's attributes
    /// to group carouseld (60-carouseld.rules); read before, its node and attributes can still
    /// be root's, and it would be read polled for good. nil before the first listing and when
    /// hotplug is not watched.
    private var announced: Set<String>?

    /// - Parameters:
    ///   - log: receives each event with its level (`.warning`, "accel_3d (iio:device0): …").
    ///   - clock: CLOCK_MONOTONIC; a scripted clock in tests.
    public init(configuration: IIOSourceConfiguration, log: @escaping LogSink = { _, _ in },
                clock: MonotonicClock = SystemMonotonicClock.shared) {
        self.configuration = configuration
        self.log = log
        self.clock = clock
    }

    deinit { stop() }

    public var name: String { selected?.name ?? (configuration.device ?? "iio") }

    public var sampleRateHz: Double? { accelReader?.device.rateHz }

    public var pollDescriptor: Int32? { descriptors?.fd }

    public var selectedDevice: (name: String, path: String)? { selected }

    public var selectedGyroPath: String? { selection?.gyro?.path }

    /// The read mode of the accelerometer device, or nil while absent.
    public var currentMode: ReadMode? { accelReader?.mode }

    public func start() throws(SensorError) {
        if descriptors == nil {
            do {
                descriptors = try DescriptorSet()
            } catch {
                throw SensorError.io(device: name, what: "epoll_create1", errno: error.errno.rawValue)
            }
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
        announced = nil
        if watchdogFD >= 0 { close(watchdogFD); watchdogFD = -1 }
        descriptors = nil
    }

    public func readAvailable(into samples: inout [IMUSample]) throws(SensorError) {
        // One look at what is ready (nil: cannot tell, so everything is asked).
        let ready = descriptors?.readyMembers()
        func isReady(_ fd: Int32) -> Bool { ready?.contains(fd) ?? true }
        if let monitor, isReady(monitor.pollDescriptor) {
            for event in monitor.events() { handle(event) }
        }
        guard let accelReader else { return }
        let before = samples.count
        // Readers whose fd is not ready are not asked (a reader that hotplug handling just made
        // is not in `ready` either: the loop wakes again for it, its fd being level-triggered).
        // A buffered gyroscope is not in the set (`syncEpoll`): it is drained at every wake-up
        // of the accelerometer, whose scans are the samples.
        if let gyroReader, gyroReader.mode == .buffered || isReady(gyroReader.pollDescriptor) {
            do {
                if let g = try gyroReader.read().last?.gyro { latestGyro = g }
            } catch {
                try readFailed(gyroReader, error)
                return
            }
        }
        let readings: [IIOReading]
        do {
            readings = isReady(accelReader.pollDescriptor) ? try accelReader.read() : []
        } catch {
            try readFailed(accelReader, error)
            return
        }
        for r in readings {
            guard let accel = r.accel, accel.isFinite else { continue }
            let gyro = r.gyro ?? (gyroReader == nil ? nil : latestGyro)
            let sample = IMUSample(timestampNanoseconds: r.timestampNanoseconds, accel: accel, gyro: gyro)
            samples.append(sample)
            if let problem = gravityWatch.add(sample) { implausibleGravity(problem, accelReader.device.who) }
        }
        let now = clock.nowNanoseconds()
        if samples.count > before {
            if accelReader.mode == .buffered { bufferDelivered = true }
            silence.sampleArrived(now: now)
            if status != .ok { setStatus(.ok, nil) }
        }
        checkSilence(now: now, watchdogReady: isReady(watchdogFD))
    }

    // MARK: - opening and closing

    /// Discovers, selects and starts the reader(s); absent (not thrown) when nothing matches.
    private func open() throws(SensorError) {
        closeReaders()
        let inventory = try SensorDiscovery.inventory(uri: configuration.uri)
        if monitor != nil, announced == nil { announced = Set(inventory.sensors.map(\.path)) }
        let selection: SensorSelection
        do {
            selection = try choose(from: inventory)
        } catch {
            self.selection = nil
            selectionFailure = "\(error)"
            setStatus(.absent, "\(error); waiting for a sensor")
            let awaited = inventory.sensors.filter { isAwaited($0) }
            if awaited.isEmpty {
                log(.warning, "\(error); waiting for a sensor to be plugged in")
            } else {
                // The rest of a hub still arriving: its own event opens it, nothing is wrong.
                log(.info, "\(error); waiting for the udev event of \(awaited.map(\.who).joined(separator: ", "))")
            }
            return
        }
        try open(selection, in: inventory)
    }

    /// Whether `sensor` is listed but its own udev event has not come yet (`announced`).
    private func isAwaited(_ sensor: SensorInfo) -> Bool {
        guard let announced else { return false }
        return !announced.contains(sensor.path)
    }

    /// The selection rule applied to the sensors of `inventory` that are still present.
    private func choose(from inventory: SensorInventory) throws(SensorError) -> SensorSelection {
        let present = inventory.sensors.filter { !removedPaths.contains($0.path) && !isAwaited($0) }
        return try SensorSelection.choose(from: present, selector: configuration.device)
    }

    /// Starts the reader(s) of `selection`, made from `inventory`.
    private func open(_ selection: SensorSelection, in inventory: SensorInventory) throws(SensorError) {
        closeReaders()
        selectionFailure = nil
        for note in selection.notes { log(.info, "\(note)") }
        if let ambiguity = selection.ambiguity { log(.warning, ambiguity) }
        let warnings = ([selection.accel] + (selection.gyro.map { [$0] } ?? [])).flatMap { info in
            info.warnings.map { "\(info.who): \($0)" }
        } + (selection.gyroNotUsed.map { [$0] } ?? [])
        for w in warnings.uniqued() { log(.warning, w) }
        self.inventory = inventory
        self.selection = selection
        let transform = SampleTransform(selection: selection, convention: configuration.accelConvention)
        // A gyroscope left out for want of a scale is said in the status too (the SENSOR message).
        fallbackNotes = selection.gyroNotUsed.map { [$0] } ?? []
        accelReader = try makeReader(selection.accel, inventory: inventory, transform: transform)
        if let g = selection.gyro {
            gyroReader = try makeReader(g, inventory: inventory, transform: transform)
            gyroReader?.device.wakesTheLoop = false
        }
        latestGyro = nil
        bufferDelivered = false
        openedNanoseconds = clock.nowNanoseconds()
        gravityWatch = GravityMagnitudeWatch()
        armWatchdog()
        let what = selection.gyro.map { "\(selection.accel.who) + \($0.who)" } ?? selection.accel.who
        log(.info, "reading \(what) in \(accelReader?.mode.rawValue ?? "no") mode at \(SamplingRate.text(accelReader?.device.rateHz ?? 0)) Hz")
        // A buffer that another process holds is said in the status too (the SENSOR message).
        setStatus(.ok, fallbackNotes.isEmpty ? nil : fallbackNotes.joined(separator: "; "))
    }

    private func makeReader(_ info: SensorInfo, inventory: SensorInventory,
                            transform: SampleTransform) throws(SensorError) -> DeviceReader {
        guard let device = inventory.device(of: info), let attributes = inventory.attributes(of: info) else {
            throw SensorError.notFound(info.path)
        }
        let handle = IIODeviceHandle(info: info, device: device, attributes: attributes, transform: transform,
                                     requestedRateHz: configuration.sampleRateHz, log: log)
        handle.configureRate(requestedHz: configuration.sampleRateHz)
        if configuration.mode != .polled, info.buffered {
            do {
                return try BufferedDeviceReader(device: handle, clock: clock)
            } catch {
                let message = "\(bufferFailureMessage(info, error)); reading in polled mode"
                log(.warning, message)
                fallbackNotes.append(message)
            }
        } else if configuration.mode == .buffered {
            log(.warning, "\(info.who): no buffer; reading in polled mode")
        }
        return try PolledDeviceReader(device: handle, clock: clock)
    }

    /// `reader`'s device read the other way: the old reader is stopped first (a buffer must
    /// be released before it can be enabled again).
    private func reopen(_ reader: DeviceReader, as mode: ReadMode) throws(SensorError) -> DeviceReader {
        reader.stop()
        switch mode {
        case .buffered: return try BufferedDeviceReader(device: reader.device, clock: clock)
        case .polled: return try PolledDeviceReader(device: reader.device, clock: clock)
        }
    }

    /// The message for a buffer that cannot be used; `EBUSY`, `EPERM` and `EACCES` get their
    /// usual causes spelled out. `EPERM` on opening a device node is the device cgroup's answer
    /// (a unit's `DevicePolicy=`/`DeviceAllow=`), whatever the node's mode; `EACCES` is the
    /// node's owner and mode, which the udev rule sets.
    func bufferFailureMessage(_ info: SensorInfo, _ error: SensorError) -> String {
        if case let .io(_, what, code) = error, code == EBUSY {
            return "\(info.who): buffer busy (\(what): EBUSY): \(DeviceHolders.busyText(id: info.id, devnode: info.dev))"
        }
        if case let .io(_, _, code) = error, code == EPERM, !info.dev.isEmpty {
            return "\(info.who): buffer unavailable: the device filter refused \(info.dev) (errno \(code): "
                + "\(String(cString: strerror(code)))): a systemd unit's DevicePolicy=/DeviceAllow= (carouseld.service "
                + "allows char-iio, resolved when the service starts: restart it if the IIO core was loaded later)"
        }
        if case let .io(_, _, code) = error, code == EACCES, !info.dev.isEmpty {
            return "\(info.who): buffer unavailable: no permission to open \(info.dev) (errno \(code): "
                + "\(String(cString: strerror(code)))); the udev rule 60-carouseld.rules gives it to group carouseld"
        }
        return "\(info.who): buffer unavailable: \(error)"
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
            announced?.remove(event.syspath)
            guard let s = selection else {
                // Nothing read: a device that went may have been what kept another from being
                // chosen (a display accelerometer whose remove came before its gyroscope's, the
                // base skipped meanwhile), so the rule runs again over what is left.
                if event.sysname.hasPrefix("iio:device") { reselect(after: event) }
                return
            }
            guard event.syspath == s.accel.path || event.syspath == s.gyro?.path else { return }
            lost(event.syspath == s.accel.path ? s.accel : (s.gyro ?? s.accel))
        case .add, .change:
            if event.action == .add { removedPaths.remove(event.syspath) }
            announced?.insert(event.syspath)
            guard event.sysname.hasPrefix("iio:device") else { return }
            reselect(after: event)
        }
    }

    /// A device came (or its udev properties changed, e.g. `ACCEL_LOCATION`): the selection
    /// rule runs again over everything present, as on start, and the reader(s) move when it
    /// chooses other devices (a display accelerometer back after the base was read meanwhile, a
    /// gyroscope for an accelerometer read alone). The same choice leaves the readers alone.
    private func reselect(after event: SensorHotplugEvent) {
        do {
            guard accelReader != nil, let current = selection else {
                try open()
                syncEpoll()
                return
            }
            let inventory: SensorInventory
            do {
                inventory = try SensorDiscovery.inventory(uri: configuration.uri)
            } catch {
                // The devices being read still work: keep them; the next uevent looks again.
                log(.warning, "\(event.sysname) \(event.action.rawValue): cannot list the sensors (\(error)); still reading \(current.accel.who)")
                return
            }
            guard let chosen = try? choose(from: inventory),
                  chosen.accel.path != current.accel.path || chosen.gyro?.path != current.gyro?.path else { return }
            let was = current.gyro.map { "\(current.accel.who) + \($0.who)" } ?? current.accel.who
            let now = chosen.gyro.map { "\(chosen.accel.who) + \($0.who)" } ?? chosen.accel.who
            log(.notice, "\(event.sysname) \(event.action.rawValue): the selection rule now chooses \(now) instead of \(was)")
            try open(chosen, in: inventory)
        } catch {
            log(.error, "cannot open \(event.sysname) after hotplug: \(error)")
            setStatus(.error, "\(error)")
        }
        syncEpoll()
    }

    /// A device being read went away: stop, then carry on with what is left (an accelerometer
    /// whose gyroscope went) or wait as `absent`.
    private func lost(_ gone: SensorInfo) {
        removedPaths.insert(gone.path)
        closeReaders()
        selection = nil
        log(.warning, "\(gone.who) removed")
        do {
            try open()
        } catch {
            log(.error, "\(error)")
            setStatus(.absent, "\(gone.who) removed")
        }
        syncEpoll()
    }

    /// The watchdog fires every 5 expected periods, in both modes: a polled device whose every
    /// read is skipped (garbage in `*_raw`) is as silent as a wedged buffer. It only wakes the
    /// loop; `silence` decides, on `clock`.
    private func armWatchdog() {
        guard let reader = accelReader else { return }
        silence.restart(periodNanoseconds: reader.device.periodNanoseconds, now: clock.nowNanoseconds())
        guard watchdogFD >= 0 else { return }
        _ = clinux_timerfd_set(watchdogFD, silence.windowNanoseconds, silence.windowNanoseconds)
    }

    /// No sample for 5 expected periods → stale; a buffer is re-enabled once, then polled.
    private func checkSilence(now: Int64, watchdogReady: Bool) {
        if watchdogFD >= 0, watchdogReady { _ = clinux_timerfd_read(watchdogFD) }
        guard let reader = accelReader, let silent = silence.check(now: now) else { return }
        // A device whose sysfs tree is gone (its remove uevent lost, or never sent) is removed,
        // not stale: re-enabling it would only fail.
        for r in [reader, gyroReader].compactMap({ $0 }) where r.device.attributes.isPresent == false {
            return lost(r.device.info)
        }
        let who = reader.device.who, ms = silent.silentMilliseconds
        if reader.mode == .buffered, !bufferDelivered {
            // Not one sample since the buffer was enabled: wait out the start-up allowance,
            // then poll (a stale/re-enable cycle would only repeat the silence).
            if now &- openedNanoseconds >= FirstSampleWait.nanoseconds(periodNanoseconds: reader.device.periodNanoseconds) {
                bufferNeverFilled(reader, now: now)
            }
            return
        }
        switch SilenceStep(window: silent.window, mode: reader.mode) {
        case .markStale:
            guard status == .ok else { return }
            setStatus(.stale, "no valid sample for \(ms) ms")
            log(.warning, "\(who): no valid sample for \(ms) ms (5 periods): stale")
        case .reenableBuffer:
            setStatus(.stale, "no sample for \(ms) ms")
            log(.warning, "\(who): no sample for \(ms) ms (5 periods): stale; re-enabling the buffer")
            do {
                accelReader = try reopen(reader, as: .buffered)
                if let g = gyroReader { gyroReader = try reopen(g, as: .buffered) }
                silence.allow(nanoseconds: FirstSampleWait.nanoseconds(afterSilence: ms * 1_000_000,
                                                                       periodNanoseconds: reader.device.periodNanoseconds), now: now)
            } catch {
                log(.warning, "\(who): re-enabling the buffer failed: \(error)")
            }
        case .fallBackToPolled:
            log(.warning, "\(who): buffer still silent after re-enabling; falling back to polled mode")
            do {
                try reopenPolled(reader)
            } catch {
                setStatus(.error, "\(error)")
            }
        }
        syncEpoll()
    }

    /// Reads the accelerometer `reader` and a buffered gyroscope of the pair polled from now on.
    /// - Throws: what `reopen` throws when a device cannot be opened polled.
    private func reopenPolled(_ reader: DeviceReader) throws(SensorError) {
        accelReader = try reopen(reader, as: .polled)
        if let g = gyroReader, g.mode == .buffered { gyroReader = try reopen(g, as: .polled) }
    }

    /// The device rests with a magnitude far from 1 g: said once in the log and in the status
    /// message (the SENSOR message), the device named.
    private func implausibleGravity(_ problem: String, _ who: String) {
        let message = "\(who): \(problem)"
        log(.warning, message)
        fallbackNotes.append(message)
        if status == .ok { setStatus(.ok, fallbackNotes.joined(separator: "; ")) }
    }

    /// The buffer was enabled but no scan came (a trigger that never fires: a data-ready
    /// interrupt that is not wired, `bmc150_accel` on I²C without an IRQ): polled from now on,
    /// said once in the log and in the status message (the SENSOR message).
    private func bufferNeverFilled(_ reader: DeviceReader, now: Int64) {
        let trigger = reader.device.attributes.read("trigger/current_trigger").map { printable($0) } ?? ""
        let ms = (now &- openedNanoseconds) / 1_000_000
        let message = "\(reader.device.who): buffer enabled" + (trigger.isEmpty ? "" : " with trigger '\(trigger)'")
            + " but no sample came in \(ms) ms (a trigger that never fires, e.g. no interrupt line); reading in polled mode"
        log(.warning, message)
        fallbackNotes.append(message)
        do {
            try reopenPolled(reader)
        } catch {
            setStatus(.error, "\(error)")
            syncEpoll()
            return
        }
        armWatchdog()
        setStatus(.ok, fallbackNotes.joined(separator: "; "))
        syncEpoll()
    }

    private func readFailed(_ reader: DeviceReader, _ error: SensorError) throws(SensorError) {
        let who = reader.device.who
        // Gone: the sysfs directory, or (while the kernel is still tearing it down) its files.
        let goneErrno: Bool
        if case let .io(_, _, code) = error { goneErrno = code == ENODEV || code == ENOENT || code == ENXIO } else { goneErrno = false }
        if let present = reader.device.attributes.isPresent, goneErrno || !present {
            lost(reader.device.info)
            return
        }
        if reader.mode == .buffered {
            log(.warning, "\(who): buffer read failed (\(error)); reading in polled mode")
            do {
                let polled = try reopen(reader, as: .polled)
                if reader === accelReader { accelReader = polled } else { gyroReader = polled }
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

    /// Makes the epoll set hold exactly the fds that matter now.
    private func syncEpoll() {
        var wanted: Set<Int32> = []
        if let m = monitor { wanted.insert(m.pollDescriptor) }
        if watchdogFD >= 0 { wanted.insert(watchdogFD) }
        // The accelerometer's scans make the samples; a buffered gyroscope's scans only update
        // the rate paired with the next one, so its buffer does not wake the loop (half the
        // wake-ups of an IMU pair, one per sample). A polled one's timer must be read, so it does.
        for r in [accelReader, gyroReader].compactMap({ $0 }) where r.pollDescriptor >= 0 {
            if r === gyroReader, r.mode == .buffered, accelReader != nil { continue }
            wanted.insert(r.pollDescriptor)
        }
        descriptors?.replaceMembers(with: wanted)
    }
}
