/// The tilt mapping of docs/ENGINE.md "Tilt", as pure functions of the roll relative to neutral (degrees,
/// already mapped to the carousel's axis by MotionFusion).
///
/// Direction (seed 001 item 8): roll < 0 (left edge down) makes the offset grow in LTR, so higher
/// indices come into view; in RTL the direction flips with the layout.
public enum TiltMapping {
    /// Whether `rollDegrees` lies inside the dead zone (|roll| ≤ deadZone).
    public static func isInDeadZone(_ rollDegrees: Double, _ settings: TiltSettings) -> Bool {
        abs(rollDegrees) <= settings.deadZoneDegrees
    }

    /// Whether `rollDegrees` leaves the carousel to itself: inside the dead zone in velocity mode;
    /// only when level (roll 0) in position mode, whose displacement has no dead zone.
    public static func isAtRest(_ rollDegrees: Double, _ settings: TiltSettings) -> Bool {
        settings.mode == .velocity ? isInDeadZone(rollDegrees, settings) : rollDegrees == 0
    }

    /// +1 when a positive roll should make the offset grow, −1 otherwise.
    static func offsetSign(mirrored: Bool) -> Double { mirrored ? 1 : -1 }

    /// Velocity mode: the content velocity (pt/s, signed)
    /// `maxItemsPerSecond · p · clamp((|roll| − deadZone) / (max − deadZone), 0, 1)` toward the
    /// tilt's direction.
    public static func velocity(rollDegrees: Double, settings: TiltSettings, pitch: Double, mirrored: Bool) -> Double {
        let span = settings.maxDegrees - settings.deadZoneDegrees
        guard span > 0, rollDegrees.isFinite else { return 0 }
        let fraction = min(max((abs(rollDegrees) - settings.deadZoneDegrees) / span, 0), 1)
        let speed = settings.maxItemsPerSecond * pitch * fraction
        let direction: Double = rollDegrees > 0 ? 1 : (rollDegrees < 0 ? -1 : 0)
        return offsetSign(mirrored: mirrored) * direction * speed
    }

    /// Position mode: the displacement (points, signed) `clamp(roll / max, −1, 1) · 0.5 · p` from
    /// the resting offset, toward the tilt's direction.
    public static func displacement(rollDegrees: Double, settings: TiltSettings, pitch: Double, mirrored: Bool) -> Double {
        guard settings.maxDegrees > 0, rollDegrees.isFinite else { return 0 }
        let fraction = min(max(rollDegrees / settings.maxDegrees, -1), 1)
        return offsetSign(mirrored: mirrored) * fraction * 0.5 * pitch
    }
}
