/// UIScrollView-style resistance beyond the ends of a non-cyclic carousel: a finger `overshoot`
/// points past an end moves the content `(1 − 1 / (overshoot · 0.55 / d + 1)) · d` points, where
/// `d` is the viewport length along the axis. The displacement approaches `d` but never reaches it.
public enum RubberBand {
    /// The constant 0.55 (the well-known UIScrollView approximation).
    public static let coefficient = 0.55

    /// The displayed overshoot for a finger overshoot `x ≥ 0` (points) and dimension `d` (points).
    public static func displacement(_ x: Double, dimension d: Double) -> Double {
        guard x > 0, d > 0 else { return 0 }
        return (1 - 1 / (x * coefficient / d + 1)) * d
    }

    /// The finger overshoot that displays as `y` points (inverse of `displacement`), for `0 ≤ y < d`.
    public static func overshoot(forDisplacement y: Double, dimension d: Double) -> Double {
        guard y > 0, d > 0 else { return 0 }
        let ratio = min(y / d, 0.999999)
        return (1 / (1 - ratio) - 1) * d / coefficient
    }

    /// A raw (finger-driven) offset mapped into `[minimum, maximum]` with rubber banding outside.
    public static func offset(raw: Double, minimum: Double, maximum: Double, dimension d: Double) -> Double {
        if minimum == 0 { return offset(raw: raw, maximum: maximum, dimension: d) }
        return minimum + offset(raw: raw - minimum, maximum: maximum - minimum, dimension: d)
    }

    /// Inverse of `offset(raw:minimum:maximum:dimension:)`.
    public static func raw(offset: Double, minimum: Double, maximum: Double, dimension d: Double) -> Double {
        if minimum == 0 { return raw(offset: offset, maximum: maximum, dimension: d) }
        return minimum + raw(offset: offset - minimum, maximum: maximum - minimum, dimension: d)
    }

    /// A raw (finger-driven) offset mapped into `[0, maximum]` with rubber banding outside.
    public static func offset(raw: Double, maximum: Double, dimension d: Double) -> Double {
        if raw < 0 { return -displacement(-raw, dimension: d) }
        if raw > maximum { return maximum + displacement(raw - maximum, dimension: d) }
        return raw
    }

    /// Inverse of `offset(raw:maximum:dimension:)`.
    public static func raw(offset: Double, maximum: Double, dimension d: Double) -> Double {
        if offset < 0 { return -overshoot(forDisplacement: -offset, dimension: d) }
        if offset > maximum { return maximum + overshoot(forDisplacement: offset - maximum, dimension: d) }
        return offset
    }
}
