import CarouselEngine
import CarouselProtocol

/// The requests of autoplay, item editing and the layout style (`set_autoplay`,
/// `insert_items`, `remove_items`, `set_style`): checked against the running carousel, applied
/// to the engine at the request's time, and remembered as runtime settings (`RuntimeOverrides`)
/// so that a reload keeps them.
extension DaemonCore {
    /// Applies one of these requests.
    /// - Returns: the ERROR to answer with, or nil for an ACK.
    func applyFeature(_ request: Request, now: Int64) -> ProtocolError? {
        let t = seconds(now)
        switch request {
        case let .setAutoplay(a):
            // `enabled: true` is a request to run: with no interval (none given, and `[carousel]
            // autoplay_s` unset or 0) it could only be ACKed and stay `off`, so it is refused.
            if a.enabled == true, (a.intervalSeconds ?? engine.autoplaySettings.intervalSeconds) == 0 {
                let why = a.intervalSeconds == nil ? "no interval is set ([carousel] autoplay_s is 0)" : "interval_s 0 is off"
                return ProtocolError(.badField, "field 'enabled': autoplay cannot run: \(why); give interval_s "
                    + "(0.1 … 86400 seconds) with it", cmd: request.cmd)
            }
            engine.setAutoplay(enabled: a.enabled, paused: a.paused, intervalSeconds: a.intervalSeconds,
                               resumeSeconds: a.resumeSeconds, step: a.step, at: t)
            overrides.record(a)
        case let .insertItems(e):
            let n = engine.state.count
            guard e.at <= n else {
                return ProtocolError(.badField, "field 'at': \(e.at) is out of range 0…\(n)", cmd: request.cmd)
            }
            guard e.count <= CarouselLimits.maximumCount - n else {
                return ProtocolError(.badField, "field 'count': \(n) + \(e.count) items exceed \(CarouselLimits.maximumCount)",
                                     cmd: request.cmd)
            }
            engine.insertItems(at: e.at, count: e.count, animated: e.animated, at: t)
            overrides.count = engine.state.count
            forceChange = true
        case let .removeItems(e):
            let n = engine.state.count
            guard e.at < n else {
                let problem = n == 0 ? "the carousel has no items to remove, got \(e.at)" : "\(e.at) is out of range 0…\(n - 1)"
                return ProtocolError(.badField, "field 'at': \(problem)", cmd: request.cmd)
            }
            guard e.count <= n - e.at else {
                return ProtocolError(.badField, "field 'count': \(e.count) items from \(e.at) pass the last item (\(n - 1))",
                                     cmd: request.cmd)
            }
            engine.removeItems(at: e.at, count: e.count, animated: e.animated, at: t)
            overrides.count = engine.state.count
            forceChange = true
        case let .setStyle(s):
            let base: CustomStyle
            if case let .custom(running) = engine.configuration.style { base = running } else { base = CustomStyle() }
            let style = s.style.style(custom: s.customStyle(over: base))
            var merged = engine.configuration
            merged.style = style
            if let problem = StateItemBudget.problem(merged, names: .wire) ?? CustomStyleEyeCheck.problem(merged, wire: true) {
                return ProtocolError(.badField, "field '\(problem.field)': \(problem.message)", cmd: request.cmd)
            }
            engine.setStyle(style, at: t)
            overrides.style = style
            forceChange = true
        default:
            break
        }
        return nil
    }

    /// The engine's next autoplay step as a CLOCK_MONOTONIC time, nil when none is due or the
    /// carousel moves (the frame timer runs then). Rounded up, plus 1 ns, so that the tick at
    /// this time reaches the step's deadline in engine seconds.
    var autoplayDeadline: Int64? {
        guard !isMoving, let d = engine.nextDeadline, d.isFinite else { return nil }
        let ns = (max(d, 0) * 1e9).rounded(.up)
        guard ns < 9e18 else { return nil }
        return startNanoseconds + Int64(ns) + 1
    }
}
