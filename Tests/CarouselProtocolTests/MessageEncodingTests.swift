import CarouselEngine
import Testing
@testable import CarouselProtocol

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite struct MessageEncodingTests {
    @Test func greeting() {
        #expect(text(ServerMessage.version(release: "0.1.0").encodedLine())
            == "{\"class\":\"VERSION\",\"release\":\"0.1.0\",\"proto_major\":1,\"proto_minor\":2}\n")
    }

    /// LAYOUT (1.1): every field of the geometry and the style's configuration name; vertical
    /// RTL geometry is reported as given (the engine only mirrors horizontal carousels).
    @Test func layout() {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 1280, height: 720.5),
                                        item: CarouselSize(width: 300, height: 400), spacing: 24,
                                        axis: .vertical, direction: .rightToLeft, count: 7, cyclic: true)
        let line = LayoutMessage(CarouselConfiguration(geometry: geometry, style: .coverFlow(CoverFlowStyle()))).encodedLine()
        #expect(text(line) == #"{"class":"LAYOUT","viewport":{"width":1280,"height":720.5},"item":{"width":300,"height":400},"spacing":24,"axis":"vertical","direction":"rtl","style":"coverFlow","cyclic":true,"count":7,"align":"center","contain":false,"group_size":1}"# + "\n")
        let names = [LayoutStyle.linear(LinearStyle()), .zoom(ZoomStyle()), .stacked, .coverFlow(CoverFlowStyle()),
                     .rotary(RingStyle()), .cylinder(RingStyle())].map(LayoutMessage.name(of:))
        #expect(names == ["linear", "zoom", "stacked", "coverFlow", "rotary", "cylinder"])
    }

    @Test func simpleMessages() {
        #expect(text(ServerMessage.ack(cmd: "set_count").encodedLine()) == "{\"class\":\"ACK\",\"cmd\":\"set_count\"}\n")
        #expect(text(ServerMessage.error(ProtocolError(.badField, "missing field 'index'", cmd: "scroll_to")).encodedLine())
            == "{\"class\":\"ERROR\",\"code\":\"bad_field\",\"message\":\"missing field 'index'\",\"cmd\":\"scroll_to\"}\n")
        #expect(text(ServerMessage.error(ProtocolError(.tooManyClients, "64 clients already")).encodedLine())
            == "{\"class\":\"ERROR\",\"code\":\"too_many_clients\",\"message\":\"64 clients already\"}\n")
        #expect(text(ServerMessage.index(index: 3, previous: 2).encodedLine()) == "{\"class\":\"INDEX\",\"index\":3,\"previous\":2}\n")
        #expect(text(ServerMessage.sensor(status: "absent", name: nil, message: "no IIO accelerometer").encodedLine())
            == "{\"class\":\"SENSOR\",\"status\":\"absent\",\"message\":\"no IIO accelerometer\"}\n")
        #expect(text(ServerMessage.watch(enable: true, items: false, maxRateHz: 60).encodedLine())
            == "{\"class\":\"WATCH\",\"enable\":true,\"items\":false,\"max_rate_hz\":60}\n")
        #expect(text(ServerMessage.sample(timeNanoseconds: 5, accel: [0, -0.0, 9.81], gyro: nil).encodedLine())
            == "{\"class\":\"SAMPLE\",\"time_ns\":5,\"accel\":[0,0,9.81],\"gyro\":null}\n")
    }

    @Test func stateWithItemsParsesBackWithEveryField() throws {
        let item = WireItem(index: 2, instance: 0, center: (187.5, 100), size: (250, 160), scale: (1, 1),
                            alpha: 1, zIndex: -0.0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let state = StateMessage(seq: 7, timeNanoseconds: 123_456_789, index: 2, position: 2, offset: 520,
                                 velocity: -0.0, phase: "idle", count: 10,
                                 tilt: WireTilt(rollDeg: -1.25, pitchDeg: 0.5, enabled: true), sensor: "replay")
        let line = state.encodedLine(itemsJSON: WireItem.encodeArray([item]))
        #expect(line.last == 0x0A)
        #expect(!text(line).contains("-0"))
        let v = try WireJSONParser.parse(line.dropLast())
        #expect(v["class"] == .string("STATE"))
        #expect(v["seq"] == .number(7))
        #expect(v["time_ns"] == .number(123_456_789))
        #expect(v["index"] == .number(2))
        #expect(v["offset"] == .number(520))
        #expect(v["velocity"] == .number(0))
        #expect(v["tilt"]?["roll_deg"] == .number(-1.25))
        #expect(v["tilt"]?["enabled"] == .bool(true))
        #expect(v["sensor"] == .string("replay"))
        #expect(v["items"]?[0]?["center"] == .array([.number(187.5), .number(100)]))
        #expect(v["items"]?[0]?["zIndex"] == .number(0))
        #expect(v["items"]?[0]?["transform"]?.arrayValue?.count == 16)
        let empty = StateMessage(seq: 1, timeNanoseconds: 0, index: nil, position: 0, offset: 0, velocity: 0,
                                 phase: "idle", count: 0, tilt: WireTilt(rollDeg: nil, pitchDeg: nil, enabled: false), sensor: "absent")
        let e = try WireJSONParser.parse(empty.encodedLine().dropLast())
        #expect(e["index"] == .null)
        // No estimate: roll and pitch are null, not a 0 that looks like a level device (1.1).
        #expect(text(empty.encodedLine()).contains(#""tilt":{"roll_deg":null,"pitch_deg":null,"enabled":false}"#))
        #expect(e["items"] == nil)
    }

    @Test func statusAndSensors() throws {
        let status = ServerMessage.status(release: "0.1.0", uptimeSeconds: 1.5, sensor: "ok", sampleRateHz: 100,
                                          clients: 2, watchers: 1, configPath: "/etc/carouseld/carouseld.conf",
                                          calibration: WireCalibration(file: nil, applied: false))
        #expect(text(status.encodedLine()) == "{\"class\":\"STATUS\",\"release\":\"0.1.0\",\"uptime_s\":1.5,\"sensor\":\"ok\",\"sample_rate_hz\":100,\"clients\":2,\"watchers\":1,\"config_path\":\"/etc/carouseld/carouseld.conf\",\"calibration\":{\"file\":null,\"applied\":false}}\n")
        let sensors = ServerMessage.sensors(json: #"[{"name":"bmi160","mount_matrix":[[1,0,0],[0,1,0],[0,0,1]]}]"#)
        let v = try WireJSONParser.parse(sensors.encodedLine().dropLast())
        #expect(v["class"] == .string("SENSORS"))
        #expect(v["sensors"]?[0]?["mount_matrix"]?[2] == .array([.number(0), .number(0), .number(1)]))
        #expect(text(ServerMessage.sensors(json: "[]").encodedLine()) == "{\"class\":\"SENSORS\",\"sensors\":[]}\n")
    }
}
