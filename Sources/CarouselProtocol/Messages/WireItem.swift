import CarouselEngine

/// The attributes of one visible item, exactly as `carouselctl simulate` prints them
/// (docs/PROTOCOL.md "Server messages"): viewport coordinates in points from the top-left corner. The one encoder of
/// item objects: the daemon's STATE `items` and simulate's frames both go through `write(to:)`.
public struct WireItem: Sendable, Equatable {
    /// Logical item index in `0..<count`.
    public var index: Int
    /// Which copy of the item in cyclic mode (`floor(slot / count)`), 0 otherwise.
    public var instance: Int
    /// Displayed center [x, y], points.
    public var center: (x: Double, y: Double)
    /// Untransformed size [w, h], points.
    public var size: (width: Double, height: Double)
    /// Scale [sx, sy] (duplicates the transform's scale for 2D clients).
    public var scale: (x: Double, y: Double)
    /// Opacity in [0, 1].
    public var alpha: Double
    /// Stacking order (UIKit `zIndex`), possibly fractional.
    public var zIndex: Double
    /// 4×4 transform in CATransform3D order m11, m12, …, m44, about `center`.
    public var transform: [Double]

    public init(index: Int, instance: Int, center: (x: Double, y: Double), size: (width: Double, height: Double),
                scale: (x: Double, y: Double), alpha: Double, zIndex: Double, transform: [Double]) {
        self.index = index
        self.instance = instance
        self.center = center
        self.size = size
        self.scale = scale
        self.alpha = alpha
        self.zIndex = zIndex
        self.transform = transform
    }

    public static func == (a: WireItem, b: WireItem) -> Bool {
        a.index == b.index && a.instance == b.instance && a.center == b.center && a.size == b.size
            && a.scale == b.scale && a.alpha == b.alpha && a.zIndex == b.zIndex && a.transform == b.transform
    }

    /// Writes the item object `{index, instance, center, size, scale, alpha, zIndex, transform}`.
    public func write(to w: inout WireJSONWriter) {
        w.beginObject()
        w.key("index"); w.int(index)
        w.key("instance"); w.int(instance)
        w.key("center"); w.numbers([center.x, center.y])
        w.key("size"); w.numbers([size.width, size.height])
        w.key("scale"); w.numbers([scale.x, scale.y])
        w.key("alpha"); w.number(alpha)
        w.key("zIndex"); w.number(zIndex)
        w.key("transform"); w.numbers(transform)
        w.endObject()
    }

    /// The JSON array of `items`, encoded once and shared by every watcher that asked for items.
    public static func encodeArray(_ items: [WireItem]) -> [UInt8] {
        var w = WireJSONWriter(capacity: 64 + items.count * 320)
        w.beginArray()
        for item in items { item.write(to: &w) }
        w.endArray()
        return w.bytes
    }
}

extension WireItem {
    /// The wire form of the engine's item attributes (docs/PROTOCOL.md "Server messages" item object); `transform`
    /// in CATransform3D field order m11, m12, …, m44.
    public init(_ a: ItemAttributes) {
        let m = a.transform
        self.init(index: a.index, instance: a.instance, center: (a.center.x, a.center.y),
                  size: (a.size.width, a.size.height), scale: (a.scaleX, a.scaleY), alpha: a.alpha, zIndex: a.zIndex,
                  transform: [m.m11, m.m12, m.m13, m.m14, m.m21, m.m22, m.m23, m.m24,
                              m.m31, m.m32, m.m33, m.m34, m.m41, m.m42, m.m43, m.m44])
    }
}
