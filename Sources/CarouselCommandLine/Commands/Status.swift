import CarouselProtocol

/// `carouselctl status`: Show the daemon's version, sensor, rates, clients and current state.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status",
        summary: "Show the daemon's version, sensor, rates, clients and current state.",
        run: { _, _ in throw CommandError(.software, "status: not implemented yet") }
    )
}
