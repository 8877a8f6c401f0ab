import CarouselPosix
import CarouselService
import CLinux
import CSensorProxyBus
#if canImport(Glibc)
import Glibc
#endif

/// carouseld as `net.hadess.SensorProxy` on the system bus (`[server] sensor_proxy`,
/// docs/SERVICE.md "Replacing iio-sensor-proxy"): the accelerometer part of iio-sensor-proxy's
/// interface, through libsystemd's sd-bus (`CSensorProxyBus` holds the vtable), driven by the
/// daemon's epoll loop.
///
/// The bus descriptor is in the loop's epoll set with the events sd-bus asks for
/// (`sd_bus_get_events`); one timerfd fires at sd-bus's deadline (`sd_bus_get_timeout`) or, while
/// there is no connection, at the next attempt to connect. A bus that cannot be reached, a name
/// another process owns (iio-sensor-proxy still running) or a connection that breaks is logged
/// (identical lines once per 10 s) and retried every `retryNanoseconds`; the daemon goes on.
///
/// Claims are kept per unique bus name: the accelerometer is wanted while any client that called
/// `ClaimAccelerometer` has not called `ReleaseAccelerometer` or left the bus.
final class SensorProxyService {
    /// The well-known name and the retry interval after a failure, ns.
    static let busName = "net.hadess.SensorProxy"
    static let retryNanoseconds: Int64 = 2_000_000_000

    private let epoll: Epoll
    private let busToken: UInt64
    private let timerToken: UInt64
    private let log: LogSink
    private var bus: OpaquePointer?
    private var timerFD: Int32 = -1
    private var registeredFD: Int32?
    private var registeredEvents: UInt32 = 0
    private var armedDeadline: Int64?
    private var retryAt: Int64?
    /// Unique names of the clients holding a claim.
    private(set) var claims: Set<String> = []
    /// What the bus was last told (and is told again after reconnecting).
    private(set) var reading = SensorProxyReading.initial

    /// A client holds a claim: the sensor must run.
    var claimed: Bool { !claims.isEmpty }

    /// Creates the service; `start` connects.
    /// - Parameters: `busToken` and `timerToken` are the epoll tokens the loop hands to `handle`.
    init(epoll: Epoll, busToken: UInt64, timerToken: UInt64, log: @escaping LogSink) {
        self.epoll = epoll
        self.busToken = busToken
        self.timerToken = timerToken
        self.log = log
    }

    /// Creates the timer and connects (a failure is logged and retried).
    /// - Throws: `SystemError` when the timerfd cannot be created or added to the epoll set.
    func start(now: Int64) throws(SystemError) {
        timerFD = clinux_timerfd_create()
        guard timerFD >= 0 else { throw SystemError("timerfd_create", errno: Errno.current) }
        try epoll.add(timerFD, events: Epoll.readable, token: timerToken)
        connect(now: now)
        sync(now: now)
    }

    /// Releases the name and closes the connection and the timer.
    func stop() {
        disconnect()
        if timerFD >= 0 {
            epoll.remove(timerFD)
            close(timerFD)
            timerFD = -1
        }
        claims.removeAll()
    }

    /// The loop saw `token` ready (one of the two given to `init`).
    func handle(token: UInt64, now: Int64) {
        if token == timerToken {
            _ = clinux_timerfd_read(timerFD)
            armedDeadline = nil
            if bus == nil, let at = retryAt, now >= at { connect(now: now) }
        }
        process(now: now)
    }

    /// Publishes the properties, if they changed, and re-arms the descriptor's events and the
    /// timer (after every pass of the loop).
    func update(_ reading: SensorProxyReading, now: Int64) {
        if reading != self.reading, let bus {
            let r = csp_set(bus, reading.hasAccelerometer ? 1 : 0, reading.orientation, reading.tilt)
            if r < 0 { lost(Errno(rawValue: -r), doing: "PropertiesChanged", now: now) }
        }
        self.reading = reading
        sync(now: now)
    }

    // MARK: - Connection

    private func connect(now: Int64) {
        retryAt = nil
        var opened: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        let r = csp_open(&opened, Self.busName, { context, sender, claim in
            guard let context, let sender else { return }
            Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue()
                .claimChanged(String(cString: sender), claim: claim != 0)
        }, { context, name in
            guard let context, let name else { return }
            Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue().vanished(String(cString: name))
        }, context)
        guard r >= 0, let opened else {
            let why = r == -EEXIST ? "the name is owned by another process (iio-sensor-proxy running?)"
                                   : "\(Errno(rawValue: -r))"
            log(.warning, "sensor proxy: cannot own \(Self.busName) on the system bus: \(why); retrying every "
                + "\(Self.retryNanoseconds / 1_000_000_000) s")
            retryAt = now + Self.retryNanoseconds
            return
        }
        bus = opened
        let p = reading
        _ = csp_set(opened, p.hasAccelerometer ? 1 : 0, p.orientation, p.tilt)
        log(.notice, "sensor proxy: serving \(Self.busName) on the system bus")
    }

    private func disconnect() {
        if let fd = registeredFD { epoll.remove(fd) }
        registeredFD = nil
        registeredEvents = 0
        csp_close(bus)
        bus = nil
    }

    /// The connection broke: drop it and its claims (the clients' unique names die with it).
    private func lost(_ e: Errno, doing what: String, now: Int64) {
        log(.warning, "sensor proxy: system bus connection lost (\(what): \(e)); reconnecting every "
            + "\(Self.retryNanoseconds / 1_000_000_000) s")
        disconnect()
        claims.removeAll()
        retryAt = now + Self.retryNanoseconds
    }

    private func process(now: Int64) {
        guard let bus else { return }
        let r = csp_process(bus)
        if r < 0 { lost(Errno(rawValue: -r), doing: "sd_bus_process", now: now) }
    }

    /// The descriptor's epoll events and the timer, from sd-bus's wishes or the retry time.
    private func sync(now: Int64) {
        var deadline = retryAt
        if let bus {
            let fd = csp_fd(bus)
            let events = csp_events(bus)
            if fd < 0 || events < 0 {
                lost(Errno(rawValue: -(fd < 0 ? fd : events)), doing: "sd_bus_get_events", now: now)
                deadline = retryAt
            } else {
                register(fd: fd, events: UInt32(events), now: now)
                var usec: UInt64 = 0
                if csp_timeout(bus, &usec) >= 0, usec != UInt64.max {
                    deadline = Int64(clamping: usec) &* 1000
                }
            }
        }
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        _ = clinux_timerfd_set(timerFD, deadline.map { max($0 - now, 1) } ?? 0, 0)
    }

    private func register(fd: Int32, events: UInt32, now: Int64) {
        do {
            if registeredFD != fd {
                if let old = registeredFD { epoll.remove(old) }
                try epoll.add(fd, events: events, token: busToken)
                registeredFD = fd
                registeredEvents = events
            } else if events != registeredEvents {
                try epoll.modify(fd, events: events, token: busToken)
                registeredEvents = events
            }
        } catch {
            log(.error, "sensor proxy: \(error.description)")
        }
    }

    // MARK: - Claims

    private func claimChanged(_ sender: String, claim: Bool) {
        if claim { claims.insert(sender) } else { claims.remove(sender) }
        log(.debug, "sensor proxy: \(sender) \(claim ? "claimed" : "released") the accelerometer (\(claims.count) claims)")
    }

    private func vanished(_ name: String) {
        guard claims.remove(name) != nil else { return }
        log(.debug, "sensor proxy: \(name) left the bus, its claim is released (\(claims.count) claims)")
    }
}
