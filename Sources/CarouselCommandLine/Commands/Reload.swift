import CarouselProtocol

/// `carouselctl reload`: Make the daemon reload its configuration and calibration.
enum ReloadCommand {
    static let spec = CommandSpec(
        name: "reload",
        summary: "Make the daemon reload its configuration and calibration.",
        run: { _, _ in throw CommandError(.software, "reload: not implemented yet") }
    )
}
