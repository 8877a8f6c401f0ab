/// The lengths a layout style needs, in points, in the style's logical frame: "along" is the
/// scroll axis (x for a horizontal carousel), "cross" the other axis.
public struct StyleGeometry: Hashable, Sendable {
    /// Viewport length along the scroll axis (the seeds' `viewWidth`), points.
    public var viewportAlong: Double
    /// Viewport length across the scroll axis, points.
    public var viewportCross: Double
    /// Item length along the scroll axis (`itemWidth`), points.
    public var itemAlong: Double
    /// Item length across the scroll axis, points.
    public var itemCross: Double
    /// Gap between neighbouring items along the axis (`minimumLineSpacing`), points.
    public var spacing: Double
    /// Number of items (the rotary/cylinder styles cap their ring size at it).
    public var count: Int

    /// Distance between neighbouring item centers, `itemAlong + spacing`, points.
    @inlinable public var pitch: Double { itemAlong + spacing }

    public init(viewportAlong: Double, viewportCross: Double, itemAlong: Double, itemCross: Double,
                spacing: Double, count: Int) {
        self.viewportAlong = viewportAlong
        self.viewportCross = viewportCross
        self.itemAlong = itemAlong
        self.itemCross = itemCross
        self.spacing = spacing
        self.count = count
    }
}

/// What a style computes for one item, in the style's logical frame (horizontal, left to right:
/// "along" is +x toward higher indices, "cross" is y). The engine maps it to the real axis and
/// layout direction.
public struct StyleOutput: Hashable, Sendable {
    /// Displacement of the item's displayed center from the viewport center along the axis,
    /// points (for `linear` it equals the untransformed distance `d`).
    public var centerOffset: Double
    /// Scale along the axis.
    public var scaleAlong: Double
    /// Scale across the axis.
    public var scaleCross: Double
    /// Opacity in [0, 1].
    public var alpha: Double
    /// Stacking order: higher is drawn on top (UIKit `zIndex`); may be fractional.
    public var zIndex: Double
    /// The full transform about the item's displayed center (scale, rotation, depth, perspective),
    /// without the move to `centerOffset`.
    public var transform: Transform3D

    public init(centerOffset: Double, scaleAlong: Double, scaleCross: Double, alpha: Double,
                zIndex: Double, transform: Transform3D) {
        self.centerOffset = centerOffset
        self.scaleAlong = scaleAlong
        self.scaleCross = scaleCross
        self.alpha = alpha
        self.zIndex = zIndex
        self.transform = transform
    }
}
