/// The tilt part of a STATE: roll and pitch relative to neutral, degrees, and whether tilt
/// input is enabled.
public struct WireTilt: Sendable, Equatable {
    public var rollDeg: Double
    public var pitchDeg: Double
    public var enabled: Bool
    public init(rollDeg: Double, pitchDeg: Double, enabled: Bool) {
        self.rollDeg = rollDeg
        self.pitchDeg = pitchDeg
        self.enabled = enabled
    }
}

/// A STATE object without its `items` (INTERFACES §2). Offsets in points (UIKit
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

    public init(seq: UInt64, timeNanoseconds: Int64, index: Int?, position: Double, offset: Double,
                velocity: Double, phase: String, count: Int, tilt: WireTilt, sensor: String) {
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
        var w = JSONWriter(capacity: 256 + (itemsJSON?.count ?? 0))
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
        w.key("roll_deg"); w.number(tilt.rollDeg)
        w.key("pitch_deg"); w.number(tilt.pitchDeg)
        w.key("enabled"); w.bool(tilt.enabled)
        w.endObject()
        w.key("sensor"); w.string(sensor)
        if let itemsJSON { w.key("items"); w.raw(itemsJSON) }
        w.endObject()
        return w.bytes + [0x0A]
    }
}

/// One channel of a sensor in `SENSORS` (INTERFACES §6), in scan index order.
public struct WireChannel: Sendable, Equatable {
    public var name: String
    public var index: Int
    /// The scan element type, e.g. `le:s12/16>>4`.
    public var type: String
    public var scale: Double
    public var offset: Double
    public init(name: String, index: Int, type: String, scale: Double, offset: Double) {
        self.name = name; self.index = index; self.type = type; self.scale = scale; self.offset = offset
    }
}

/// One sensor in `SENSORS` and in `carouselctl sensors --json` (INTERFACES §6).
public struct WireSensor: Sendable, Equatable {
    public var name: String
    public var label: String?
    /// sysfs path.
    public var path: String
    /// `/dev/iio:deviceN`.
    public var dev: String?
    /// `accel`, `gyro` or `imu`.
    public var type: String
    public var channels: [WireChannel]
    /// 3×3 row-major mount matrix.
    public var mountMatrix: [[Double]]
    /// `udev`, `sysfs` or `identity`.
    public var mountMatrixSource: String
    public var samplingFrequencyHz: Double?
    public var samplingFrequencyAvailableHz: [Double]
    public var buffered: Bool
    public var triggers: [String]
    public var warnings: [String]

    public init(name: String, label: String?, path: String, dev: String?, type: String, channels: [WireChannel],
                mountMatrix: [[Double]], mountMatrixSource: String, samplingFrequencyHz: Double?,
                samplingFrequencyAvailableHz: [Double], buffered: Bool, triggers: [String], warnings: [String]) {
        self.name = name; self.label = label; self.path = path; self.dev = dev; self.type = type
        self.channels = channels; self.mountMatrix = mountMatrix; self.mountMatrixSource = mountMatrixSource
        self.samplingFrequencyHz = samplingFrequencyHz; self.samplingFrequencyAvailableHz = samplingFrequencyAvailableHz
        self.buffered = buffered; self.triggers = triggers; self.warnings = warnings
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("name"); w.string(name)
        w.key("label"); if let label { w.string(label) } else { w.null() }
        w.key("path"); w.string(path)
        w.key("dev"); if let dev { w.string(dev) } else { w.null() }
        w.key("type"); w.string(type)
        w.key("channels")
        w.beginArray()
        for c in channels {
            w.beginObject()
            w.key("name"); w.string(c.name)
            w.key("index"); w.int(c.index)
            w.key("type"); w.string(c.type)
            w.key("scale"); w.number(c.scale)
            w.key("offset"); w.number(c.offset)
            w.endObject()
        }
        w.endArray()
        w.key("mount_matrix")
        w.beginArray()
        for row in mountMatrix { w.numbers(row) }
        w.endArray()
        w.key("mount_matrix_source"); w.string(mountMatrixSource)
        w.key("sampling_frequency_hz"); w.number(samplingFrequencyHz)
        w.key("sampling_frequency_available_hz"); w.numbers(samplingFrequencyAvailableHz)
        w.key("buffered"); w.bool(buffered)
        w.key("triggers"); w.beginArray(); for t in triggers { w.string(t) }; w.endArray()
        w.key("warnings"); w.beginArray(); for t in warnings { w.string(t) }; w.endArray()
        w.endObject()
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

/// The server's messages other than STATE (INTERFACES §2), each one NDJSON line.
public enum ServerMessage: Sendable, Equatable {
    /// The greeting: `{"class":"VERSION","release","proto_major":1,"proto_minor":0}`.
    case version(release: String)
    /// The watch settings in effect.
    case watch(enable: Bool, items: Bool, maxRateHz: Double)
    case index(index: Int, previous: Int?)
    case sensor(status: String, name: String?, message: String?)
    case status(release: String, uptimeSeconds: Double, sensor: String, sampleRateHz: Double?, clients: Int,
                watchers: Int, configPath: String?, calibration: WireCalibration)
    case sensors([WireSensor])
    /// A raw sample: CLOCK_MONOTONIC ns, accel m/s², gyro rad/s (nil for accelerometer-only).
    case sample(timeNanoseconds: Int64, accel: [Double], gyro: [Double]?)
    case ack(cmd: String)
    case error(ProtocolError)

    /// Protocol version implemented here.
    public static let protoMajor = 1
    public static let protoMinor = 0

    /// The NDJSON line, ending with `\n`.
    public func encodedLine() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        switch self {
        case let .version(release):
            w.key("class"); w.string("VERSION")
            w.key("release"); w.string(release)
            w.key("proto_major"); w.int(ServerMessage.protoMajor)
            w.key("proto_minor"); w.int(ServerMessage.protoMinor)
        case let .watch(enable, items, rate):
            w.key("class"); w.string("WATCH")
            w.key("enable"); w.bool(enable)
            w.key("items"); w.bool(items)
            w.key("max_rate_hz"); w.number(rate)
        case let .index(index, previous):
            w.key("class"); w.string("INDEX")
            w.key("index"); w.int(index)
            w.key("previous"); if let previous { w.int(previous) } else { w.null() }
        case let .sensor(status, name, message):
            w.key("class"); w.string("SENSOR")
            w.key("status"); w.string(status)
            if let name { w.key("name"); w.string(name) }
            if let message { w.key("message"); w.string(message) }
        case let .status(release, uptime, sensor, rate, clients, watchers, configPath, calibration):
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
        case let .sensors(list):
            w.key("class"); w.string("SENSORS")
            w.key("sensors")
            w.beginArray()
            for s in list { s.write(to: &w) }
            w.endArray()
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
