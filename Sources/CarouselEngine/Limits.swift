/// The magnitudes the engine accepts. Far beyond any real screen or gesture, they keep every
/// derived number finite and precise: offsets stay below 2^53 · 2^-5 (positions exact to 1/32
/// point) and no product of two inputs overflows. `CarouselConfiguration.validate()` and
/// `carouselctl simulate` reject values outside them; the engine clamps runtime inputs into them.
public enum CarouselLimits {
    /// Largest viewport or item length and largest |spacing|, points.
    public static let maximumLength = 100_000.0
    /// Largest item count.
    public static let maximumCount = 1_000_000_000
    /// Largest |offset| or |location| an input may carry, points (count · pitch stays below
    /// 1e9 · 2e5 = 2e14).
    public static let maximumCoordinate = 1e15
    /// Largest |velocity| an input may carry, points per second (1000 pt/ms; a hard finger
    /// flick is about 10 pt/ms).
    public static let maximumSpeed = 1_000_000.0

    /// `value` clamped to ±`maximumCoordinate` (NaN → 0).
    @inlinable public static func coordinate(_ value: Double) -> Double {
        value.isNaN ? 0 : min(max(value, -maximumCoordinate), maximumCoordinate)
    }

    /// `value` clamped to ±`maximumSpeed` (NaN → 0).
    @inlinable public static func speed(_ value: Double) -> Double {
        value.isNaN ? 0 : min(max(value, -maximumSpeed), maximumSpeed)
    }
}
