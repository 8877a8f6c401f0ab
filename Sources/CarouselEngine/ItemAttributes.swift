/// The attributes of one visible item, in real viewport coordinates (axis and layout direction
/// applied), ready to draw.
public struct ItemAttributes: Hashable, Sendable {
    /// Logical item index in `[0, count)`.
    public var index: Int
    /// Which copy of the item this is in cyclic mode, `floor(slot / count)`; 0 otherwise.
    public var instance: Int
    /// The unwrapped slot (`index + instance · count`).
    public var slot: Int
    /// Displayed center, points from the viewport's top-left corner.
    public var center: CarouselPoint
    /// Untransformed item size, points.
    public var size: CarouselSize
    /// Scale along x and y (duplicates the transform's scale for 2D clients).
    public var scaleX: Double
    public var scaleY: Double
    /// Opacity in [0, 1].
    public var alpha: Double
    /// Stacking order, higher on top; may be fractional.
    public var zIndex: Double
    /// Transform about `center` (CATransform3D conventions), without the move to `center`.
    public var transform: Transform3D

    public init(index: Int, instance: Int, slot: Int, center: CarouselPoint, size: CarouselSize,
                scaleX: Double, scaleY: Double, alpha: Double, zIndex: Double, transform: Transform3D) {
        self.index = index
        self.instance = instance
        self.slot = slot
        self.center = center
        self.size = size
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.alpha = alpha
        self.zIndex = zIndex
        self.transform = transform
    }
}
