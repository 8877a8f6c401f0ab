/// The tilt part of a STATE: roll and pitch relative to neutral, degrees, and whether tilt
/// input is enabled. Roll and pitch are `null` on the wire while there is no estimate (no
/// sample since the sensor started, or the sensor is not delivering): protocol 1.1.
public struct WireTilt: Sendable, Equatable {
    /// Roll relative to neutral, degrees; nil without an estimate.
    public var rollDeg: Double?
    /// Pitch relative to neutral, degrees; nil without an estimate.
    public var pitchDeg: Double?
    public var enabled: Bool
    public init(rollDeg: Double?, pitchDeg: Double?, enabled: Bool) {
        self.rollDeg = rollDeg
        self.pitchDeg = pitchDeg
        self.enabled = enabled
    }
}

/// A STATE object without its `items` (docs/PROTOCOL.md "Server messages"). Offsets in points (UIKit
/// `contentOffset`), position in items (`offset / p`), velocity in points per second.
public struct StateMessage: Sendable, Equatable {
    /// Global, increasing; a gap means states were coalesced.
    public var seq: UInt64
    /// CLOCK_MONOTONIC nanoseconds of the engine time the state describes.
    public var timeNanoseconds: Int64
    /// The centered item (nearest to `position`), nil when the carousel is empty.
    public var index: Int?
    public var position: Double
    public var offset: Double
    public var velocity: Double
    /// `idle`, `dragging`, `decelerating`, `snapping`, `animating`, `tilting`, `outer_scrolling`.
    public var phase: String
    public var count: Int
    public var tilt: WireTilt
    /// The sensor status (`ok`, `stale`, `absent`, `replay`, `error`).
    public var sensor: String
    /// Autoplay: `off`, `running` or `paused` (protocol 1.1).
    public var autoplay: String

    public init(seq: UInt64, timeNanoseconds: Int64, index: Int?, position: Double, offset: Double,
                velocity: Double, phase: String, count: Int, tilt: WireTilt, sensor: String,
                autoplay: String = "off") {
        self.autoplay = autoplay
        self.seq = seq
        self.timeNanoseconds = timeNanoseconds
        self.index = index
        self.position = position
        self.offset = offset
        self.velocity = velocity
        self.phase = phase
        self.count = count
        self.tilt = tilt
        self.sensor = sensor
    }

    /// The NDJSON line (with `\n`); `itemsJSON` is an encoded array from `WireItem.encodeArray`.
    public func encodedLine(itemsJSON: [UInt8]? = nil) -> [UInt8] {
        var w = WireJSONWriter(capacity: 256 + (itemsJSON?.count ?? 0))
        w.beginObject()
        w.key("class"); w.string("STATE")
        w.key("seq"); w.uint64(seq)
        w.key("time_ns"); w.int64(timeNanoseconds)
        w.key("index"); if let index { w.int(index) } else { w.null() }
        w.key("position"); w.number(position)
        w.key("offset"); w.number(offset)
        w.key("velocity"); w.number(velocity)
        w.key("phase"); w.string(phase)
        w.key("count"); w.int(count)
        w.key("tilt")
        w.beginObject()
        w.key("roll_deg"); if let roll = tilt.rollDeg { w.number(roll) } else { w.null() }
        w.key("pitch_deg"); if let pitch = tilt.pitchDeg { w.number(pitch) } else { w.null() }
        w.key("enabled"); w.bool(tilt.enabled)
        w.endObject()
        w.key("sensor"); w.string(sensor)
        w.key("autoplay"); w.string(autoplay)
        if let itemsJSON { w.key("items"); w.raw(itemsJSON) }
        w.endObject()
        return w.bytes + [0x0A]
    }
}

/// What `STATUS` reports about the calibration in use.
public struct WireCalibration: Sendable, Equatable {
    /// The configured calibration file, nil when none is configured.
    public var file: String?
    /// Whether a calibration from that file is applied (false: missing, unreadable, or made for
    /// another sensor).
    public var applied: Bool
    public init(file: String?, applied: Bool) { self.file = file; self.applied = applied }
}

