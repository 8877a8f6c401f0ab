import CarouselEngine
import IIOSensors
import MotionFusion

/// The whole daemon configuration, as read from `/etc/carouseld/carouseld.conf` (docs/CONFIGURATION.md "Keys").
///
/// A plain value: the loader (`load(path:)`, `parse(text:path:)`) fills it from an INI file,
/// `defaults` holds the built-in values used for every key the file leaves out. The tilt mapping
/// is the engine's own `TiltSettings`; the sensor's convention and read mode are IIOSensors'
/// `AccelConvention` and `IIOReadMode`, the estimator MotionFusion's `EstimationMethod`; the other sections are plain Swift enums and numbers,
/// which the daemon maps onto the engine types. Every key, its unit and its default is documented in
/// `configs/carouseld.conf` and `docs/CONFIGURATION.md`.
public struct DaemonConfiguration: Equatable, Sendable {
    /// `[sensor]`: where samples come from.
    public var sensor: SensorSettings
    /// `[filter]`: how samples become a tilt estimate.
    public var filter: FilterSettings
    /// `[tilt]`: how the tilt estimate drives the carousel.
    public var tilt: TiltSection
    /// `[carousel]`: the initial carousel geometry and behaviour (clients may change the geometry
    /// at run time with `set_geometry`).
    public var carousel: CarouselSettings
    /// `[server]`: the Unix socket.
    public var server: ServerSettings
    /// `[calibration]`: where the sensor calibration lives.
    public var calibration: CalibrationSettings
    /// `[style.custom]`: the numbers of `[carousel] style = custom` (the engine's own
    /// `CustomStyle`, one key per `CustomStyleParameter`); default a flat row.
    public var customStyle = CustomStyle()

    /// Creates a configuration; every section defaults to its built-in values.
    public init(sensor: SensorSettings = .defaults, filter: FilterSettings = .defaults,
                tilt: TiltSection = .defaults, carousel: CarouselSettings = .defaults,
                server: ServerSettings = .defaults, calibration: CalibrationSettings = .defaults) {
        self.sensor = sensor
        self.filter = filter
        self.tilt = tilt
        self.carousel = carousel
        self.server = server
        self.calibration = calibration
    }

    /// The built-in configuration: what the daemon runs with when the default config file is
    /// absent, and the value of every key a file leaves out.
    public static let defaults = DaemonConfiguration()

    /// The default path of the configuration file.
    public static let defaultPath = "/etc/carouseld/carouseld.conf"
}

// MARK: - [sensor]

/// `[sensor]`: the sample source.
public struct SensorSettings: Equatable, Sendable {
    /// Where samples come from.
    public enum Source: String, Equatable, Sendable, CaseIterable {
        /// A Linux IIO accelerometer (and gyroscope if there is one), via libiio.
        case iio
        /// A native CSV recording (docs/CLI.md "record") replayed in real time.
        case replay
    }

    /// `source` — default `iio`.
    public var source: Source
    /// `uri` — the libiio context URI, e.g. `local:` or `ip:192.168.1.20`. Default `local:`.
    public var uri: String
    /// `device` — the accelerometer to use, by IIO name, label, sysfs path (`/sys/devices/...` or
    /// `/sys/bus/iio/devices/iio:deviceN`), `iio:deviceN`, `/dev/iio:deviceN`, or location
    /// (`display`, `base`); empty (default) lets the selection rule choose (docs/SENSORS.md).
    public var device: String
    /// `accel_convention` — the accelerometer's sign after the mount matrix (docs/FUSION.md "1. Conventions"):
    /// `gravity` (default; the daemon negates it) or `specific-force` (used as is).
    public var accelConvention: AccelConvention
    /// `sample_rate_hz` — requested sampling frequency in Hz (the nearest available one is used
    /// and read back). Default 100, range 1…2000.
    public var sampleRateHz: Double
    /// `mode` — `auto` (default: buffered when the device has a usable buffer and trigger,
    /// polled otherwise), `buffered` or `polled` (sysfs reads at `sampleRateHz`).
    public var mode: IIOReadMode
    /// `always_on` — read samples even when no client watches. Default `false`.
    public var alwaysOn: Bool
    /// `replay_file` — the recording to replay when `source = replay`, as an absolute path
    /// (the loader resolves a relative path against the config file's directory). Default empty.
    public var replayFile: String
    /// `replay_loop` — start again from the beginning at the end of the recording. Default `false`.
    public var replayLoop: Bool
    /// `replay_speed` — replay time scale (2 = twice as fast). Default 1, range 0.01…100.
    public var replaySpeed: Double

