import CarouselEngine
import IIOSensors
import MotionFusion

/// One key of the configuration file: its section, name and how its value is stored.
struct ConfigurationKey: Sendable {
    let section: String
    let name: String
    let apply: @Sendable (String, inout DaemonConfiguration) throws(ConfigurationValueProblem) -> Void
}

/// The table of every key (docs/CONFIGURATION.md "Keys"), in file order. Units and ranges are documented on the
/// fields of `DaemonConfiguration`'s section types and in `configs/carouseld.conf`.
enum ConfigurationKeys {
    typealias V = ConfigurationValue

    static let all: [ConfigurationKey] = sensor + filter + tilt + carousel + carouselFeatures + styleCustom + server
        + calibration

    /// Section names in file order.
    static let sections = ["sensor", "filter", "tilt", "carousel", "style.custom", "server", "calibration"]

    static func lookup(section: String, name: String) -> ConfigurationKey? {
        all.first { $0.section == section && $0.name == name }
    }

    static func names(in section: String) -> [String] {
        all.filter { $0.section == section }.map(\.name)
    }

    static let sensor: [ConfigurationKey] = [
        .init(section: "sensor", name: "source") { v, c throws(ConfigurationValueProblem) in
            c.sensor.source = try V.choice(v, SensorSettings.Source.self) },
        .init(section: "sensor", name: "uri") { v, c throws(ConfigurationValueProblem) in
            c.sensor.uri = try V.text(v, allowEmpty: false, what: "a libiio context URI such as local: or ip:HOST") },
        .init(section: "sensor", name: "device") { v, c throws(ConfigurationValueProblem) in
            c.sensor.device = try V.text(v, allowEmpty: true, what: "an IIO device name, label, sysfs path, iio:deviceN, /dev/iio:deviceN, display or base") },
        .init(section: "sensor", name: "accel_convention") { v, c throws(ConfigurationValueProblem) in
            c.sensor.accelConvention = try V.choice(v, AccelConvention.self) },
        .init(section: "sensor", name: "sample_rate_hz") { v, c throws(ConfigurationValueProblem) in
            c.sensor.sampleRateHz = try V.number(v, in: 1...2000, unit: "Hz") },
        .init(section: "sensor", name: "mode") { v, c throws(ConfigurationValueProblem) in
            c.sensor.mode = try V.choice(v, IIOReadMode.self) },
        .init(section: "sensor", name: "always_on") { v, c throws(ConfigurationValueProblem) in
            c.sensor.alwaysOn = try V.bool(v) },
        .init(section: "sensor", name: "replay_file") { v, c throws(ConfigurationValueProblem) in
            c.sensor.replayFile = try V.text(v, allowEmpty: true, what: "a path to a native CSV recording") },
        .init(section: "sensor", name: "replay_loop") { v, c throws(ConfigurationValueProblem) in
            c.sensor.replayLoop = try V.bool(v) },
        .init(section: "sensor", name: "replay_speed") { v, c throws(ConfigurationValueProblem) in
            c.sensor.replaySpeed = try V.number(v, in: 0.01...100, unit: "times real time") },
    ]

    static let filter: [ConfigurationKey] = [
        .init(section: "filter", name: "method") { v, c throws(ConfigurationValueProblem) in
            c.filter.method = try V.choice(v, EstimationMethod.self) },
        .init(section: "filter", name: "gain") { v, c throws(ConfigurationValueProblem) in
            c.filter.gain = try V.number(v, in: 0...10, unit: "") },
        .init(section: "filter", name: "lowpass_hz") { v, c throws(ConfigurationValueProblem) in
            c.filter.lowpassHz = try V.number(v, in: 0...500, unit: "Hz, 0 = off") },
        .init(section: "filter", name: "accel_rejection_deg") { v, c throws(ConfigurationValueProblem) in
            c.filter.accelRejectionDeg = try V.number(v, in: 0...90, unit: "degrees, 0 = off") },
    ]

