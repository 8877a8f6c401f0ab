/// The `stacked` style (seed 001: TXCarouselView's side-card formulas, with the pitch `p` in
/// place of the item width). It has no parameters.
///
/// With `ratio = d / (2p)`:
/// - `scale = 1 − |d| / (6p) · cos(ratio · (2/π) · 0.9)` (the C constant `M_2_PI` is 2/π),
///   applied uniformly (`CGAffineTransformMakeScale(scale, scale)`);
/// - `centerOffset = sin(1.217 · ratio) · 0.9 · p`;
/// - `zIndex = −|d|` (the card nearest the center on top).
///
/// Far away: the sine peaks at `|ratio| = π / (2 · 1.217)` (≈ 1.2907, i.e. `|d|` ≈ 2.5814 p,
/// `peakItems`), where the card reaches `0.9 p` from the center. Past the peak the raw formulas
/// would bring cards back toward the center (sine) and, much further, flip the scale's sign
/// (cosine), so the card stays at the peak's place and scale, tucked under its nearer
/// neighbours (lower `zIndex`), and fades out linearly over `fadeItems` (one pitch). Inside
/// the peak position and scale are strictly monotonic in `|d|` and alpha is 1.
public enum StackedLayout {
    /// TXCarouselView's position frequency, per unit of `ratio`.
    public static let positionFrequency: Double = 1.217
    /// TXCarouselView's position amplitude, in pitches.
    public static let positionAmplitude: Double = 0.9
    /// Scale's cosine frequency per unit of `ratio`: `M_2_PI · 0.9`.
    public static let scaleFrequency: Double = 2 / Double.pi * 0.9
    /// `|ratio|` at which the position's sine peaks: π / (2 · 1.217).
    public static let peakRatio: Double = Double.pi / (2 * positionFrequency)
    /// `|d| / p` at the peak, ≈ 2.5814 items.
    public static let peakItems: Double = 2 * peakRatio
    /// Length of the fade-out past the peak, in items (pitches).
    public static let fadeItems: Double = 1

    static func output(distance d: Double, geometry g: StyleGeometry) -> StyleOutput {
        let p = StyleMath.itemPitch(g)
        let items = d.magnitude / p
        // Hold the card at the peak beyond it (see the type's comment).
        let ratio = min(items, peakItems) / 2
        let scale = 1 - ratio / 3 * cosine(ratio * scaleFrequency)  // |d| / (6p) = ratio / 3
        let offset = StyleMath.side(d) * sine(positionFrequency * ratio) * positionAmplitude * p
        let alpha = StyleMath.clamp(1 - (items - peakItems) / fadeItems, 0, 1)
        return StyleOutput(centerOffset: offset, scaleAlong: scale, scaleCross: scale, alpha: alpha,
                           zIndex: -d.magnitude, transform: .scale(scale, scale, 1))
    }

    /// `max(W / 2 + w / 2, (peakItems + fadeItems) · p)`: beyond the fade every card is
    /// transparent; inside it a card can be anywhere within `0.9 p` of the center.
    static func maximumVisibleDistance(geometry g: StyleGeometry) -> Double {
        max(g.viewportAlong / 2 + g.itemAlong / 2, (peakItems + fadeItems) * StyleMath.itemPitch(g))
    }
}
