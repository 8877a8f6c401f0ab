import CarouselProtocol

/// The daemon's entry point: sets up the socket, signals, timers and sensor, runs the epoll
/// loop until SIGTERM/SIGINT, cleans up (the socket file it created is removed) and returns the
/// exit status (docs/SERVICE.md "Exit statuses"): 0 after a signal, 69 when another daemon serves the socket,
/// 77 when the socket cannot be created for lack of permission, 78 for an unusable socket path
/// or group, 74/70 for other I/O or internal failures.
///
/// `runDaemon(options:)` (DaemonEntry.swift) calls this.
public func runCarouseld(options: DaemonOptions) -> ExitStatus {
    let runtime: DaemonRuntime
    do {
        runtime = try DaemonRuntime(options: options)
    } catch {
        options.logger.error(error.description)
        return .software
    }
    let started = runtime.start()
    guard started == .ok else {
        runtime.shutdown()
        return started
    }
    let status = runtime.run()
    runtime.shutdown()
    return status
}