    static let tilt: [ConfigurationKey] = [
        .init(section: "tilt", name: "enabled") { v, c throws(ConfigurationValueProblem) in
            c.tilt.mapping.enabled = try V.bool(v) },
        .init(section: "tilt", name: "axis") { v, c throws(ConfigurationValueProblem) in
            c.tilt.axis = try V.choice(v, TiltSection.Axis.self) },
        .init(section: "tilt", name: "display_rotation") { v, c throws(ConfigurationValueProblem) in
            if v == "auto" {
                c.tilt.displayRotation = nil
                return
            }
            guard let degrees = Int(v), [0, 90, 180, 270].contains(degrees) else {
                throw ConfigurationValueProblem(expected: "auto or one of 0, 90, 180, 270 (degrees clockwise)")
            }
            c.tilt.displayRotation = degrees },
        .init(section: "tilt", name: "mode") { v, c throws(ConfigurationValueProblem) in
            c.tilt.mapping.mode = try V.choice(v, TiltMode.self) },
    ] + TiltParameter.allCases.map { parameter in
        .init(section: "tilt", name: parameter.wireName) { v, c throws(ConfigurationValueProblem) in
            parameter.set(try V.number(v, in: parameter.range, unit: parameter.unit), in: &c.tilt.mapping) }
    } + [
        .init(section: "tilt", name: "neutral_tracking_s") { v, c throws(ConfigurationValueProblem) in
            c.tilt.neutralTrackingSeconds = try V.number(v, in: 0...3600, unit: "seconds, 0 = off") },
        .init(section: "tilt", name: "orientation_face_deg") { v, c throws(ConfigurationValueProblem) in
            c.tilt.orientation.faceDegrees = try V.number(v, in: OrientationDetector.Configuration.faceDegreesRange,
                                                          unit: "degrees") },
        .init(section: "tilt", name: "orientation_hysteresis_deg") { v, c throws(ConfigurationValueProblem) in
            c.tilt.orientation.hysteresisDegrees = try V.number(v, in: OrientationDetector.Configuration.hysteresisDegreesRange,
                                                                unit: "degrees") },
        .init(section: "tilt", name: "orientation_dwell_s") { v, c throws(ConfigurationValueProblem) in
            c.tilt.orientation.dwellSeconds = try V.number(v, in: OrientationDetector.Configuration.dwellSecondsRange,
                                                           unit: "seconds") },
    ]

    static let carousel: [ConfigurationKey] = [
        .init(section: "carousel", name: "count") { v, c throws(ConfigurationValueProblem) in
            c.carousel.count = try V.integer(v, in: 0...CarouselLimits.maximumCount, unit: "items") },
        .init(section: "carousel", name: "viewport_width") { v, c throws(ConfigurationValueProblem) in
            c.carousel.viewportWidth = try V.number(v, in: 1...CarouselLimits.maximumLength, unit: "points") },
        .init(section: "carousel", name: "viewport_height") { v, c throws(ConfigurationValueProblem) in
            c.carousel.viewportHeight = try V.number(v, in: 1...CarouselLimits.maximumLength, unit: "points") },
        .init(section: "carousel", name: "item_width") { v, c throws(ConfigurationValueProblem) in
            c.carousel.itemWidth = try V.number(v, in: 1...CarouselLimits.maximumLength, unit: "points") },
        .init(section: "carousel", name: "item_height") { v, c throws(ConfigurationValueProblem) in
            c.carousel.itemHeight = try V.number(v, in: 1...CarouselLimits.maximumLength, unit: "points") },
        .init(section: "carousel", name: "spacing") { v, c throws(ConfigurationValueProblem) in
            c.carousel.spacing = try V.number(v, in: 0...CarouselLimits.maximumLength, unit: "points") },
        .init(section: "carousel", name: "axis") { v, c throws(ConfigurationValueProblem) in
            c.carousel.axis = try V.choice(v, ScrollAxis.self) },
        .init(section: "carousel", name: "direction") { v, c throws(ConfigurationValueProblem) in
            c.carousel.direction = try V.choice(v, LayoutDirection.self) },
        .init(section: "carousel", name: "cyclic") { v, c throws(ConfigurationValueProblem) in
            c.carousel.cyclic = try V.bool(v) },
        .init(section: "carousel", name: "style") { v, c throws(ConfigurationValueProblem) in
            c.carousel.style = try V.choice(v, CarouselSettings.Style.self) },
        .init(section: "carousel", name: "paging") { v, c throws(ConfigurationValueProblem) in
            c.carousel.paging = try V.choice(v, CarouselSettings.Paging.self) },
        .init(section: "carousel", name: "deceleration_rate") { v, c throws(ConfigurationValueProblem) in
            // UIScrollView's named rates (per millisecond).
            switch v.lowercased() {
            case "normal": c.carousel.decelerationRate = 0.998
            case "fast": c.carousel.decelerationRate = 0.99
            default:
                do throws(ConfigurationValueProblem) {
                    c.carousel.decelerationRate = try V.number(v, in: 0.5...0.9999, unit: "per millisecond")
                } catch {
                    throw ConfigurationValueProblem(expected: "normal (0.998), fast (0.99) or " + error.expected)
                }
            } },
    ]

