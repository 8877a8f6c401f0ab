import CarouselMQTT
import CarouselProtocol
import Testing

/// The discovery configs, parsed back and checked field by field.
@Suite struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", deviceID: "lobby",
                                                  topics: BridgeTopics(topicPrefix: "carouseld", deviceID: "lobby"),
                                                  release: "0.1.0")

    static func configs(count: Int) throws -> [String: WireJSON] {
        var result: [String: WireJSON] = [:]
        for (topic, payload) in discovery.messages(count: count) { result[topic] = try WireJSONParser.parse(payload) }
        return result
    }

    @Test func oneConfigPerEntityWithTheSharedFields() throws {
        let configs = try Self.configs(count: 10)
        #expect(Set(configs.keys) == [
            "homeassistant/number/lobby/index/config", "homeassistant/sensor/lobby/roll/config",
            "homeassistant/sensor/lobby/pitch/config", "homeassistant/binary_sensor/lobby/sensor_problem/config",
            "homeassistant/switch/lobby/tilt/config", "homeassistant/button/lobby/recenter/config",
        ])
        let device = WireJSON.object([
            ("identifiers", .array([.string("carouseld_lobby")])), ("name", .string("carouseld lobby")),
            ("manufacturer", .string("carouseld")), ("model", .string("carousel-mqtt bridge")), ("sw_version", .string("0.1.0")),
        ])
        for (topic, config) in configs {
            let object = topic.split(separator: "/")[3]
            #expect(config["device"] == device, "\(topic)")
            #expect(config["unique_id"] == .string("carouseld_lobby_\(object)"))
            // Home Assistant 2026.2 warns about `object_id` alone (removed in 2026.4), older
            // versions know only `object_id`: both keys give the same entity id in each.
            let component = topic.split(separator: "/")[1]
            #expect(config["object_id"] == .string("carouseld_lobby_\(object)"))
            #expect(config["default_entity_id"] == .string("\(component).carouseld_lobby_\(object)"), "\(topic)")
            #expect(config["availability_topic"] == .string("carouseld/lobby/availability"))
            #expect(config["payload_available"] == .string("online"))
            #expect(config["payload_not_available"] == .string("offline"))
            #expect(config["state_topic"] == (object == "recenter" ? nil : .string("carouseld/lobby/state")), "\(topic)")
        }
        #expect(Self.discovery.statusTopic == "homeassistant/status")
    }

    @Test func entitiesReadAndCommandTheRightTopics() throws {
        let c = try Self.configs(count: 10)
        let number = try #require(c["homeassistant/number/lobby/index/config"])
        #expect(number["command_topic"] == .string("carouseld/lobby/set/index"))
        #expect(number["value_template"] == .string("{{ value_json.index }}"))
        #expect(number["min"] == .number(0) && number["max"] == .number(9) && number["step"] == .number(1))
        let tilt = try #require(c["homeassistant/switch/lobby/tilt/config"])
        #expect(tilt["command_topic"] == .string("carouseld/lobby/set/tilt"))
        #expect(tilt["payload_on"] == .string("ON") && tilt["state_off"] == .string("OFF"))
        let button = try #require(c["homeassistant/button/lobby/recenter/config"])
        #expect(button["command_topic"] == .string("carouseld/lobby/recenter"))
    }

    /// Roll and pitch: degrees, a measurement (long-term statistics), shown to 0.1° as published.
    @Test func theAnglesAreMeasurementsInDegreesToATenth() throws {
        let c = try Self.configs(count: 10)
        for axis in ["roll", "pitch"] {
            let angle = try #require(c["homeassistant/sensor/lobby/\(axis)/config"])
            #expect(angle["value_template"] == .string("{{ value_json.tilt.\(axis)_deg }}"))
            #expect(angle["unit_of_measurement"] == .string("°"))
            #expect(angle["state_class"] == .string("measurement"))
            #expect(angle["suggested_display_precision"] == .number(1))
            #expect(angle["device_class"] == nil)
        }
    }

    /// Home Assistant's `problem` class reads ON as "problem", OFF as "OK": the template says ON
    /// for every status but `ok` and `replay`.
    @Test func theSensorStatusIsAProblemBinarySensor() throws {
        let c = try Self.configs(count: 10)
        #expect(c["homeassistant/binary_sensor/lobby/sensor_ok/config"] == nil)
        // The entity it replaces is cleared, not announced.
        #expect(Self.discovery.retiredConfigTopics == ["homeassistant/binary_sensor/lobby/sensor_ok/config"])
        let problem = try #require(c["homeassistant/binary_sensor/lobby/sensor_problem/config"])
        #expect(problem["name"] == .string("Tilt sensor"))
        #expect(problem["device_class"] == .string("problem"))
        #expect(problem["entity_category"] == .string("diagnostic"))
        #expect(problem["payload_on"] == .string("ON") && problem["payload_off"] == .string("OFF"))
        #expect(problem["value_template"] == .string("{{ 'OFF' if value_json.sensor in ['ok', 'replay'] else 'ON' }}"))
        #expect(problem["unique_id"] == .string("carouseld_lobby_sensor_problem"))
        #expect(problem["default_entity_id"] == .string("binary_sensor.carouseld_lobby_sensor_problem"))
    }

    @Test func theNumbersMaximumFollowsTheCount() throws {
        #expect(try WireJSONParser.parse(Self.discovery.indexNumber(count: 4).payload)["max"] == .number(3))
        #expect(try WireJSONParser.parse(Self.discovery.indexNumber(count: 2).payload)["max"] == .number(1))
    }

    /// Home Assistant's MQTT number refuses a config whose `max` is not above its `min` ("'max' must
    /// be > 'min'"), so a carousel of one item or none still announces 0 … 1, not 0 … 0.
    @Test func theNumbersMaximumStaysAboveItsMinimumForOneItemOrNone() throws {
        for count in [0, 1] {
            let number = try WireJSONParser.parse(Self.discovery.indexNumber(count: count).payload)
            #expect(number["min"] == .number(0) && number["max"] == .number(1), "count \(count)")
        }
    }
}
