import CarouselProtocol

/// `carouselctl simulate`: Run the carousel engine on a scenario; NDJSON frames on stdout.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        summary: "Run the carousel engine on a scenario; NDJSON frames on stdout.",
        run: { _, _ in throw CommandError(.software, "simulate: not implemented yet") }
    )
}