    /// Creates sensor settings; the defaults are the built-in values.
    public init(source: Source = .iio, uri: String = "local:", device: String = "",
                accelConvention: AccelConvention = .gravity, sampleRateHz: Double = 100,
                mode: IIOReadMode = .auto, alwaysOn: Bool = false, replayFile: String = "",
                replayLoop: Bool = false, replaySpeed: Double = 1) {
        self.source = source
        self.uri = uri
        self.device = device
        self.accelConvention = accelConvention
        self.sampleRateHz = sampleRateHz
        self.mode = mode
        self.alwaysOn = alwaysOn
        self.replayFile = replayFile
        self.replayLoop = replayLoop
        self.replaySpeed = replaySpeed
    }

    /// The built-in `[sensor]` values.
    public static let defaults = SensorSettings()
}

// MARK: - [filter]

/// `[filter]`: the attitude estimator.
public struct FilterSettings: Equatable, Sendable {
    /// `method` — the attitude estimator (docs/FUSION.md "5. Attitude estimators"): `inertial` (default: gyro
    /// strapdown with the accelerometer low-passed in the almost-inertial frame, MotionFusion's
    /// `InertialFrameFilter`), `fusion` (quaternion filter with acceleration rejection),
    /// `complementary` or `accel`; the gyro methods fall back to `accel` for an
    /// accelerometer-only sensor.
    public var method: EstimationMethod
    /// `gain` — dimensionless weight of the accelerometer correction against gyro integration
    /// (the Fusion/Madgwick gain; for `complementary`, the correction rate per second; for
    /// `inertial`, the inverse of the low-pass time constant at a turn rate of 2.25 rad/s, which
    /// lengthens for a device that turns less: `InertialFrameFilter`). Default 0.5, range 0…10.
    public var gain: Double
    /// `lowpass_hz` — cutoff frequency in Hz of the accelerometer low-pass filter in the sensor
    /// frame, before the estimator; 0 turns it off. Default 0 (`inertial` low-passes in the
    /// inertial frame itself; a sensor-frame low-pass lags under rotation), range 0…500.
    public var lowpassHz: Double
    /// `accel_rejection_deg` — an accelerometer sample whose direction differs from the estimate
    /// by more than this many degrees is treated as motion, not gravity, and ignored; 0 turns
    /// rejection off. Default 10, range 0…90.
    public var accelRejectionDeg: Double

    /// Creates filter settings; the defaults are the built-in values.
    public init(method: EstimationMethod = .inertial, gain: Double = 0.5, lowpassHz: Double = 0,
                accelRejectionDeg: Double = 10) {
        self.method = method
        self.gain = gain
        self.lowpassHz = lowpassHz
        self.accelRejectionDeg = accelRejectionDeg
    }

    /// The built-in `[filter]` values.
    public static let defaults = FilterSettings()
}

// MARK: - [tilt]

/// `[tilt]`: how the tilt estimate drives the carousel (docs/ENGINE.md "Tilt").
///
/// The mapping itself (`enabled`, `mode`, `dead_zone_deg`, `max_deg`, `max_items_per_second`) is
/// the engine's `TiltSettings`, checked by its `TiltParameter` table; this section adds what
/// happens before the engine: which angle, the display rotation and neutral tracking.
public struct TiltSection: Equatable, Sendable {
    /// Which tilt angle drives the carousel.
    public enum Axis: String, Equatable, Sendable, CaseIterable {
        /// Roll for a horizontal carousel, pitch for a vertical one.
        case auto
        /// Roll (rotation about the device y axis; left/right tilt of the screen).
        case roll
        /// Pitch (rotation about the device x axis; top edge up/down).
        case pitch
    }

    /// `enabled`, `mode`, `dead_zone_deg` (degrees, default 3, 0…89), `max_deg` (degrees,
    /// default 25, 1…90, greater than `dead_zone_deg`), `max_items_per_second` (default 3,
    /// 0.01…100). Defaults: enabled, velocity mode.
    public var mapping: TiltSettings
    /// `axis` — default `auto`.
    public var axis: Axis
    /// `display_rotation` — clockwise rotation of the displayed image relative to the sensor
    /// frame, in degrees: one of 0, 90, 180, 270; nil for `auto` (the display client's
    /// `set_display_rotation`, else the detected orientation). Default 0.
    public var displayRotation: Int?
    /// `neutral_tracking_s` — time constant in seconds with which the neutral attitude slowly
    /// follows the held attitude; 0 (default) turns tracking off. Range 0…3600.
    public var neutralTrackingSeconds: Double
    /// `orientation_face_deg`, `orientation_hysteresis_deg`, `orientation_dwell_s`: the
    /// orientation detector's settings (defaults 65°, 10°, 0.5 s; `OrientationDetector`).
    public var orientation: OrientationDetector.Configuration

