/// Which way up the device is held, with iio-sensor-proxy's names and meanings (the strings
/// GNOME, KDE and Qt read from its `AccelerometerOrientation` property), plus `face-up` and
/// `face-down` for a screen lying near horizontal.
///
/// In the device frame (x to the right edge, y to the top edge, z out of the screen) and with
/// `u` the unit up vector of `TiltEstimate`:
///
/// | orientation | edge that points up | `u` ≈ | display rotation that shows the picture upright |
/// |---|---|---|---|
/// | `normal` | top (+y) | (0, 1, 0) | 0 |
/// | `right-up` | right (+x) | (1, 0, 0) | 90 |
/// | `bottom-up` | bottom (−y) | (0, −1, 0) | 180 |
/// | `left-up` | left (−x) | (−1, 0, 0) | 270 |
/// | `face-up` | screen faces the sky | (0, 0, 1) | — |
/// | `face-down` | screen faces the floor | (0, 0, −1) | — |
///
/// The rotation column is the W3C `screen.orientation.angle` for a device whose natural
/// orientation is `normal`: turning the device 90° counter-clockwise (its right edge goes up)
/// makes the picture turn 90° clockwise on the panel, angle 90.
public enum DeviceOrientation: String, CaseIterable, Sendable {
    /// No estimate yet (the sensor has not delivered, or stopped).
    case undefined
    case normal
    case bottomUp = "bottom-up"
    case leftUp = "left-up"
    case rightUp = "right-up"
    case faceUp = "face-up"
    case faceDown = "face-down"

    /// The display rotation that shows the picture upright, nil for `face-up`, `face-down` and
    /// `undefined` (no edge is up: the last upright rotation stays).
    public var displayRotation: DisplayRotation? {
        switch self {
        case .normal: .degrees0
        case .rightUp: .degrees90
        case .bottomUp: .degrees180
        case .leftUp: .degrees270
        case .faceUp, .faceDown, .undefined: nil
        }
    }

    /// The angle of the up vector's projection on the screen plane for which this orientation
    /// is centred, degrees, measured from +y toward +x (`atan2(u_x, u_y)`); nil when no edge is up.
    var inPlaneCentreDegrees: Double? {
        switch self {
        case .normal: 0
        case .rightUp: 90
        case .bottomUp: 180
        case .leftUp: -90
        case .faceUp, .faceDown, .undefined: nil
        }
    }
}
