import CarouselProtocol

/// Home Assistant MQTT discovery (docs/MQTT.md): one retained config message per entity on
/// `<discovery_prefix>/<component>/<device_id>/<object_id>/config` (entity id
/// `<component>.carouseld_<device_id>_<object_id>`, as `default_entity_id`), all sharing one `device`
/// block and the bridge's availability topic, and all reading `<base>/state`:
///
/// | component | object_id | entity |
/// |---|---|---|
/// | `number` | `index` | the centered item, 0 … max(1, count − 1); commands `set/index` |
/// | `sensor` | `roll`, `pitch` | tilt angles, °, to 0.1° (`None`, i.e. unknown, without an estimate) |
/// | `binary_sensor` | `sensor_problem` | device class `problem`: ON unless the sensor status is `ok` or `replay` |
/// | `switch` | `tilt` | tilt input; commands `set/tilt` ON/OFF |
/// | `button` | `recenter` | `recenter` |
public struct HomeAssistantDiscovery: Sendable {
    public let discoveryPrefix: String
    public let deviceID: String
    public let topics: BridgeTopics
    /// The `sw_version` of the device block.
    public let release: String

    public init(discoveryPrefix: String, deviceID: String, topics: BridgeTopics, release: String) {
        self.discoveryPrefix = discoveryPrefix
        self.deviceID = deviceID
        self.topics = topics
        self.release = release
    }

    /// `<discovery_prefix>/status`, where Home Assistant announces `online` after it starts:
    /// the cue to publish the configs again.
    public var statusTopic: String { discoveryPrefix + "/status" }

    /// The config topic of one entity.
    public func configTopic(component: String, objectID: String) -> String {
        "\(discoveryPrefix)/\(component)/\(deviceID)/\(objectID)/config"
    }

    /// The config topics of entities earlier releases announced and this one does not:
    /// `binary_sensor` `sensor_ok` (ON while the sensor was fine), replaced by `sensor_problem`.
    /// The bridge clears each with an empty retained message whenever it publishes the configs,
    /// so Home Assistant removes the entity instead of keeping it, stale, beside its successor.
    public var retiredConfigTopics: [String] {
        [configTopic(component: "binary_sensor", objectID: "sensor_ok")]
    }

    /// Every config message for a carousel of `count` items, as (topic, payload).
    public func messages(count: Int) -> [(topic: String, payload: [UInt8])] {
        [indexNumber(count: count)] + fixedMessages
    }

    /// The `number` entity, whose `max` follows the count (republished when it changes): count − 1,
    /// but at least 1, because Home Assistant refuses a number whose `max` is not above its `min`
    /// ("'max' must be > 'min'", `validate_config` of its MQTT number) and would drop the entity of a
    /// carousel with one item or none; the daemon refuses the index 1 there, on `error`.
    public func indexNumber(count: Int) -> (topic: String, payload: [UInt8]) {
        entity("number", "index", name: "Index") { w in
            w.key("command_topic"); w.string(topics.command(.setIndex))
            w.key("value_template"); w.string("{{ value_json.index }}")
            w.key("min"); w.int(0)
            w.key("max"); w.int(max(1, count - 1))
            w.key("step"); w.int(1)
            w.key("mode"); w.string("box")
            w.key("icon"); w.string("mdi:view-carousel")
        }
    }

    private var fixedMessages: [(topic: String, payload: [UInt8])] {
        [
            angle("roll", name: "Roll"),
            angle("pitch", name: "Pitch"),
            // Home Assistant's `problem` class: ON means a problem, OFF "OK"; the frontend shows
            // Problem / OK rather than a bare On / Off.
            entity("binary_sensor", "sensor_problem", name: "Tilt sensor") { w in
                w.key("value_template"); w.string("{{ 'OFF' if value_json.sensor in ['ok', 'replay'] else 'ON' }}")
                w.key("payload_on"); w.string("ON")
                w.key("payload_off"); w.string("OFF")
                w.key("device_class"); w.string("problem")
                w.key("entity_category"); w.string("diagnostic")
            },
            entity("switch", "tilt", name: "Tilt control") { w in
                w.key("command_topic"); w.string(topics.command(.setTilt))
                w.key("value_template"); w.string("{{ 'ON' if value_json.tilt.enabled else 'OFF' }}")
                w.key("payload_on"); w.string("ON")
                w.key("payload_off"); w.string("OFF")
                w.key("state_on"); w.string("ON")
                w.key("state_off"); w.string("OFF")
                w.key("icon"); w.string("mdi:phone-rotate-landscape")
            },
            entity("button", "recenter", name: "Recenter tilt", readsState: false) { w in
                w.key("command_topic"); w.string(topics.command(.recenter))
                w.key("payload_press"); w.string("PRESS")
                w.key("icon"); w.string("mdi:crosshairs")
            },
        ]
    }

    private func angle(_ axis: String, name: String) -> (topic: String, payload: [UInt8]) {
        entity("sensor", axis, name: name) { w in
            // Jinja renders JSON null as `None`, which Home Assistant's MQTT sensor reads as unknown.
            w.key("value_template"); w.string("{{ value_json.tilt.\(axis)_deg }}")
            w.key("unit_of_measurement"); w.string("°")
            // `measurement`, "a measurement in present time" (min, max and mean in long-term
            // statistics). Home Assistant's `measurement_angle` is for directions such as the
            // wind's, averaged on the circle; roll and pitch are signed inclinations.
            w.key("state_class"); w.string("measurement")
            // The state carries angles to 0.1° (`BridgeState.angleResolutionDegrees`).
            w.key("suggested_display_precision"); w.int(1)
            w.key("icon"); w.string("mdi:angle-acute")
        }
    }

    /// One config object: the shared keys, then the component's own.
    private func entity(_ component: String, _ objectID: String, name: String, readsState: Bool = true,
                        _ specific: (inout WireJSONWriter) -> Void) -> (topic: String, payload: [UInt8]) {
        var w = WireJSONWriter(capacity: 768)
        w.beginObject()
        w.key("name"); w.string(name)
        w.key("unique_id"); w.string("carouseld_\(deviceID)_\(objectID)")
        // `object_id` is deprecated from Home Assistant 2026.2 (removed in 2026.4) in favour of
        // `default_entity_id`, which 2025.x accepts beside it; both give `<component>.carouseld_<id>_<name>`.
        w.key("object_id"); w.string("carouseld_\(deviceID)_\(objectID)")
        w.key("default_entity_id"); w.string("\(component).carouseld_\(deviceID)_\(objectID)")
        if readsState { w.key("state_topic"); w.string(topics.state) }
        w.key("availability_topic"); w.string(topics.availability)
        w.key("payload_available"); w.string("online")
        w.key("payload_not_available"); w.string("offline")
        specific(&w)
        w.key("device")
        w.beginObject()
        w.key("identifiers"); w.beginArray(); w.string("carouseld_\(deviceID)"); w.endArray()
        w.key("name"); w.string("carouseld \(deviceID)")
        w.key("manufacturer"); w.string("carouseld")
        w.key("model"); w.string("carousel-mqtt bridge")
        w.key("sw_version"); w.string(release)
        w.endObject()
        w.key("origin")
        w.beginObject()
        w.key("name"); w.string("carousel-mqtt")
        w.key("sw_version"); w.string(release)
        w.endObject()
        w.endObject()
        return (configTopic(component: component, objectID: objectID), w.bytes)
    }
}
