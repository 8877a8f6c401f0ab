import CarouselProtocol
import IIOSensors

/// `carouselctl sensors`: List the IIO motion sensors.
enum SensorsCommand {
    static let spec = CommandSpec(
        name: "sensors",
        summary: "List the IIO motion sensors.",
        discussion: """
        Lists every accelerometer, gyroscope and IMU that libiio and udev find, with channels \
        (scan index order), scale and offset, mount matrix and its source, sampling frequency, \
        buffer capability, triggers and warnings. With no sensor it says so and exits 0 \
        (--json prints []). See docs/SENSORS.md.
        """,
        options: [
            OptionSpec("--json", help: "Print a JSON array (INTERFACES §6) instead of text."),
            OptionSpec("--uri", value: "URI", help: "libiio context URI (default local:, e.g. ip:192.168.1.5)."),
        ],
        run: { args, io in
            let inventory: SensorInventory
            do {
                inventory = try SensorDiscovery.inventory(uri: args.value("--uri"))
            } catch {
                throw CommandError(.unavailable, "sensors: \(error)")
            }
            if args.has("--json") {
                io.out(SensorInfo.jsonArray(inventory.sensors) + "\n")
            } else {
                io.out(SensorListText.render(inventory.sensors, uri: inventory.uri))
            }
            return .ok
        }
    )
}
