import CarouselProtocol

/// `carouselctl sensors`: List the IIO motion sensors.
enum SensorsCommand {
    static let spec = CommandSpec(
        name: "sensors",
        summary: "List the IIO motion sensors.",
        run: { _, _ in throw CommandError(.software, "sensors: not implemented yet") }
    )
}