    static let server: [ConfigurationKey] = [
        .init(section: "server", name: "socket") { v, c throws(ConfigurationValueProblem) in
            // sun_path holds 108 bytes including the terminating NUL.
            let path = try V.absolutePath(v)
            guard path.utf8.count <= 107 else {
                throw ConfigurationValueProblem(expected: "an absolute path of at most 107 bytes (sun_path)")
            }
            c.server.socketPath = path },
        .init(section: "server", name: "socket_mode") { v, c throws(ConfigurationValueProblem) in
            c.server.socketMode = try V.fileMode(v) },
        .init(section: "server", name: "socket_group") { v, c throws(ConfigurationValueProblem) in
            c.server.socketGroup = try V.text(v, allowEmpty: true, what: "a group name") },
        .init(section: "server", name: "control_group") { v, c throws(ConfigurationValueProblem) in
            c.server.controlGroup = try V.text(v, allowEmpty: true, what: "a group name") },
        .init(section: "server", name: "max_clients") { v, c throws(ConfigurationValueProblem) in
            c.server.maxClients = try V.integer(v, in: 1...4096, unit: "connections") },
        .init(section: "server", name: "control_reserve") { v, c throws(ConfigurationValueProblem) in
            c.server.controlReserve = try V.integer(v, in: 0...2048, unit: "connections, at most half of max_clients") },
        .init(section: "server", name: "max_clients_per_uid") { v, c throws(ConfigurationValueProblem) in
            c.server.maxClientsPerUID = try V.integer(v, in: 1...4096, unit: "connections") },
        .init(section: "server", name: "idle_timeout_s") { v, c throws(ConfigurationValueProblem) in
            // Below a tenth of a second a client could hardly send its first request in time.
            c.server.idleTimeoutSeconds = try V.zeroOrNumber(v, in: 0.1...86400, off: "never", unit: "seconds") },
        .init(section: "server", name: "max_rate_hz") { v, c throws(ConfigurationValueProblem) in
            c.server.maxRateHz = try V.number(v, in: 1...1000, unit: "Hz") },
        .init(section: "server", name: "sensor_proxy") { v, c throws(ConfigurationValueProblem) in
            c.server.sensorProxy = try V.bool(v) },
    ]

    static let calibration: [ConfigurationKey] = [
        .init(section: "calibration", name: "file") { v, c throws(ConfigurationValueProblem) in
            c.calibration.file = try V.text(v, allowEmpty: false, what: "a path to the calibration file") },
    ]
}
