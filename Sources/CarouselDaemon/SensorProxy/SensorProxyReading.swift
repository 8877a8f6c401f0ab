import IIOSensors
import MotionFusion

/// The values carouseld publishes as `net.hadess.SensorProxy` properties (docs/SERVICE.md
/// "Replacing iio-sensor-proxy"), derived from what the core holds.
public struct SensorProxyReading: Equatable, Sendable {
    /// `HasAccelerometer`.
    public var hasAccelerometer: Bool
    /// `AccelerometerOrientation`: `undefined`, `normal`, `bottom-up`, `left-up` or `right-up`.
    public var orientation: String
    /// `AccelerometerTilt`: `vertical`, `tilted-up`, `tilted-down`, `face-up` or `face-down`.
    public var tilt: String

    /// Elevation of the up vector above the screen plane beyond which the screen counts as
    /// tilted (`tilted-up` facing the sky, `tilted-down` facing the floor), degrees.
    public static let tiltedDegrees = 20.0

    /// A reading with the property values as given (the names above).
    public init(hasAccelerometer: Bool, orientation: String, tilt: String) {
        self.hasAccelerometer = hasAccelerometer
        self.orientation = orientation
        self.tilt = tilt
    }

    /// The properties after the core's state changed.
    /// - Parameters:
    ///   - sensor: the sensor's status, and whether the daemon reads it. `HasAccelerometer` is
    ///     false in `error`, and in `absent` while the sensor is read; a sensor that is not read
    ///     (nobody claims or watches) reports `absent` ("not started") without having looked, so
    ///     it counts as present then: clients such as GNOME claim only an accelerometer that is
    ///     there, and the claim is what starts reading it.
    ///   - detected: carouseld's orientation (`DaemonCore.orientation`).
    ///   - elevationDegrees: the up vector's elevation above the screen plane (`TiltReading`),
    ///     nil without an estimate.
    ///   - previous: the properties published so far.
    /// - Returns: `face-up`/`face-down` keep the previous edge orientation, as iio-sensor-proxy
    ///   keeps its last orientation while the device lies flat (its property has no flat value);
    ///   `undefined` (no estimate) is published as such. The tilt is `face-up`/`face-down` with
    ///   the detector's face orientation (its threshold and hysteresis), else from the elevation:
    ///   above `tiltedDegrees` `tilted-up`, below −`tiltedDegrees` `tilted-down`, else `vertical`.
    public static func next(sensor: SensorStatus, sensorRunning: Bool, detected: DeviceOrientation,
                            elevationDegrees: Double?, previous: SensorProxyReading) -> SensorProxyReading {
        let has = sensor != .error && !(sensorRunning && sensor == .absent)
        let orientation: String
        switch detected {
        case .faceUp, .faceDown: orientation = previous.orientation
        default: orientation = detected.rawValue
        }
        var tilt = previous.tilt
        switch detected {
        case .faceUp: tilt = "face-up"
        case .faceDown: tilt = "face-down"
        default:
            if let e = elevationDegrees {
                tilt = e > tiltedDegrees ? "tilted-up" : e < -tiltedDegrees ? "tilted-down" : "vertical"
            }
        }
        return SensorProxyReading(hasAccelerometer: has, orientation: orientation, tilt: tilt)
    }

    /// Before anything is known: no orientation, `vertical` (iio-sensor-proxy's first tilt).
    public static let initial = SensorProxyReading(hasAccelerometer: false, orientation: "undefined", tilt: "vertical")
}