/// The server's messages other than STATE (docs/PROTOCOL.md "Server messages"), each one NDJSON line.
public enum ServerMessage: Sendable, Equatable {
    /// The greeting: `{"class":"VERSION","release","proto_major":1,"proto_minor":2}`.
    case version(release: String)
    /// The watch settings in effect; `orientation` is on the wire only when true (protocol 1.2).
    case watch(enable: Bool, items: Bool, maxRateHz: Double, orientation: Bool = false)
    /// `ORIENTATION {orientation}` (protocol 1.2): which way up the device is held, one of
    /// `DeviceOrientation`'s names, to watchers that asked for it.
    case orientation(String)
    case index(index: Int, previous: Int?)
    /// `SENSOR {status, name?, message?, path?, gyro_path?, estimator?}`: `path` is the sysfs path of the
    /// accelerometer being read and `gyro_path` that of its separate gyroscope device, when there
    /// are such devices; a change of either is a new SENSOR even when status and name stay.
    /// `estimator` (additive): the estimator used in place of the configured one, nil while none is.
    case sensor(status: String, name: String?, message: String?, path: String? = nil, gyroPath: String? = nil,
                estimator: WireEstimator? = nil)
    case status(release: String, uptimeSeconds: Double, sensor: String, sampleRateHz: Double?, clients: Int,
                watchers: Int, configPath: String?, calibration: WireCalibration,
                sensorName: String? = nil, sensorPath: String? = nil, orientation: String? = nil,
                estimator: WireEstimator? = nil)
    /// `SENSORS {sensors}` with the JSON array of docs/CLI.md "sensors" as IIOSensors encodes it
    /// (`SensorInfo.jsonArray`, the same text `carouselctl sensors --json` prints).
    case sensors(json: String)
    /// A raw sample: CLOCK_MONOTONIC ns, accel m/s², gyro rad/s (nil for accelerometer-only).
    case sample(timeNanoseconds: Int64, accel: [Double], gyro: [Double]?)
    case ack(cmd: String)
    case error(ProtocolError)

    /// Protocol version implemented here (1.1 adds `LAYOUT`, STATE `autoplay`, the
    /// `set_autoplay`, `insert_items`, `remove_items` and `set_style` requests, and STATE
    /// `tilt` roll and pitch are `null` without an estimate; 1.2 adds `watch` `orientation`,
    /// `ORIENTATION` and STATUS `orientation`).
    public static let protoMajor = 1
    public static let protoMinor = 2

    /// The NDJSON line, ending with `\n`.
    public func encodedLine() -> [UInt8] {
        var w = WireJSONWriter()
        w.beginObject()
        switch self {
        case let .version(release):
            w.key("class"); w.string("VERSION")
            w.key("release"); w.string(release)
            w.key("proto_major"); w.int(ServerMessage.protoMajor)
            w.key("proto_minor"); w.int(ServerMessage.protoMinor)
        case let .watch(enable, items, rate, orientation):
            w.key("class"); w.string("WATCH")
            w.key("enable"); w.bool(enable)
            w.key("items"); w.bool(items)
            w.key("max_rate_hz"); w.number(rate)
            if orientation { w.key("orientation"); w.bool(true) }
        case let .orientation(name):
            w.key("class"); w.string("ORIENTATION")
            w.key("orientation"); w.string(name)
        case let .index(index, previous):
            w.key("class"); w.string("INDEX")
            w.key("index"); w.int(index)
            w.key("previous"); if let previous { w.int(previous) } else { w.null() }
        case let .sensor(status, name, message, path, gyroPath, estimator):
            w.key("class"); w.string("SENSOR")
            w.key("status"); w.string(status)
            if let name { w.key("name"); w.string(name) }
            if let message { w.key("message"); w.string(message) }
            if let path { w.key("path"); w.string(path) }
            if let gyroPath { w.key("gyro_path"); w.string(gyroPath) }
            if let estimator { w.key("estimator"); estimator.write(to: &w) }
        case let .status(release, uptime, sensor, rate, clients, watchers, configPath, calibration, sensorName, sensorPath,
                         orientation, estimator):
            w.key("class"); w.string("STATUS")
            w.key("release"); w.string(release)
            w.key("uptime_s"); w.number(uptime)
            w.key("sensor"); w.string(sensor)
            w.key("sample_rate_hz"); w.number(rate)
            w.key("clients"); w.int(clients)
            w.key("watchers"); w.int(watchers)
            w.key("config_path"); if let configPath { w.string(configPath) } else { w.null() }
            w.key("calibration")
            w.beginObject()
            w.key("file"); if let file = calibration.file { w.string(file) } else { w.null() }
            w.key("applied"); w.bool(calibration.applied)
            w.endObject()
            // Additive STATUS fields (docs/PROTOCOL.md "Server messages"): the sensor a calibration must belong to.
            if let sensorName { w.key("sensor_name"); w.string(sensorName) }
            if let sensorPath { w.key("sensor_path"); w.string(sensorPath) }
            if let orientation { w.key("orientation"); w.string(orientation) }
            if let estimator { w.key("estimator"); estimator.write(to: &w) }
        case let .sensors(json):
            w.key("class"); w.string("SENSORS")
            w.key("sensors"); w.raw(Array(json.utf8))
        case let .sample(time, accel, gyro):
            w.key("class"); w.string("SAMPLE")
            w.key("time_ns"); w.int64(time)
            w.key("accel"); w.numbers(accel)
            w.key("gyro"); if let gyro { w.numbers(gyro) } else { w.null() }
        case let .ack(cmd):
            w.key("class"); w.string("ACK")
            w.key("cmd"); w.string(cmd)
        case let .error(error):
            w.key("class"); w.string("ERROR")
            w.key("code"); w.string(error.code.rawValue)
            w.key("message"); w.string(error.message)
            if let cmd = error.cmd { w.key("cmd"); w.string(cmd) }
        }
        w.endObject()
        return w.bytes + [0x0A]
    }
}