    /// Creates tilt settings; the defaults are the built-in values.
    public init(mapping: TiltSettings = TiltSettings(), axis: Axis = .auto, displayRotation: Int? = 0,
                neutralTrackingSeconds: Double = 0,
                orientation: OrientationDetector.Configuration = OrientationDetector.Configuration()) {
        self.mapping = mapping
        self.axis = axis
        self.displayRotation = displayRotation
        self.neutralTrackingSeconds = neutralTrackingSeconds
        self.orientation = orientation
    }

    /// The built-in `[tilt]` values.
    public static let defaults = TiltSection()
}

// MARK: - [carousel]

/// `[carousel]`: the carousel the daemon drives (geometry in points, UIKit semantics, docs/ENGINE.md "Geometry").
public struct CarouselSettings: Equatable, Sendable {
    /// Layout style (names as in `carouselctl simulate` scenarios; each style's parameters take
    /// their defaults, docs/STYLES.md).
    public enum Style: String, Equatable, Sendable, CaseIterable {
        case linear
        case zoom
        case stacked
        case coverFlow
        case rotary
        case cylinder
        /// The parametric look of `[style.custom]` (`DaemonConfiguration.customStyle`).
        case custom
    }

    /// Paging policy (docs/ENGINE.md "Paging").
    public enum Paging: String, Equatable, Sendable, CaseIterable {
        /// The item nearest the release offset.
        case nearest
        /// Project the release with `decelerationRate`, then the nearest item.
        case momentum
        /// Exactly one item per fast release (threshold 500 pt/s).
        case single
        /// Next item once moved more than 1/8 of a pitch.
        case distance
        /// Free scroll: decelerate with `decelerationRate` and stop anywhere; snap once slower
        /// than `free_sticky_velocity` when that is > 0.
        case free
    }

    /// `count` — number of items. Default 12, range 0…1000000.
    public var count: Int
    /// `viewport_width` — points. Default 1280, range 1…100000.
    public var viewportWidth: Double
    /// `viewport_height` — points. Default 800, range 1…100000.
    public var viewportHeight: Double
    /// `item_width` — points. Default 480, range 1…100000.
    public var itemWidth: Double
    /// `item_height` — points. Default 640, range 1…100000.
    public var itemHeight: Double
    /// `spacing` — gap between items along the axis, points. Default 40, range 0…100000.
    public var spacing: Double
    /// `axis` — `horizontal` (default) or `vertical`: the engine's own `ScrollAxis`.
    public var axis: ScrollAxis
    /// `direction` — `ltr` (default; higher indices to the right) or `rtl`: the engine's own
    /// `LayoutDirection`.
    public var direction: LayoutDirection
    /// `cyclic` — wrap around. Default `false`.
    public var cyclic: Bool
    /// `style` — default `linear`.
    public var style: Style
    /// `paging` — default `momentum`.
    public var paging: Paging
    /// `deceleration_rate` — UIScrollView's rate per millisecond: 0.998 (`normal`, default) or
    /// 0.99 (`fast`), or any number in 0.5…0.9999.
    public var decelerationRate: Double
    /// `free_sticky_velocity` — with `paging = free`, the speed below which the glide springs to
    /// the nearest snap, points per second; 0 (default) never snaps. Range 0…1000000.
    public var freeStickyVelocity: Double = 0
    /// `group_size` — items per page: paging, `scroll_to`, taps and autoplay move by groups and
    /// rest on a group's first item. Default 1, range 1…1000000000.
    public var groupSize = 1
    /// `align` — the reference point of `index`: `start`, `center` (default) or `end`, the
    /// engine's own `ItemAlignment`.
    public var align = ItemAlignment.center
    /// `contain` — a non-cyclic carousel never scrolls into blank space past its ends. Default `false`.
    public var contain = false
    /// `autoplay_s` — seconds at rest before each autoplay step; 0 (default) = off, else
    /// 0.1…86400.
    public var autoplaySeconds = 0.0
    /// `autoplay_resume_s` — seconds of rest after an interaction before autoplay goes on.
    /// Default 10, range 0…86400.
    public var autoplayResumeSeconds = 10.0
    /// `autoplay_step` — snap positions per step (negative: backwards). Default 1, non-zero
    /// within ±1000.
    public var autoplayStep = 1

