/// Tilt input (seed 001 item 8, docs/ENGINE.md "Tilt"). MotionFusion hands the roll relative to the
/// neutral attitude, already mapped to the carousel's axis.
extension CarouselEngine {
    /// A roll sample in degrees relative to neutral at `time` (seconds). The roll is held until
    /// the next sample, and `advance(to:)` integrates the velocity-mode speed exactly over time,
    /// so the result does not depend on the sample rate.
    ///
    /// Inside the dead zone tilt re-arms. Velocity mode: inside the dead zone, tilting that was
    /// driving the carousel ends with a snap to the nearest item; outside it drives the carousel
    /// when armed, enabled and nothing higher owns it. Position mode follows docs/ENGINE.md "Tilt"
    /// literally: the displacement `clamp(roll / max, −1, 1) · 0.5 · p` has no dead zone (so it
    /// is continuous in the roll, with no jump at the dead-zone edge) and a level device (roll 0)
    /// springs back to the resting item.
    public mutating func tilt(rollDegrees: Double, at time: Double) {
        advance(to: time)
        guard rollDegrees.isFinite else { return }
        tiltRollDegrees = rollDegrees
        let settings = configuration.tilt
        let g = geometry
        // Re-arm only while no higher input owns the carousel: "back in the dead zone" counts
        // after the higher input is over.
        if TiltMapping.isInDeadZone(rollDegrees, settings) {
            if activity.allows(.tilt) { tiltArmed = true }
        } else if settings.enabled {
            pauseAutoplayForInteraction()
        }
        if !settings.enabled || g.count == 0 || TiltMapping.isAtRest(rollDegrees, settings) {
            endTilt()
            return
        }
        switch activity {
        case let .tilting(base):
            applyTiltPosition(base: base)
        case .idle, .moving(_, _, .tilt), .moving(_, _, .autoplay):
            guard tiltArmed else { return }
            var base = nearestItemOffset(offset)
            if case let .moving(motion, _, _) = activity { base = motion.target }
            if case .idle = activity { base = offset }
            activity = .tilting(base: base)
            applyTiltPosition(base: base)
        default:
            return
        }
        normalise()
    }

    /// Changes the tilt settings at runtime (`set_tilt`); `nil` keeps a value. Disabling tilt
    /// while it drives the carousel ends it with a snap. Values are sanitised: negative numbers
    /// become 0 and `maxDegrees` stays above `deadZoneDegrees`.
    public mutating func setTilt(enabled: Bool? = nil, mode: TiltMode? = nil, deadZoneDegrees: Double? = nil,
                                 maxDegrees: Double? = nil, maxItemsPerSecond: Double? = nil, at time: Double) {
        advance(to: time)
        var s = configuration.tilt
        if let enabled { s.enabled = enabled }
        if let mode { s.mode = mode }
        if let v = deadZoneDegrees, v.isFinite { s.deadZoneDegrees = max(v, 0) }
        if let v = maxDegrees, v.isFinite { s.maxDegrees = v }
        if let v = maxItemsPerSecond, v.isFinite { s.maxItemsPerSecond = max(v, 0) }
        if !(s.maxDegrees > s.deadZoneDegrees) { s.maxDegrees = s.deadZoneDegrees + 1 }
        let modeChanged = s.mode != configuration.tilt.mode
        configuration.tilt = s
        if !s.enabled || modeChanged {
            endTilt()
        } else if case let .tilting(base) = activity {
            if TiltMapping.isInDeadZone(tiltRollDegrees, s) { tiltArmed = true }
            if TiltMapping.isAtRest(tiltRollDegrees, s) {
                endTilt()
            } else {
                applyTiltPosition(base: base)
            }
        }
    }

    // MARK: - Internals

    /// Position mode: offset = base + displacement(roll). Velocity mode integrates in `advance`.
    mutating func applyTiltPosition(base: Double) {
        guard configuration.tilt.mode == .position else { return }
        let g = geometry
        let d = TiltMapping.displacement(rollDegrees: tiltRollDegrees, settings: configuration.tilt,
                                         pitch: g.pitch, mirrored: g.isMirrored)
        offset = g.clampOffset(base + d)
    }

    /// Ends tilting, if tilt drives the carousel, with a snap to a centered item.
    mutating func endTilt() {
        guard case let .tilting(base) = activity else { return }
        activity = .idle
        let target = configuration.tilt.mode == .position ? nearestItemOffset(base) : nearestItemOffset(offset)
        startMotion(to: target, velocity: 0, phase: .snapping, source: .tilt)
        normalise()
    }
}
