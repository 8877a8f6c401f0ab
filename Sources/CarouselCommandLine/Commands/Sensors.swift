import CarouselProtocol
import CarouselService
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
        (--json prints []). While carouseld runs it holds the IIO buffer, so the list comes \
        from the daemon ('sensors' request); only when no daemon answers on the socket, or with \
        --uri, are the sensors read directly. See \(ReferencePages.current.page("SENSORS.md")).
        """,
        options: [
            OptionSpec("--json", help: "Print a JSON array (fields in \(ReferencePages.current.page("SENSORS.md"))) instead of text."),
            OptionSpec("--uri", value: "URI", help: "libiio context URI (default local:, e.g. ip:192.168.1.5); reads directly, without asking carouseld."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            if let uri = args.value("--uri"), let problem = IIOContext.uriProblem(uri) {
                throw CommandError(.usage, "sensors: --uri: \(problem)")
            }
            if args.value("--uri") == nil {
                let settings = try OperatorSettings.load(args, io: io)
                let socketPath = settings.socketPath(args)
                if let answer = try DaemonSensors.fetch(socketPath: socketPath) {
                    io.out(args.has("--json") ? answer.json + "\n"
                                              : DaemonSensorListText.render(answer.sensors, socketPath: socketPath))
                    return .ok
                }
            }
            let inventory: SensorInventory
            do {
                inventory = try SensorDiscovery.inventory(uri: args.value("--uri"))
            } catch {
                throw CommandError(.unavailable, "sensors: \(error)")
            }
            for note in inventory.notes { io.err("carouselctl: sensors: \(note)\n") }
            if args.has("--json") {
                io.out(SensorInfo.jsonArray(inventory.sensors) + "\n")
            } else {
                io.out(SensorListText.render(inventory.sensors, uri: inventory.uri))
            }
            return .ok
        }
    )
}