    /// Creates carousel settings; the defaults are the built-in values.
    public init(count: Int = 12, viewportWidth: Double = 1280, viewportHeight: Double = 800,
                itemWidth: Double = 480, itemHeight: Double = 640, spacing: Double = 40,
                axis: ScrollAxis = .horizontal, direction: LayoutDirection = .leftToRight, cyclic: Bool = false,
                style: Style = .linear, paging: Paging = .momentum, decelerationRate: Double = 0.998) {
        self.count = count
        self.viewportWidth = viewportWidth
        self.viewportHeight = viewportHeight
        self.itemWidth = itemWidth
        self.itemHeight = itemHeight
        self.spacing = spacing
        self.axis = axis
        self.direction = direction
        self.cyclic = cyclic
        self.style = style
        self.paging = paging
        self.decelerationRate = decelerationRate
    }

    /// The built-in `[carousel]` values.
    public static let defaults = CarouselSettings()
}

// MARK: - [server]

/// `[server]`: the Unix socket and its clients.
public struct ServerSettings: Equatable, Sendable {
    /// `socket` — path of the listening socket (ignored when systemd passes a socket).
    /// Default `/run/carouseld/carouseld.sock`.
    public var socketPath: String
    /// `socket_mode` — permission bits of the socket file, written in octal. Default 0o660.
    public var socketMode: UInt32
    /// `socket_group` — group owning the socket file; empty (default) keeps the daemon's group.
    public var socketGroup: String
    /// `control_group` — members of this group may send control commands (besides root and the
    /// daemon's own user); empty means no extra group. Default `carouseld-control`, the group
    /// the sysusers entry creates for the bridges (`carouseld-web`); a group that does not
    /// exist gives nobody extra rights.
    public var controlGroup: String
    /// `max_clients` — simultaneous connections. Default 64, range 1…4096.
    public var maxClients: Int
    /// `control_reserve` — connections out of `max_clients` that only a peer with control
    /// rights (root, the daemon's user, `control_group`) may take, so that an ordinary user who
    /// opens many connections cannot lock out the operator's tools. Default 4, range 0…2048;
    /// never more than half of `max_clients` (the default is lowered to that, a larger value in
    /// the file is refused).
    public var controlReserve: Int
    /// `max_clients_per_uid` — connections one uid without control rights may hold at once.
    /// Peers with control rights are exempt (the web bridge connects every page as one user).
    /// Default 16, range 1…4096.
    public var maxClientsPerUID: Int
    /// `idle_timeout_s` — seconds a connection without control rights that does not watch may
    /// go without sending a request before the daemon closes it (`ERROR idle_timeout`); 0 =
    /// never. Default 30; 0 or 0.1…86400.
    public var idleTimeoutSeconds: Double
    /// `max_rate_hz` — highest STATE rate per client in Hz (a client may ask for less).
    /// Default 60, range 1…1000.
    public var maxRateHz: Double
    /// `sensor_proxy` — own `net.hadess.SensorProxy` on the system bus and serve its
    /// accelerometer part (docs/SERVICE.md "Replacing iio-sensor-proxy"). Default `false`.
    public var sensorProxy: Bool

    /// Creates server settings; the defaults are the built-in values.
    public init(socketPath: String = "/run/carouseld/carouseld.sock", socketMode: UInt32 = 0o660,
                socketGroup: String = "", controlGroup: String = "carouseld-control", maxClients: Int = 64,
                controlReserve: Int = 4, maxClientsPerUID: Int = 16, idleTimeoutSeconds: Double = 30,
                maxRateHz: Double = 60, sensorProxy: Bool = false) {
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.controlGroup = controlGroup
        self.maxClients = maxClients
        self.controlReserve = controlReserve
        self.maxClientsPerUID = maxClientsPerUID
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxRateHz = maxRateHz
        self.sensorProxy = sensorProxy
    }

    /// The connections kept for peers with control rights: `control_reserve`, at most half of
    /// `max_clients` (rounded down), so a small `max_clients` still admits ordinary watchers.
    public var effectiveControlReserve: Int { min(controlReserve, maxClients / 2) }

    /// The built-in `[server]` values.
    public static let defaults = ServerSettings()
}

// MARK: - [calibration]

/// `[calibration]`: the calibration written by `carouselctl calibrate` (docs/CLI.md "calibrate").
public struct CalibrationSettings: Equatable, Sendable {
    /// `file` — path of the calibration file; a missing file means "uncalibrated". Default
    /// `/var/lib/carouseld/calibration.conf` (the service's StateDirectory). A relative path is
    /// resolved against the config file's directory.
    public var file: String

    /// Creates calibration settings; the defaults are the built-in values.
    public init(file: String = "/var/lib/carouseld/calibration.conf") {
        self.file = file
    }

    /// The built-in `[calibration]` values.
    public static let defaults = CalibrationSettings()
}
